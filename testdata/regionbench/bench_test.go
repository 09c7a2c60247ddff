package regionbench

import "testing"

func BenchmarkLoop(b *testing.B)      { Loop(b.N) }
func BenchmarkLoopPlain(b *testing.B) { LoopPlain(b.N) }
func BenchmarkLoopHand(b *testing.B)  { LoopHand(b.N) }
func BenchmarkUnasked(b *testing.B)   { Unasked(b.N) }

func BenchmarkLock(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Lock()
	}
}

func BenchmarkSend(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Send()
	}
}

func BenchmarkLockWaited(b *testing.B) {
	for i := 0; i < b.N; i++ {
		LockWaited()
	}
}

func BenchmarkSendWaited(b *testing.B) {
	for i := 0; i < b.N; i++ {
		SendWaited()
	}
}

func BenchmarkSpawn(b *testing.B) {
	for i := 0; i < b.N; i++ {
		Spawn()
	}
}
