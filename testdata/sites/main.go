// Program sites exercises static approximation: calls through interfaces
// and function values, chains of calls, external functions, closures,
// generic functions and go statements.
package main

import (
	"fmt"
	"strings"
	"sync"
)

// Shape is called through an interface in total.
type Shape interface{ Area() float64 }

// Square has a value receiver.
type Square struct{ side float64 }

// Area of a square.
func (q Square) Area() float64 { return q.side * q.side }

// Circle has a pointer receiver.
type Circle struct{ r float64 }

// Area of a circle.
func (c *Circle) Area() float64 { return 3 * c.r * c.r }

// Unused implements Shape but never flows into one.
type Unused struct{}

// Area of nothing.
func (Unused) Area() float64 { return 0 }

func total(shapes []Shape) float64 {
	t := 0.0
	for _, s := range shapes {
		t += s.Area()
	}
	return t
}

func apply(f func(int) int, x int) int { return f(x) }
func double(x int) int                 { return 2 * x }
func square(x int) int                 { return x * x }
func negate(x int) int                 { return -x }

// A chain top → middle → bottom → (*counter).leaf; other calls leaf too.
func top() int    { return middle() }
func middle() int { return bottom() }
func bottom() int { var c counter; return c.leaf() }
func other() int  { var c counter; return c.leaf() }

type counter struct{ n int }

func (c *counter) leaf() int { c.n++; return c.n }

var mu sync.Mutex

func locked() int {
	mu.Lock()
	defer mu.Unlock()
	return 1
}

func repeat() string { return strings.Repeat("ab", 3) }

// Map is generic.
func Map[T any](xs []T, f func(T) T) []T {
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func withClosure() int {
	inc := func(x int) int { return x + 1 }
	return inc(1)
}

func spawner() {
	done := make(chan bool)
	go worker(done)
	<-done
}

func worker(done chan bool) { done <- true }

func main() {
	fmt.Println(total([]Shape{Square{2}, &Circle{1}}))
	fmt.Println(apply(double, 3), apply(square, 3), negate(1))
	fmt.Println(top(), other(), locked(), repeat())
	fmt.Println(Map([]int{1, 2}, double), withClosure())
	spawner()
}
