//go:build !go1.24

package pmmrt

import "unsafe"

// weakPointers says the Go that builds the program has weak pointers:
// before Go 1.24 it has none, and liveness is not read (the answer says
// so).
const weakPointers = false

type weakRef struct{}

func makeWeak(p unsafe.Pointer) weakRef { return weakRef{} }

func weakAlive(w weakRef) bool { return false }
