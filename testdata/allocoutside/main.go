// Command allocoutside allocates on the heap at sites of its own code
// and in the standard library, for cmd/pmm's TestAllocationsOutside:
// Pure allocates only at its own sites (and counts with sync/atomic,
// which never allocates), Mixed also in strings.Repeat, which pmm does
// not record, and Tables makes a map, whose objects pmm reads from it.
// It measures each function itself, with one goroutine and the
// collector off: runtime.MemStats's Mallocs around a call, printed as
// "want NAME VALUE" lines (and TotalAlloc, for strings.Repeat). Then Big
// allocates four strings of 4 MiB in strings.Repeat, which the runtime's
// default heap profile samples nearly surely; with the argument "exit",
// main ends by os.Exit.
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
)

// Node is 16 bytes with a pointer: never the tiny allocator's.
type Node struct {
	next *Node
	v    int64
}

var (
	made      atomic.Int64
	sinkNode  *Node
	sinkInts  []int
	sinkStr   string
	sinkTable map[int]int
)

// Pure allocates a list of n nodes, at its callee's site.
//
//go:noinline
func Pure(n int) *Node {
	var head *Node
	for i := range n {
		head = node(head, int64(i))
		made.Add(1)
	}
	return head
}

//go:noinline
func node(next *Node, v int64) *Node { return &Node{next: next, v: v} }

// Mixed allocates a slice at its own site and a string in
// strings.Repeat.
//
//go:noinline
func Mixed(n int) string {
	sinkInts = make([]int, n)
	return strings.Repeat("ab", n)
}

// Big allocates n strings of 4 MiB in strings.Repeat.
//
//go:noinline
func Big(n int) int {
	total := 0
	for range n {
		total += len(strings.Repeat("x", 4<<20))
	}
	return total
}

// Tables makes a map of room for n entries.
//
//go:noinline
func Tables(n int) map[int]int { return make(map[int]int, n) }

// measure returns the heap objects and bytes one call of f allocates:
// the least of five calls, since pmm's runtime, when instrumented,
// allocates now and then on a goroutine of its own. It prints nothing:
// what fmt allocates depends on which P its goroutine runs on (a
// sync.Pool's cache per P), and measure's own allocations outside the
// module must be f's alone.
func measure(f func()) (objects, bytes uint64) {
	var before, after runtime.MemStats
	objects, bytes = ^uint64(0), ^uint64(0)
	for range rounds {
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		objects = min(objects, after.Mallocs-before.Mallocs)
		bytes = min(bytes, after.TotalAlloc-before.TotalAlloc)
	}
	return objects, bytes
}

// report prints what measure measured of f as "want NAME_objects" and
// "want NAME_bytes" lines.
func report(name string, f func()) {
	objects, bytes := measure(f)
	fmt.Printf("want %s_objects %d\n", name, objects)
	fmt.Printf("want %s_bytes %d\n", name, bytes)
}

// rounds is how many times measure calls a function.
const rounds = 5

func main() {
	debug.SetGCPercent(-1)
	report("Pure", func() { sinkNode = Pure(5) })
	report("Mixed", func() { sinkStr = Mixed(20) })
	report("Repeat", func() { sinkStr = strings.Repeat("ab", 20) })
	report("Tables", func() { sinkTable = Tables(100) })
	fmt.Printf("want rounds %d\n", rounds)
	fmt.Println(made.Load(), len(sinkInts), len(sinkStr), len(sinkTable), sinkNode != nil, Big(4))
	if len(os.Args) > 1 && os.Args[1] == "exit" {
		os.Exit(0)
	}
}
