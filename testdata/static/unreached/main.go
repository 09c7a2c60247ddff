// Command unreached has a method of a type the program never uses
// (handler.serve, and the closure in it): it never runs, so its dynamic
// call, which the call graph finds no callee for, runs nothing.
package main

import "fmt"

type handler func(int) int

// serve is never called: handler is never used.
func (h handler) serve(a int) int {
	again := func() int { return h(a) }
	return again() + 1
}

func double(a int) int { return 2 * a }

// apply calls a function value that only VTA resolves.
func apply(f func(int) int, a int) int { return f(a) }

func main() {
	fmt.Println(apply(double, 1))
}
