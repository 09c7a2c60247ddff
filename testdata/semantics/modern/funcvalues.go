package main

import "fmt"

func double(x int) int { return 2 * x }
func triple(x int) int { return 3 * x }

func apply(f func(int) int, x int) int { return f(x) }

func funcValues() {
	var op func(int) int = double
	fmt.Println(op(3))
	ops := []func(int) int{double, triple, func(x int) int { return x * x }}
	for _, o := range ops {
		fmt.Println(o(4), apply(o, 5))
	}
	defer func(x int) { fmt.Println("deferred literal", x) }(op(1))
	var nilFunc func()
	defer func() { fmt.Println("recovered nil func:", recover()) }()
	nilFunc()
}
