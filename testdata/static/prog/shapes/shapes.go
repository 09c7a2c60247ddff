// Package shapes has an interface with two implementations that flow into
// Total, and one (Hexagon) that never does.
package shapes

import "example.com/prog/trace"

// Shape has an area.
type Shape interface{ Area() float64 }

// Square has a value receiver.
type Square struct{ Side float64 }

// Area of a square.
func (s Square) Area() float64 { trace.Here(); return s.Side * s.Side }

// Rect has a pointer receiver.
type Rect struct{ W, H float64 }

// Area of a rectangle.
func (r *Rect) Area() float64 { trace.Here(); return r.W * r.H }

// Hexagon implements Shape but is never stored in one.
type Hexagon struct{ Side float64 }

// Area of a hexagon.
func (h Hexagon) Area() float64 { trace.Here(); return 2.6 * h.Side * h.Side }

// Total sums the areas: the call of Area is an interface call.
func Total(shapes []Shape) float64 {
	trace.Here()
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}
