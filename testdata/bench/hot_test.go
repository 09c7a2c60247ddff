package bench

import "testing"

var sink int

func BenchmarkHot(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += Hot(i)
	}
}

func BenchmarkHotPlain(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += HotPlain(i)
	}
}

func BenchmarkHotHand(b *testing.B) {
	Reset()
	for i := 0; i < b.N; i++ {
		sink += HotHand(i)
	}
}
