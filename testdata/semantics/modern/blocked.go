package main

import (
	"fmt"
	"sync"
)

// Blocking operations that pmm first tries without waiting (a select
// with default, TryLock, TryRLock): what each computes, and panics,
// must be the original's.

// guarded embeds its mutex: Lock is promoted from it.
type guarded struct {
	sync.Mutex
	n int
}

// shared holds a read-write mutex through a pointer.
type shared struct {
	rw *sync.RWMutex
	n  int
}

var lockCalls int

// lockTarget counts its calls: the receiver of a Lock is evaluated once.
func lockTarget(m *sync.Mutex) *sync.Mutex { lockCalls++; return m }

// nilLock locks through a nil pointer, and recovers the panic.
func nilLock() (msg string) {
	defer func() { msg = fmt.Sprint("recovered ", recover()) }()
	var s *shared
	s.rw.RLock()
	return "not reached"
}

// closedSend sends on a closed channel, and recovers the panic.
func closedSend(c chan int) (msg string) {
	defer func() { msg = fmt.Sprint("recovered ", recover()) }()
	c <- 1
	return "not reached"
}

func blockedCases() {
	var g guarded
	g.Lock()
	g.n++
	g.Unlock()
	s := shared{rw: new(sync.RWMutex)}
	s.rw.RLock()
	s.rw.RLock() // a second reader proceeds at once
	s.n = 1
	s.rw.RUnlock()
	s.rw.RUnlock()
	var mu sync.Mutex
	lockTarget(&mu).Lock()
	lockTarget(&mu).Unlock()
	fmt.Println("locks", g.n, s.n, lockCalls)
	fmt.Println(nilLock())
	// A receive that must wait for another goroutine, on an unbuffered
	// channel; one from a closed channel; a send on a closed one.
	c := make(chan int)
	go func() { c <- 7 }()
	v := <-c
	close(c)
	w, ok := <-c
	fmt.Println("received", v, w, ok)
	fmt.Println(closedSend(c))
	// A contended Lock: the goroutine waits until main unlocks.
	mu.Lock()
	done := make(chan bool)
	go func() { mu.Lock(); mu.Unlock(); done <- true }()
	mu.Unlock()
	fmt.Println("contended", <-done)
}
