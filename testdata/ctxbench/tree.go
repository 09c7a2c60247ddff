// Package ctxbench is a small call tree that allocates at its leaves,
// for cmd/pmm's BenchmarkCallingContexts: Run calls A and B, B calls A,
// and A and B call Leaf, which allocates a node: per Run, 9 executions
// in 5 calling contexts of Leaf, and 5 allocations.
package ctxbench

type node struct {
	next *node
	v    int
}

var sink *node

//go:noinline
func Leaf(i int) { sink = &node{v: i} }

//go:noinline
func A(i int) {
	Leaf(i)
	Leaf(i + 1)
}

//go:noinline
func B(i int) {
	A(i)
	Leaf(i)
}

//go:noinline
func Run(i int) {
	A(i)
	B(i)
}
