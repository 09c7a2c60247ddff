// Class: a dynamic call in code that never runs (issue 10). handler.serve
// calls its receiver, but nothing uses handler, so the call graph has no
// callee for h(a): pmm took it for a call that may run any function, and
// flagged every answer about calls in --mode straightforward and runtime
// (where every function may be the caller), and in static and combined
// the calls from serve. serve never runs: static.db marks it not reached.
// Found by the differential test (seeds 7, 10, 13, 32, 35, 38, 39, 42,
// 48: the generator's handler type, on the programs that never use it).
package main

import "fmt"

type handler func(int) int

func (h handler) serve(a int) int { return (h(a) + 1) % 5 }

func u1(a int) int { return (a + 1) % 4 }

func u2(a int) int { return (a + 2) % 5 }

func m(a int) int {
	f := u1
	if a > 1 {
		f = u2
	}
	cl := func(x int) int { return u1(x) + 1 }
	return f(a) + cl(a) + u1(a%2)
}

func main() {
	s := 0
	for i := 0; i < 4; i++ {
		s += m(i)
	}
	fmt.Println(s)
}
