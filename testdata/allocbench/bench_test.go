package allocbench

import "testing"

func BenchmarkWork(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Work(i)
	}
}

func BenchmarkGrid(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Grid()
	}
}

func BenchmarkList(b *testing.B) {
	for i := 0; i < b.N; i++ {
		List(8)
	}
}

func BenchmarkIndex(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Index()
	}
}
