// Program selective is CPU-heavy: solve calls step, which calls mix, a
// million times in all; the question asks about the few executions of
// solve whose parameter is 7. The evaluation measures what each mode of
// pmm costs it.
//
// With PMM_EVAL_MEMSTATS=1 it prints the bytes it allocated to stderr.
package main

import (
	"fmt"
	"os"
	"runtime"
)

func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

func step(i int) int { return int(mix(uint64(i)) % 1000) }

func solve(n int) int {
	s := 0
	for k := 0; k < 25; k++ {
		s += step(n + k)
	}
	return s
}

func main() {
	total := 0
	for i := 0; i < 20000; i++ {
		total += solve(i % 1000)
	}
	fmt.Println("total", total)
	if os.Getenv("PMM_EVAL_MEMSTATS") == "1" {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Fprintln(os.Stderr, "allocated", m.TotalAlloc)
	}
}
