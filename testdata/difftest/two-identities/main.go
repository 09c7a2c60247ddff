// Class: one execution, two identities (issue 10, class 3). The
// executions of L not called by M: L is recorded at its definition and,
// as the callee of (calls x y), at M's call sites, under other ids, so
// under not every execution of L looks uncalled. Likewise the executions
// of Fib not called by a Fib: only the root, Fib(4), of its 9. Found by
// the differential test (the "not called by" template).
package main

import "fmt"

func L(a int) int { return a + 1 }

func M(a int) int { return L(a) + L(a+1) }

func Fib(n int) int {
	if n < 2 {
		return n
	}
	return Fib(n-1) + Fib(n-2)
}

func main() {
	s := 0
	for i := 0; i < 3; i++ {
		s += M(i) + L(i)
	}
	fmt.Println(s + Fib(4))
}
