package progen

import (
	"testing"
)

func TestPrint(t *testing.T) {
	p := Generate(8, AllFeatures())
	p.WritePlain("/tmp/pg/p1")
	p.WriteTwin("/tmp/pg/t1")
}
