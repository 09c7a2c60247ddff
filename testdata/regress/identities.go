package main

import (
	"fmt"
	"sync"
)

// The part of class 3 (one execution, two identities): an execution of
// Fib recorded at its definition is also the callee of a direct call
// from a Fib, and, in the positive form, the caller of one. pmm must see
// one execution, whichever site records it. Fib is reached directly
// from Fib, through a helper, through a function value, from a closure
// on another goroutine, and from a deferred call; it counts for itself,
// with a flag each call from a Fib sets just before it calls (the
// program is single-threaded where it reads it).

var (
	fromFib  bool // set by Fib just before it calls Fib directly
	nFib     int  // executions of Fib
	nRoots   int  // executions of Fib not called by a Fib
	sumRoots int  // the sum of their parameters
	nMiddle  int  // executions of Fib called by a Fib that call a Fib
)

// Fib is fib, but Fib(6) reaches Fib(5) through helper (so that Fib(5)
// is not called by a Fib), and Fib(7) calls Fib(6) in a deferred call.
func Fib(n int) (r int) {
	called := fromFib
	fromFib = false
	nFib++
	if !called {
		nRoots++
		sumRoots += n
	}
	if n < 2 {
		return n
	}
	if called {
		nMiddle++ // it calls a Fib below, whichever n
	}
	switch n {
	case 6:
		r = helper(n - 1)
		fromFib = true
		return r + Fib(n-2)
	case 7:
		defer Fib(n - 1)                  // a deferred direct call, its result dropped
		defer func() { fromFib = true }() // runs first
		fromFib = true
		return Fib(n - 2)
	}
	fromFib = true
	a := Fib(n - 1)
	fromFib = true
	return a + Fib(n-2)
}

// helper calls Fib: Fib's callee there is not called by a Fib.
func helper(n int) int { return Fib(n) }

var fibValue = Fib

func identities() {
	s := Fib(8)
	s += fibValue(4) // through a function value, from identities
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // from a closure, on another goroutine; main waits
		defer wg.Done()
		s += Fib(3)
	}()
	wg.Wait()
	fmt.Println("identities", s)
	fmt.Println("want fib_roots", nRoots)
	fmt.Println("want fib_roots_sum", sumRoots)
	fmt.Println("want fib_middle", nMiddle)
	fmt.Println("want fib_execs", nFib)
}
