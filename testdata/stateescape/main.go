// An instrumented function's state stays on its stack: recording does
// not add heap allocations to the program's own (testing.AllocsPerRun,
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

func main() {
	calls := 0
	allocs := testing.AllocsPerRun(100, func() {
		calls++
		mid(3)
	})
	fmt.Printf("allocations per call: %v\n", allocs)
	fmt.Printf("want leaves %d\nwant adds %d\n", calls, total.Load())
}
