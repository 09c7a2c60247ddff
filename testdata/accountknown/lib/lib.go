// Package lib is the unaccounted agent: each of its functions makes one
// Buf, charged to the nearest accounted caller on the goroutine. Some
// are called from one account only (their account is known from the
// call graph), some from two, some in ways the call graph cannot follow.
package lib

import "sync"

// Buf is 64 bytes.
type Buf struct {
	data [7]int64
	next *Buf
}

var (
	sink *Buf
	// Made counts the Bufs lib made, by hand.
	Made int
	mu   sync.Mutex
)

func made() {
	mu.Lock()
	Made++
	mu.Unlock()
}

// ForApp is called by app only, and calls helper, which only it calls.
func ForApp() {
	sink = new(Buf)
	made()
	helper()
}

func helper() {
	sink = new(Buf)
	made()
}

// Shared is called by app and by db, and makes two Bufs in a loop: its
// account is read once per execution.
func Shared() {
	for range 2 {
		sink = new(Buf)
		made()
	}
}

// ByValue is called by app through a function value.
func ByValue() {
	sink = new(Buf)
	made()
}

// Spawned is started by app's go statement: its goroutine has no account.
func Spawned(wg *sync.WaitGroup) {
	defer wg.Done()
	sink = new(Buf)
	made()
}

// FromMain is called by main only: no account.
func FromMain() {
	sink = new(Buf)
	made()
}

// Rec is called by db only, and calls itself.
func Rec(n int) {
	sink = new(Buf)
	made()
	if n > 0 {
		Rec(n - 1)
	}
}

// Ranger is called by app only, and ranges over db's iterator: the loop
// body runs inside db.All, so what it allocates, directly or in InBody,
// is db's; what it allocates before the loop is app's.
func Ranger(seq func(func(int) bool)) {
	sink = new(Buf)
	made()
	for range seq {
		sink = new(Buf)
		made()
		InBody()
	}
}

// InBody is called only from Ranger's loop body.
func InBody() {
	sink = new(Buf)
	made()
}

// T makes a Buf in a method, which interfaces and reflection may call.
type T struct{}

// Make is called by app only.
func (T) Make() {
	sink = new(Buf)
	made()
}
