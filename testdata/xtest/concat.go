package xtest

import (
	"io"
	"slices"
)

// Readers is a named slice of another package's type. The call of
// slices.Concat below is instantiated with [Readers, io.Reader]: this
// file names io.Reader in the instantiation, the helpers do not (its
// wrapper names Readers only), and must not import io.
type Readers []io.Reader

// Concat concatenates.
func Concat(a, b Readers) Readers { return slices.Concat(a, b) }
