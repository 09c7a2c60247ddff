// Package allocbench is allocation-heavy work for cmd/pmm's
// BenchmarkAllocations: functions that do little but allocate on the
// heap, each allocation a site pmm records when every allocation is
// asked for.
package allocbench

// Node is 16 bytes with a pointer: the tiny allocator does not take it.
type Node struct {
	next *Node
	v    int64
}

var (
	sinkNode  *Node
	sinkBytes []byte
	sinkGrid  [][][]int
	sinkStr   string
	sinkFn    func() int64
	// word is a string the compiler cannot fold into a constant.
	word = string([]byte("allocation"))
)

// Work makes two heap allocations, a node and a 100-byte slice, and
// little else: the worst case for recording every allocation.
func Work(i int) {
	sinkNode = &Node{v: int64(i)}
	sinkBytes = make([]byte, 100)
}

// Grid allocates a [2][3][5]int as nested slices (seed 003's Fig. 3):
// nine allocations.
func Grid() {
	g := make([][][]int, 2)
	for i := range g {
		g[i] = make([][]int, 3)
		for j := range g[i] {
			g[i][j] = make([]int, 5)
		}
	}
	sinkGrid = g
}

// List builds a list of n nodes, concatenates two strings and makes a
// closure: n + 2 allocations.
func List(n int) {
	var head *Node
	for i := 0; i < n; i++ {
		head = &Node{next: head, v: int64(i)}
	}
	sinkNode = head
	sinkStr = word + word
	sinkFn = func() int64 { return head.v }
}
