package outsidebench

import "testing"

var sinkStr string

func BenchmarkWork(b *testing.B) {
	for i := range b.N {
		sinkStr = Work(i)
	}
}
