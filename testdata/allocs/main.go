// Command allocs has one allocation site per function (two in
// Elided), each known by construction: the static package's test compares the allocations
// table with what this program measures of itself (allocations and
// bytes per call, from testing.AllocsPerRun and runtime.MemStats).
package main

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// Node is 16 bytes on 64-bit systems.
type Node struct {
	next *Node
	v    int64
}

var (
	sinkNode  *Node
	sinkNodes []*Node
	sinkInts  []int64
	sinkBytes []byte
	sinkMap   map[int]int
	sinkChan  chan int
	sinkStr   string
	sinkFn    func() int
	// prefix is a string the compiler cannot fold into a constant.
	prefix = strings.Repeat("p", 20)
)

//go:noinline
func NewHeap() { sinkNode = new(Node) }

//go:noinline
func NewStack() int64 {
	n := new(Node)
	n.v = 1
	return n.v
}

//go:noinline
func LitHeap() { sinkNode = &Node{v: 2} }

//go:noinline
func MakeHeap(n int) { sinkBytes = make([]byte, n) }

//go:noinline
func MakeConst() { sinkInts = make([]int64, 10) }

//go:noinline
func MakeStack() int64 {
	s := make([]int64, 4)
	s[1] = 3
	return s[1]
}

//go:noinline
func SliceLit() { sinkInts = []int64{1, 2, 3} }

//go:noinline
func MapMake() { sinkMap = make(map[int]int) }

//go:noinline
func ChanMake() { sinkChan = make(chan int, 1) }

//go:noinline
func Concat(a, b string) { sinkStr = a + b }

//go:noinline
func Convert(b []byte) { sinkStr = string(b) }

//go:noinline
func Closure(n int) { sinkFn = func() int { return n } }

//go:noinline
func Moved() {
	x := Node{v: 4}
	sinkNode = &x
}

//go:noinline
func AppendGrow() { sinkInts = append(sinkInts[:0:0], 1) }

//go:noinline
func Elided() { sinkNodes = []*Node{{v: 6}} }

//go:noinline
func ConvertPart(b []byte) { sinkStr = string(b[1:]) }

// Gen allocates a T: its size depends on the instantiation.
//
//go:noinline
func Gen[T any](v T) *T {
	p := new(T)
	*p = v
	return p
}

//go:noinline
func keep(xs ...int64) { sinkInts = xs }

// Variadic makes the slice of keep's arguments: 3 × 8 bytes.
//
//go:noinline
func Variadic() { keep(1, 2, 3) }

func mk() *Node { return &Node{v: 5} }

//go:noinline
func Inlined() { sinkNode = mk() }

// measure prints a function's allocations and bytes per call: the
// bytes are the least of a few measures, as the runtime (and pmm's, in
// the instrumented program) may allocate now and then in the background.
func measure(name string, f func()) {
	allocs := testing.AllocsPerRun(100, f)
	least := ^uint64(0)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const runs = 1000
		for range runs {
			f()
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/runs)
	}
	fmt.Printf("%s %g %d\n", name, allocs, least)
}

func main() {
	data := []byte("twenty-four bytes long!!")
	measure("NewHeap", NewHeap)
	measure("NewStack", func() { NewStack() })
	measure("LitHeap", LitHeap)
	measure("MakeHeap", func() { MakeHeap(100) })
	measure("MakeConst", MakeConst)
	measure("MakeStack", func() { MakeStack() })
	measure("SliceLit", SliceLit)
	measure("MapMake", MapMake)
	measure("ChanMake", ChanMake)
	measure("Concat", func() { Concat(prefix, "-twenty-four-bytes-long") })
	measure("Convert", func() { Convert(data) })
	measure("Closure", func() { Closure(7) })
	measure("Moved", Moved)
	measure("AppendGrow", AppendGrow)
	measure("Inlined", Inlined)
	measure("Elided", Elided)
	measure("ConvertPart", func() { ConvertPart(data) })
	measure("Variadic", Variadic)
	measure("Gen[...]", func() { sinkNode = Gen(Node{v: 7}) })
}
