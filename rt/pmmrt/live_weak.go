//go:build go1.24

package pmmrt

import (
	"unsafe"
	"weak"
)

// weakPointers says the Go that builds the program has weak pointers.
const weakPointers = true

type weakRef = weak.Pointer[byte]

func makeWeak(p unsafe.Pointer) weakRef { return weak.Make((*byte)(p)) }

func weakAlive(w weakRef) bool { return w.Value() != nil }
