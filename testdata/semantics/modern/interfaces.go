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
	var st fmt.Stringer = MakePair("a", 2)
	fmt.Println(st.String())
}
