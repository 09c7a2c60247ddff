// Command unreached has dynamic calls that VTA finds no callee for: one
// in a method of a type the program never uses (it never runs), one of a
// function value that only reflection makes (it runs).
package main

import (
	"fmt"
	"reflect"
)

type handler func(int) int

// serve is never called: handler is never used.
func (h handler) serve(a int) int {
	unusedHelper := func() int { return h(a) }
	return unusedHelper() + 1
}

func double(a int) int { return 2 * a }

func triple(a int) int { return 3 * a }

// viaReflection calls a function value that reflection made.
func viaReflection(a int) int {
	f := reflect.ValueOf(triple).Interface().(func(int) int)
	return f(a)
}

func main() {
	g := double
	fmt.Println(g(1), viaReflection(2))
}
