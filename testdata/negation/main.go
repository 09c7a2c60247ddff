// Program negation calls F recursively: F(n) calls F(n-1) down to F(0).
// The questions ask for executions of F with a given parameter that call
// no other execution of F, so the executions of F with other parameters
// must be recorded too, for the negation.
package main

import "fmt"

// F counts down to 0.
func F(n int) int {
	if n > 0 {
		return F(n-1) + 1
	}
	return 0
}

func main() {
	fmt.Println(F(2), F(0), F(1))
}
