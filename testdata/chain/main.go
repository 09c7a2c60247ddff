// Program chain makes a chain of direct calls, main → Both → Foo, in
// which Both is the callee of one relation and the caller of another.
package main

import "fmt"

// Both calls Foo when c is positive.
func Both(c int) int {
	if c > 0 {
		return Foo(c) + 1
	}
	return 0
}

// Foo does a little work.
func Foo(c int) int { return c * c }

func main() {
	t := 0
	for i := -2; i <= 4; i++ {
		t += Both(i)
	}
	fmt.Println(t)
}
