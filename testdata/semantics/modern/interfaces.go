package main

import (
	"fmt"
	"sort"
)

type Shape interface {
	Area() float64
	Name() string
}

type Rect struct{ W, H float64 }

func (r Rect) Area() float64 { return r.W * r.H }
func (r Rect) Name() string  { return "rect" }

type Circle struct{ R float64 }

func (c *Circle) Area() float64 { return 3 * c.R * c.R }
func (c *Circle) Name() string  { return "circle" }

// Square gets its methods from Rect.
type Square struct{ Rect }

func (s Square) Name() string { return "square" }

func area(s Shape) float64 { return s.Area() }

type byArea []Shape

func (b byArea) Len() int           { return len(b) }
func (b byArea) Less(i, j int) bool { return b[i].Area() < b[j].Area() }
func (b byArea) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func interfaces() {
	shapes := []Shape{Rect{2, 3}, &Circle{1}, Square{Rect{2, 2}}, &Rect{1, 1}}
	for _, s := range shapes {
		fmt.Println(s.Name(), s.Area(), area(s))
	}
	sort.Sort(byArea(shapes))
	for _, s := range shapes {
		fmt.Print(s.Name(), " ")
	}
	fmt.Println()
	spawnArea(Rect{1, 2})
	spawnArea(&Circle{1})
	var st fmt.Stringer = MakePair("a", 2)
	fmt.Println(st.String())
}

// deferNilInterface defers a method call on a nil interface: the defer
// statement itself panics.
func deferNilInterface(s Shape) {
	defer fmt.Println("the earlier deferred call runs")
	defer s.Area()
	fmt.Println("not printed: after the defer statement")
}

// spawnArea starts a goroutine on a method of an interface, which the
// go statement itself evaluates: on a nil interface, it panics in the
// goroutine of the go statement.
func spawnArea(s Shape) {
	defer fmt.Println("deferred in the goroutine of the go statement")
	go s.Area()
}
