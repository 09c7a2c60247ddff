// Command pprofdemo has a known workload for pmm answer -format pprof:
// Serve calls Lookup 30 times, Batch calls it 12 times and the generic
// Max 12 times (float64), each Lookup calls Max once (int) and sleeps
// for a millisecond.
package main

import (
	"cmp"
	"fmt"
	"time"
)

// Max is generic: pprof names it main.Max[...].
func Max[T cmp.Ordered](a, b T) T {
	if a > b {
		return a
	}
	return b
}

// Lookup takes at least a millisecond.
func Lookup(k int) int {
	time.Sleep(time.Millisecond)
	return Max(k, 7)
}

// Serve looks up n keys.
func Serve(n int) (s int) {
	for i := 0; i < n; i++ {
		s += Lookup(i)
	}
	return s
}

// Batch looks up n keys, and compares floats.
func Batch(n int) (s int) {
	for i := 0; i < n; i++ {
		s += Lookup(i)
		_ = Max(float64(i), 2.5)
	}
	return s
}

// main prints how long Serve and Batch took, measured around their
// calls: the Lookups under each took less.
func main() {
	t0 := time.Now()
	Serve(30)
	t1 := time.Now()
	Batch(12)
	t2 := time.Now()
	fmt.Printf("elapsed main.Serve %d\n", t1.Sub(t0).Nanoseconds())
	fmt.Printf("elapsed main.Batch %d\n", t2.Sub(t1).Nanoseconds())
}
