// Package db is accounted.
package db

import "example.com/accountknown/lib"

// Query calls lib.Shared, also called by app, and lib.Rec, called by db
// only.
func Query() {
	lib.Shared()
	lib.Rec(2)
}

// All is an iterator of two values.
func All(yield func(int) bool) {
	for i := range 2 {
		if !yield(i) {
			return
		}
	}
}
