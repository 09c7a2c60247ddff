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
	selectShapes()
	rangeShapes()
}

// selectOrder is the order in which a select evaluates its channels and
// sent values: once each, in source order, as it begins.
var selectOrder []string

func chanOf(name string, c chan int) chan int { selectOrder = append(selectOrder, name); return c }
func valueOf(name string, v int) int          { selectOrder = append(selectOrder, name); return v }

// floats is a named channel type, sent an untyped constant.
type floats chan float64

// selectShapes runs selects of every shape pmm rewrites: receives with
// := and =, comma-ok, from a closed channel and a nil one, sends of
// constants and of computed values, a labeled select left by break,
// continue of a loop around it, one that waits for a goroutine, and a
// send on a closed channel that panics.
func selectShapes() {
	ready, closed, slow := make(chan int, 1), make(chan int), make(chan int)
	close(closed)
	var never chan int
	var f floats = make(floats, 1)
	ready <- 4
	var got []string
	var x int
	ok := true
loop:
	for i := 0; i < 4; i++ {
	sel:
		select {
		case v := <-chanOf("ready", ready):
			got = append(got, fmt.Sprint("ready ", v))
			if v == 4 {
				break sel
			}
			got = append(got, "not reached")
		case x, ok = <-chanOf("closed", closed):
			got = append(got, fmt.Sprint("closed ", x, ok))
			if i >= 2 {
				break loop
			}
			continue loop
		case chanOf("never", never) <- valueOf("sent", i):
			got = append(got, "never")
		case f <- 1:
			got = append(got, fmt.Sprint("float ", <-f))
		}
	}
	fmt.Println("select order", len(selectOrder) > 0, selectOrder[:4])
	fmt.Println("select got", len(got) > 0)
	// One that waits for a goroutine; none ready when it begins.
	go func() { slow <- 9 }()
	select {
	case v := <-slow:
		fmt.Println("slow", v)
	case <-never:
		fmt.Println("never")
	}
	fmt.Println(selectClosedSend())
}

// selectClosedSend's select sends on a closed channel: it panics, and
// the function recovers.
func selectClosedSend() (msg string) {
	defer func() { msg = fmt.Sprint("recovered ", recover()) }()
	c := make(chan int, 1)
	close(c)
	select {
	case c <- 1:
	case <-(chan int)(nil):
	}
	return "not reached"
}

// rangeShapes ranges over channels in every form pmm rewrites: with a
// variable declared (each iteration's its own, as closures see it), an
// assigned one (a map element), none; a labeled loop left by continue,
// break and goto to its label; a channel evaluated once.
func rangeShapes() {
	fills := 0
	fill := func(n int) chan int {
		fills++
		c := make(chan int, n)
		for i := 1; i <= n; i++ {
			c <- i
		}
		close(c)
		return c
	}
	var fns []func() int
	sum := 0
	for v := range fill(3) {
		fns = append(fns, func() int { return v * 10 })
	}
	for _, f := range fns {
		sum += f()
	}
	m := map[string]int{}
	for m["last"] = range fill(4) {
	}
	n := 0
	for range fill(2) {
		n++
	}
	tries := 0
again:
	tries++
outer:
	for v := range fill(5) {
		switch {
		case v == 2:
			continue outer
		case v == 4 && tries < 2:
			goto again
		case v == 4:
			break outer
		}
		sum += v
	}
	fmt.Println("ranges", sum, m["last"], n, tries, fills)
}
