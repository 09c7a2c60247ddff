// An instrumented function's state stays on its stack: recording does
// not add a heap allocation to every execution (testing.AllocsPerRun,
// -benchmem). Each count the program prints as "want NAME VALUE" is
// what pmm must answer, in every mode.
package main

import (
	"fmt"
	"sync/atomic"
	"testing"
)

var total atomic.Int64

func leaf(n int) int { return n + 1 }

// mid calls a function outside the module, whose executions are
// recorded at mid's call site.
func mid(n int) int {
	total.Add(1)
	return leaf(n) * 2
}

type Key struct {
	T  string
	ID int
}

func fetch(k Key) int { return len(k.T) + k.ID }

// lookup fetches k twice: what a cache would save. The call sites of
// fetch take lookup's state (the run-time test of equal keys).
func lookup(k Key) int { return fetch(k) + fetch(k) }

func main() {
	calls := 0
	allocs := testing.AllocsPerRun(100, func() {
		calls++
		mid(3)
	})
	fmt.Printf("allocations per call: %v\n", allocs)
	fmt.Printf("want leaves %d\nwant adds %d\n", calls, total.Load())
	lookup(Key{"a", 1})
	lookup(Key{"b", 2})
	fmt.Printf("want repeats 2\n")
}
