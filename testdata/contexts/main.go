// Command contexts calls and allocates in several calling contexts (seed
// 003, JP's method call tree): leaf reached by two paths and through a
// recursion, JP's Fig. 3 shapes (new int[a][b][c], as nested slices)
// from two callers, a method called back through package sort, and a
// goroutine whose root is its own function. It keeps its own shadow
// stack of the module's functions (a fixed array: it allocates nothing)
// and counts, per path of that stack, the executions of leaf and Less
// and the allocations and elements it makes of each type, printed as
// "want PATH|WHAT N" lines that cmd/pmm's TestCallingContexts compares
// with pmm's answers.
package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

type cell struct {
	next *cell
	v    int64
}

var (
	xs = []int{5, 2, 8, 1, 9, 3}
	wg sync.WaitGroup

	sinkCell *cell
	sinkInts []int
	sinkGrid [][][]int
)

// The shadow stack: the module's functions the program is in, as pmm
// names them, root first.
const maxDepth = 16

type frame [maxDepth]string

var shadow struct {
	names frame
	depth int
}

func enter(name string) {
	shadow.names[shadow.depth] = name
	shadow.depth++
}

func leave() {
	shadow.depth--
	shadow.names[shadow.depth] = ""
}

// A tally is a count kept for one path of the shadow stack.
type tally struct {
	path      frame
	depth     int
	what, typ string
	n         int
}

var (
	tallies  [64]tally
	ntallies int
)

// count adds n to the tally of what (of type typ) at the current path.
func count(what, typ string, n int) {
	for i := 0; i < ntallies; i++ {
		t := &tallies[i]
		if t.depth == shadow.depth && t.path == shadow.names && t.what == what && t.typ == typ {
			t.n += n
			return
		}
	}
	tallies[ntallies] = tally{shadow.names, shadow.depth, what, typ, n}
	ntallies++
}

// alloc counts one allocation of type t with n elements.
func alloc(t string, n int) {
	count("alloc", t, 1)
	count("elem", t, n)
}

// leaf allocates a cell and a slice of n+1 ints.
//
//go:noinline
func leaf(n int) {
	enter("main.leaf")
	defer leave()
	count("exec", "", 1)
	alloc("main.cell", 1)
	sinkCell = &cell{v: int64(n)}
	alloc("[]int", n+1)
	sinkInts = make([]int, n+1)
}

//go:noinline
func viaA(k int) {
	enter("main.viaA")
	defer leave()
	for i := 0; i < k; i++ {
		leaf(i)
	}
}

//go:noinline
func viaB(k int) {
	enter("main.viaB")
	defer leave()
	for i := 0; i < k; i++ {
		leaf(i)
	}
	viaA(1)
}

// rec recurses n times, then calls leaf: a chain of n+1 rec frames.
//
//go:noinline
func rec(n int) {
	enter("main.rec")
	defer leave()
	if n == 0 {
		leaf(7)
		return
	}
	rec(n - 1)
}

// grid allocates a [a][b][c]int as nested slices: JP's new int[a][b][c],
// whose zero-length dimensions allocate nothing in Go.
//
//go:noinline
func grid(a, b, c int) [][][]int {
	enter("main.grid")
	defer leave()
	if a > 0 {
		alloc("[][][]int", a)
	}
	g := make([][][]int, a)
	for i := range g {
		g[i] = rows(b, c)
	}
	return g
}

//go:noinline
func rows(b, c int) [][]int {
	enter("main.rows")
	defer leave()
	if b > 0 {
		alloc("[][]int", b)
	}
	r := make([][]int, b)
	for j := range r {
		if c > 0 {
			alloc("[]int", c)
		}
		r[j] = make([]int, c)
	}
	return r
}

// shapes allocates the four int shapes of Fig. 3.
//
//go:noinline
func shapes() {
	enter("main.shapes")
	defer leave()
	sinkGrid = grid(2, 3, 5)
	sinkGrid = grid(2, 3, 0)
	sinkGrid = grid(2, 0, 5)
	sinkGrid = grid(0, 3, 5)
}

// byVal sorts by value; its Less is called back by package sort.
type byVal []int

func (s byVal) Len() int      { return len(s) }
func (s byVal) Swap(i, j int) { s[i], s[j] = s[j], s[i] }

//go:noinline
func (s byVal) Less(i, j int) bool {
	enter("main.byVal.Less")
	defer leave()
	count("exec", "", 1)
	return s[i] < s[j]
}

//go:noinline
func sortIt(xs []int) {
	enter("main.sortIt")
	defer leave()
	sort.Sort(byVal(xs))
}

// worker is a goroutine's root: its path starts with it, not with main's.
//
//go:noinline
func worker(wg *sync.WaitGroup) {
	defer wg.Done()
	enter("main.worker")
	defer leave()
	viaA(2)
}

func main() {
	enter("main.main")
	viaA(3)
	viaB(2)
	rec(3)
	shapes()
	sinkGrid = grid(2, 3, 5)
	sortIt(xs)

	// The goroutine starts with an empty shadow stack; main waits for it.
	saved := shadow
	shadow.names, shadow.depth = frame{}, 0
	wg.Add(1)
	go worker(&wg)
	wg.Wait()
	shadow = saved

	for _, t := range tallies[:ntallies] {
		fmt.Printf("want %s|%s:%s %d\n", strings.Join(t.path[:t.depth], ";"), t.what, t.typ, t.n)
	}
	fmt.Println(len(sinkGrid), len(sinkInts), sinkCell != nil, xs[0])
}
