package xtest_test

import (
	"slices"
	"testing"

	"example.com/xtest"
	"example.com/xtest/internal/kit"
)

func check(t *testing.T, c kit.Case) bool {
	return xtest.Add(c.A, c.B) == c.Want
}

func TestAdd(t *testing.T) {
	for _, c := range slices.Clone(kit.Cases()) {
		if !check(t, c) {
			t.Fail()
		}
	}
	if xtest.Clones() != 2 {
		t.Fail()
	}
	if len(xtest.Concat(xtest.Readers{nil}, xtest.Readers{nil, nil})) != 3 {
		t.Fail()
	}
}
