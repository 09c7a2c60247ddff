// Package sub is called by main.
package sub

// Called is called by main only.
func Called() int { return 5 }

// Seq is an iterator main ranges over: an implicit call of the calls table.
func Seq(yield func(int) bool) {
	yield(1)
}
