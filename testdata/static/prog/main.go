// Program prog exercises the sites static.db records: interface and
// function-value calls, chains, external calls, closures, generics, go
// and defer. Every function calls trace.Here, so running it prints the
// runtime name of each.
package main

import (
	"iter"
	"strings"
	"sync"

	"example.com/prog/shapes"
	"example.com/prog/trace"
)

var initHook = func() { trace.Here() }

var nested = func() func() {
	trace.Here()
	return func() { trace.Here() }
}()

func init() { trace.Here(); initHook() }

func init() {
	trace.Here()
	func() { trace.Here() }()
}

// Chain1 → Chain2 → Chain3 → (*Counter).Add → Leaf.
func Chain1() { trace.Here(); Chain2() }

// Chain2 is the middle of the chain.
func Chain2() { trace.Here(); Chain3() }

// Chain3 calls a method.
func Chain3() {
	trace.Here()
	var c Counter
	c.Add(1)
}

// Counter is guarded by a mutex.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Add locks, which is an external call.
func (c *Counter) Add(d int) {
	trace.Here()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += d
	Leaf()
}

// Celsius is a number with a method on a value receiver.
type Celsius float64

// Value has a value receiver.
func (c Celsius) Value() float64 { trace.Here(); return float64(c) }

// Leaf calls the standard library.
func Leaf() string { trace.Here(); return strings.Repeat("x", 3) }

// Double is called through a function value.
func Double(x int) int { trace.Here(); return 2 * x }

// Triple is never assigned to a function value.
func Triple(x int) int { trace.Here(); return 3 * x }

// Apply calls f, a function value.
func Apply(f func(int) int, x int) int { trace.Here(); return f(x) }

// Map is generic.
func Map[X, Y any](xs []X, f func(X) Y) []Y {
	trace.Here()
	var ys []Y
	for _, x := range xs {
		ys = append(ys, f(x))
	}
	return ys
}

// Box is a generic type.
type Box[T any] struct{ v T }

// Get has a pointer receiver on a generic type.
func (b *Box[T]) Get() T { trace.Here(); return b.v }

// Closures has closures, a nested closure and a closure in a range-over-func loop.
func Closures() {
	trace.Here()
	f := func() {
		trace.Here()
		g := func() { trace.Here() }
		g()
	}
	f()
	for range Seq() {
		func() { trace.Here() }()
	}
	func() { trace.Here() }()
}

// Seq is an iterator.
func Seq() iter.Seq[int] {
	trace.Here()
	return func(yield func(int) bool) {
		trace.Here()
		yield(1)
	}
}

// Spawn starts a goroutine and waits for it.
func Spawn() {
	trace.Here()
	var wg sync.WaitGroup
	wg.Add(1)
	go worker(&wg)
	wg.Wait()
}

func worker(wg *sync.WaitGroup) { trace.Here(); wg.Done() }

func main() {
	trace.Here()
	nested()
	Chain1()
	_ = Celsius(1).Value()
	_ = Apply(Double, 2)
	_ = Map([]int{1, 2}, func(i int) string { trace.Here(); return strings.Repeat("y", i) })
	_ = (&Box[int]{v: 1}).Get()
	_ = shapes.Total([]shapes.Shape{shapes.Square{Side: 1}, &shapes.Rect{W: 1, H: 2}})
	_ = Triple(1)
	Closures()
	Spawn()
}
