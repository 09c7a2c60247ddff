// Package shapes has a shape whose type is unexported: code outside the
// package cannot name it.
package shapes

// Squares counts the calls of square.Area, for the program to compare.
var Squares int

type square struct{ side int }

func (s square) Area() int {
	Squares++
	return s.side * s.side
}

// Square returns a square of the given side, as an interface value.
func Square(side int) interface{ Area() int } { return square{side} }
