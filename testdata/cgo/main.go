// Program cgo is the subject of pmm's test of a package that uses cgo
// (cmd/pmm TestCgoPackage): F calls C, G takes and returns a C type, and
// the program counts their calls and sums their parameters itself.
package main

/*
#include <stdint.h>

static int twice(int x) { return 2 * x; }
static int64_t add(int64_t a, int64_t b) { return a + b; }
*/
import "C"

import (
	"flag"
	"fmt"
)

// F is counted by the questions: it calls C.
func F(i int) int { return int(C.twice(C.int(i))) }

// G takes and returns C types.
func G(a C.int64_t, b int) C.int64_t { return C.add(a, C.int64_t(b)) }

func main() {
	n := flag.Int("n", 10, "calls of F")
	flag.Parse()
	total, calls, gCalls := 0, 0, 0
	var acc C.int64_t
	var sumA, sumB int64
	for i := 0; i < *n; i++ {
		total += F(i)
		calls++
		if i%2 == 0 {
			gCalls++
			sumA += int64(acc)
			sumB += int64(i)
			acc = G(acc, i)
		}
	}
	fmt.Println("calls", calls, "total", total, "gcalls", gCalls, "suma", sumA, "sumb", sumB)
}
