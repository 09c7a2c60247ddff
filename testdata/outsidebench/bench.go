// Package outsidebench allocates at a site of its own and in the
// standard library, for cmd/pmm's BenchmarkOutsideProfile: the cost of
// the heap profile of allocations outside the module, at the runtime's
// default rate and at rate 1 (pmm run -exact-outside).
package outsidebench

import "strings"

// Node is 16 bytes with a pointer.
type Node struct {
	next *Node
	v    int64
}

var sinkNode *Node

// Work allocates a node at its own site and a string of 16 to 30 bytes
// in strings.Repeat.
//
//go:noinline
func Work(i int) string {
	sinkNode = &Node{v: int64(i)}
	return strings.Repeat("ab", 8+i%8)
}
