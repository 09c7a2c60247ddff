package xtest

import (
	"slices"

	"example.com/xtest/internal/kit"
)

// clones is the only site of this file: a call of slices.Clone
// instantiated with a type of another package that the file cannot name,
// so that the site is not instrumented.
var clones = slices.Clone(kit.Items())

// Clones is how many items were cloned.
func Clones() int { return len(clones) }
