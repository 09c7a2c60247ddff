// Command inits has what the compiler synthesizes a package initializer
// for: package variables initialized by calls and by function literals,
// and init functions.
package main

import "fmt"

var table = build(3)

var square = func(x int) int { return x * x }

var hooks = []func() string{
	func() string { return "a" },
	func() string { return "b" },
}

func build(n int) []int {
	var t []int
	for i := 0; i < n; i++ {
		t = append(t, square(i))
	}
	return t
}

func init() { table = append(table, 100) }

func init() { table = append(table, square(11)) }

func main() {
	s := 0
	for _, h := range hooks {
		s += len(h())
	}
	fmt.Println(table, s)
}
