// Program cache is the scenario of SmartMonitor 1.3.2: F calls G several
// times per execution, sometimes with arguments it already passed to G in
// the same execution. How much would a cache local to F save?
//
// With -hand, F is replaced by handF, the same computation with
// hand-written instrumentation that counts the repeated calls; the tests
// compare pmm's answer with that count.
package main

import (
	"flag"
	"fmt"
	"math/rand"
)

// G is the expensive function a cache would save calls of.
func G(a, b int) int {
	s := 0
	for i := 0; i < 2000*(a%5+1); i++ {
		s += (i*a + b) % 7
	}
	return s
}

// F calls G on pairs derived from xs.
func F(xs []int) int {
	t := 0
	for _, x := range xs {
		t += G(x%4, x%3)
	}
	return t
}

// handF is F with hand-written instrumentation: it counts the calls of G
// whose arguments repeat those of an earlier call in the same execution,
// and, to check what run-time filtering records, the calls that take part
// in a repeat (the earlier ones too) and the executions with a repeat.
func handF(xs []int, c *counts) int {
	seen := map[[2]int]int{}
	t := 0
	for _, x := range xs {
		k := [2]int{x % 4, x % 3}
		if seen[k] > 0 {
			c.repeats++
		}
		seen[k]++
		t += G(k[0], k[1])
	}
	repeated := false
	for _, n := range seen {
		if n > 1 {
			c.calls += n
			repeated = true
		}
	}
	if repeated {
		c.executions++
	}
	return t
}

type counts struct{ repeats, calls, executions int }

func main() {
	hand := flag.Bool("hand", false, "count the repeated calls by hand")
	n := flag.Int("n", 60, "executions of F")
	flag.Parse()
	rng := rand.New(rand.NewSource(1))
	total := 0
	var c counts
	for i := 0; i < *n; i++ {
		xs := make([]int, rng.Intn(9))
		for j := range xs {
			xs[j] = rng.Intn(24)
		}
		if *hand {
			total += handF(xs, &c)
		} else {
			total += F(xs)
		}
	}
	// Calls of G outside F repeat each other, but no execution of F
	// makes them: a cache local to F would not save them.
	total += G(1, 1) + G(1, 1)
	fmt.Println("total", total)
	if *hand {
		fmt.Println("repeats", c.repeats)
		fmt.Println("taking part: calls of G", c.calls, "executions of F", c.executions)
	}
}
