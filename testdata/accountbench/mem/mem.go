// Package mem is the agent of cmd/pmm's BenchmarkAccounts: it does
// little but allocate, on behalf of its caller.
package mem

// Node is 16 bytes with a pointer: the tiny allocator does not take it.
type Node struct {
	next *Node
	v    int64
}

var (
	sinkNode  *Node
	sinkBytes []byte
)

// Alloc makes two heap allocations, a node and a 100-byte slice.
func Alloc(i int) {
	sinkNode = &Node{v: int64(i)}
	sinkBytes = make([]byte, 100)
}
