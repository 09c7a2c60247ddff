// Command incomplete runs code pmm cannot fully instrument at some sites,
// and counts for itself what the questions ask, to compare.
package main

import (
	"fmt"
	"os"

	"example.com/incomplete/shapes"
)

// Shape is what Total sums.
type Shape interface{ Area() int }

type rect struct{ w, h int }

var rects int

func (r rect) Area() int {
	rects++
	return r.w * r.h
}

// Total calls Area through the interface: a rect's or an unexported
// square's of another package.
func Total(ss []Shape) int {
	t := 0
	for _, s := range ss {
		t += s.Area()
	}
	return t
}

var recovered, safeCalls int

// safe recovers from a panic of the function that defers it.
func safe() {
	safeCalls++
	if r := recover(); r != nil {
		recovered++
	}
}

// risky panics on even numbers; safe, deferred, recovers.
func risky(i int) {
	defer safe()
	if i%2 == 0 {
		panic("even")
	}
}

var leaves, directs int

func leaf(n int) int   { leaves++; return n + 1 }
func direct(n int) int { directs++; return n * 2 }

// apply calls a function value that may be leaf or direct.
func apply(f func(int) int, n int) int { return f(n) }

var fibs int

// Fib calls itself: the question asks for the executions no Fib calls.
func Fib(n int) int {
	fibs++
	if n < 2 {
		return n
	}
	return Fib(n-1) + Fib(n-2)
}

// crash ends the program while it runs.
func crash() {
	fmt.Println("crashes 1")
	os.Exit(3)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "crash" {
		crash()
	}
	ss := []Shape{rect{2, 3}, shapes.Square(2), rect{1, 1}, shapes.Square(3), shapes.Square(4)}
	fmt.Println("total", Total(ss))
	for i := 0; i < 5; i++ {
		risky(i)
	}
	s := 0
	for i := 0; i < 6; i++ {
		f := leaf
		if i%3 == 0 {
			f = direct
		}
		s += apply(f, i)
	}
	fmt.Println("sum", s)
	fmt.Println("fib", Fib(3)+Fib(2))
	// What the questions ask, counted by the program itself.
	fmt.Printf("areas-in-total %d\nsafes-in-risky %d\nleaves-in-apply %d\ntop-fibs %d\nriskies %d\ncrashes %d\n",
		rects+shapes.Squares, safeCalls, leaves, 2, 5, 0)
	fmt.Printf("(rect %d, square %d, recovered %d, direct %d, fib %d)\n", rects, shapes.Squares, recovered, directs, fibs)
}
