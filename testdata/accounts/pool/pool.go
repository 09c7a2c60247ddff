// Package pool is the agent of seed 002's principal–agent rule: it
// allocates on behalf of its callers and is not accounted, so what it
// allocates is charged to the nearest accounted caller.
package pool

import "sync"

// Buf is 64 bytes, a size class: its heap bytes are its size.
type Buf struct {
	data [7]int64
	next *Buf
}

// Get allocates a Buf.
//
//go:noinline
func Get() *Buf { return new(Buf) }

// Fill calls f with each of n new Bufs: the Bufs are allocated here,
// on behalf of Fill's caller, and whatever f allocates is f's.
func Fill(n int, f func(i int, b *Buf)) {
	for i := 0; i < n; i++ {
		f(i, Get())
	}
}

var (
	warm [1]*Buf
	// Warmed counts the Bufs Warm allocated, WarmKept those it keeps.
	Warmed, WarmKept int
)

// Warm allocates n Bufs, keeps the first, and says it is done: it runs
// on a goroutine of its own, where no frame is accounted.
func Warm(n int, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		b := Get()
		Warmed++
		if i == 0 {
			warm[0] = b
			WarmKept++
		}
	}
}
