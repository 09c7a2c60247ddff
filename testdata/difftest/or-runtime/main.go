// Class: generated code that does not compile. In --mode runtime, a
// derived event defined with or, (or (function-execution x "main.A")
// (function-execution x "main.B")), used by a question: the helpers
// declare the same state field twice ("p0_x redeclared"). Found by the
// differential test (PMM_DIFFTEST, every seed with an or question).
package main

import "fmt"

func A(n int) int { return n + 1 }

func B(n int) int { return n * 2 }

func main() {
	s := 0
	for i := 0; i < 3; i++ {
		s += A(i) + B(i%2)
	}
	fmt.Println(s)
}
