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

var (
	sinkIndex map[int64]int
	keys      = func() []int64 {
		k := make([]int64, 64)
		for i := range k {
			k[i] = int64(i) * 7919
		}
		return k
	}()
)

// Index counts 64 keys, each twice, in a new map: 128 assignments to
// its elements, of which those that grow it allocate (its header, its
// group, its first table and three tables of twice the slots: 11
// objects).
func Index() {
	m := make(map[int64]int)
	for _, k := range keys {
		m[k]++
	}
	for _, k := range keys {
		m[k] += 2
	}
	sinkIndex = m
}
