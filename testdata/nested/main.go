// Command nested times one function, Outer, that calls an instrumented
// function Nested times, against a copy that pmm never instruments,
// timed by hand in the same run: the bias of the duration pmm records
// for Outer is what the instrumentation inside it adds
// (cmd/pmm's BenchmarkNestedBias).
package main

import (
	"flag"
	"fmt"
	"sort"
	"time"
)

// Nested is the number of calls of Leaf in one execution of Outer.
const Nested = 100

// Leaf is the callee that a second question may instrument.
//
//go:noinline
func Leaf(x int) int { return x*x + 1 }

// LeafPlain is Leaf, never instrumented.
//
//go:noinline
func LeafPlain(x int) int { return x*x + 1 }

// Outer is the function whose durations pmm records.
//
//go:noinline
func Outer(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += Leaf(i)
	}
	return s
}

// OuterPlain is Outer calling LeafPlain, never instrumented: its
// duration, timed by hand, is what Outer's would be without pmm.
//
//go:noinline
func OuterPlain(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += LeafPlain(i)
	}
	return s
}

var sink int

func main() {
	rounds := flag.Int("rounds", 1000, "executions of Outer (and of OuterPlain)")
	flag.Parse()
	plain := make([]int64, 0, *rounds)
	outside := make([]int64, 0, *rounds)
	for r := 0; r < *rounds; r++ {
		t := time.Now()
		sink += Outer(Nested)
		outside = append(outside, int64(time.Since(t)))
		t = time.Now()
		sink += OuterPlain(Nested)
		plain = append(plain, int64(time.Since(t)))
	}
	// Medians: the machine's noise (other processes, page faults of the
	// log) moves means more than medians.
	fmt.Printf("plain-median-ns %d\n", median(plain))
	fmt.Printf("outside-median-ns %d\n", median(outside))
}

func median(xs []int64) int64 {
	sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] })
	return xs[len(xs)/2]
}
