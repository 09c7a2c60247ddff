// Package gen has a generic function whose constraint is another
// package's (cmp.Ordered): a question that only counts its executions
// keeps them in a cell, with no helper naming the constraint.
package gen

import "cmp"

// Max returns the larger of a and b.
func Max[T cmp.Ordered](a, b T) T {
	if a > b {
		return a
	}
	return b
}
