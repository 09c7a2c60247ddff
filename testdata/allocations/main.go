// Command allocations allocates on the heap in the shapes of seed 003's
// Fig. 3 (JP's multi-dimensional arrays, as nested slices, with
// zero-length dimensions) and in Go's other ways (new, &T{...}, slice
// literals, appends that grow, concatenations, conversions, closures
// that capture). It measures each function itself, with one goroutine
// and the collector off: runtime.MemStats's Mallocs and TotalAlloc
// before and after a call, printed as "want NAME VALUE" lines that
// cmd/pmm's TestAllocations compares with pmm's answers for the last
// call of each function.
package main

import (
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"example.com/allocations/geo"
)

// Node is 16 bytes on 64-bit systems, with a pointer: never the tiny
// allocator's.
type Node struct {
	next *Node
	v    int64
}

// Big is 200 bytes with a pointer: a size class of 208.
type Big struct {
	next *Big
	pad  [24]int64
}

var (
	sinkGrid  [][][]int
	sinkNodes []*Node
	sinkBig   *Big
	sinkInts  []Node
	sinkStr   string
	sinkBytes []byte
	sinkFn    func() int
	sinkEmpty *struct{}
	// text is a string the compiler cannot fold into a constant.
	text = strings.Repeat("x", 40)
)

// Grid allocates a [a][b][c]int as nested slices: JP's
// new int[a][b][c], whose zero-length dimensions allocate nothing in Go.
//
//go:noinline
func Grid(a, b, c int) [][][]int {
	g := make([][][]int, a)
	for i := range g {
		g[i] = Rows(b, c)
	}
	return g
}

// Rows allocates a [b][c]int.
//
//go:noinline
func Rows(b, c int) [][]int {
	r := make([][]int, b)
	for j := range r {
		r[j] = make([]int, c)
	}
	return r
}

// Fig3 allocates the four int shapes of Fig. 3 one after the other.
//
//go:noinline
func Fig3() {
	sinkGrid = Grid(2, 3, 5)
	sinkGrid = Grid(2, 3, 0)
	sinkGrid = Grid(2, 0, 5)
	sinkGrid = Grid(0, 3, 5)
}

// List allocates a list of n nodes, half with new and half with &T{...},
// and a slice literal of its head and tail.
//
//go:noinline
func List(n int) {
	var head *Node
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			p := new(Node)
			p.next, p.v = head, int64(i)
			head = p
		} else {
			head = &Node{next: head, v: int64(i)}
		}
	}
	sinkNodes = []*Node{head, head.next, nil}
	sinkBig = &Big{}
}

// Grow appends n nodes one by one to a nil slice: an allocation each
// time the slice grows, which the program counts itself (in the plain
// build, Go keeps the first growths on the stack).
//
//go:noinline
func Grow(n int) int {
	var s []Node
	grew := 0
	for i := 0; i < n; i++ {
		before := cap(s)
		s = append(s, Node{v: int64(i)})
		if cap(s) != before {
			grew++
		}
	}
	sinkInts = s
	return grew
}

// Strings concatenates and converts strings of 40 bytes and more.
//
//go:noinline
func Strings() {
	sinkStr = text + "-" + text
	sinkBytes = []byte(sinkStr)
	sinkStr = string(sinkBytes[:30])
}

// Closure makes a closure that captures n by value: a code pointer and
// an int, 16 bytes. Then one that captures two tallies by reference,
// which it assigns a field of (c.hits++) or calls a pointer method of
// (d.hit()), so that both move to the heap: 16 bytes each, and the
// closure 24: 4 objects, 72 bytes. (pmm sized such a closure as if it
// captured them by value until 2026-12-02: 40 bytes, 48 on the heap.)
//
//go:noinline
func Closure(n int) {
	sinkFn = func() int { return n + 1 }
	var c, d tally
	sinkFn2 = func() int {
		c.hits++
		d.hit()
		return c.hits + d.hits
	}
}

var sinkFn2 func() int

func (t *tally) hit() { t.hits++ }

// Stack allocates a node that does not outlive it: escape analysis
// keeps it on the stack, and it is no heap allocation.
//
//go:noinline
func Stack() int64 {
	p := new(Node)
	p.v = 3
	return p.v
}

// Zero allocates nothing on the heap, though both values escape: Go
// allocates no zero-size object.
//
//go:noinline
func Zero(n int) {
	sinkEmpty = new(struct{})
	sinkInts = make([]Node, n)
}

// mk is small enough for the compiler to inline: where its caller keeps
// the node, the inlined copy stays on the stack.
func mk(v int64) *Node { return &Node{v: v} }

// Inlined keeps the node mk makes: no heap allocation in the plain
// build, where mk is inlined; one in the instrumented build, where pmm
// keeps mk from being inlined.
//
//go:noinline
func Inlined() int64 {
	p := mk(4)
	return p.v
}

// Outer allocates one node itself and calls Inner, which allocates two.
//
//go:noinline
func Outer() {
	sinkNodes = append(sinkNodes[:0], &Node{v: 1})
	Inner()
}

//go:noinline
func Inner() {
	sinkBig = &Big{}
	sinkNodes[0] = &Node{v: 2}
}

var (
	sinkRest []int
	sinkAny  []any
)

// keepInts and keepAny keep their variadic slices: a call with extra
// arguments makes the slice on the heap.
//
//go:noinline
func keepInts(first int, rest ...int) { sinkRest = rest }

//go:noinline
func keepAny(xs ...any) { sinkAny = xs }

//go:noinline
func keepNodes(ns ...*Node) { sinkNodes = ns }

// Variadic makes the slices of variadic calls: three ints (24 bytes),
// two values as any (32 bytes; a small integer and a constant string
// are boxed without allocating), two ints over three lines (16), two
// nodes and their slice (16 each), two ints of a deferred call (16),
// the three results of one call as any (48; small integers are boxed
// without allocating), and three others (48, and 16 for the one string
// boxed by allocating: "" and an error are not); none where there is no
// extra argument (a nil slice) or the slice is passed on.
//
//go:noinline
func Variadic() {
	defer keepInts(0, 6, 7)
	keepInts(0, 1, 2, 3)
	keepAny(1, "two")
	keepInts(0,
		4,
		5,
	)
	keepNodes(&Node{v: 1}, &Node{v: 2})
	keepInts(0)
	keepInts(0, sinkRest...)
	keepAny(triple())
	keepAny(twoStrings())
}

// pair is 16 bytes without pointers; named holds only a string, so the
// runtime boxes it as a string; withPtr is 16 bytes with a pointer.
type (
	pair    struct{ a, b int64 }
	named   struct{ s string }
	withPtr struct {
		p *Node
		n int64
	}
	two     [2]uint8
	celsius float64
	summer  interface{ Sum() int64 }
)

func (p pair) Sum() int64 { return p.a + p.b }

func (n *Node) Next() *Node { return n.next }

var (
	sinkBox  any
	sinkSum  func() int64
	sinkNext func() *Node
)

// Boxed converts values to interfaces and makes method values, each of
// which the runtime allocates or not by the value's type and the value
// itself. With s = "abc", b non-nil and p a pair, 16 objects, 320
// bytes: the boxes of s, b, p, named{s}, a withPtr (16, 24, 16, 16, 16);
// a concatenation of 43 bytes (48) and its box (16); a slice literal
// and its box (16 and 24); keepAny's slice and the box of s in it (16
// and 16); the pair in a summer (16); a node (16) and three method
// values' closures (a pair's, 24; a *Node's, 16; the summer's, 24). The
// conversions of s[:0], a nil slice, a literal of constants, a bool and
// a byte allocate nothing.
//
//go:noinline
func Boxed(s string, b []byte, p pair) {
	var none []byte
	sinkBox = s
	sinkBox = s[:0]
	sinkBox = b
	sinkBox = none
	sinkBox = p
	sinkBox = named{s}
	sinkBox = withPtr{n: int64(len(s))}
	sinkBox = pair{1, 2}
	sinkBox = len(s) > 2
	sinkBox = s[0]
	sinkBox = s + text
	sinkBox = []int{len(s), 2}
	keepAny(s)
	sinkSum = p.Sum
	node := &Node{}
	sinkNext = node.Next
	var i summer = p
	sinkSum = i.Sum
}

// BoxedSmall converts pointer-free values under 16 bytes, which the
// tiny allocator packs (MemStats counts their objects, not their bytes
// exactly): with n = 7, five objects (n*1000, a float of 7, a uint16 of
// 700, a two, and a complex64 of 0, which, aligned to 4, the runtime
// boxes as any 8 bytes); n, a float of 0, an int32 of 7 and a [1]uint16
// of 7 box nothing.
//
//go:noinline
func BoxedSmall(n int) {
	sinkBox = n
	sinkBox = n * 1000
	sinkBox = celsius(n - 7)
	sinkBox = celsius(n)
	sinkBox = uint16(n) * 100
	sinkBox = int32(n)
	sinkBox = two{byte(n), 1}
	sinkBox = complex(float32(n-7), 0)
	sinkBox = [1]uint16{uint16(n)}
}

var (
	sinkDone  chan struct{}
	sinkInts3 chan int64
	sinkPtrs  chan *Node
	sinkErrs  chan error
)

// Channels makes channels: the runtime's header (112 bytes in Go 1.26)
// with the buffer in one object when its elements hold no pointers,
// apart when they do. Five objects, 496 bytes: an unbuffered chan
// struct{} (112), a chan int64 of 3 (136, 144 on the heap), a chan
// *Node of 2 (112 and 16) and an unbuffered chan error (112).
//
//go:noinline
func Channels() {
	sinkDone = make(chan struct{})
	sinkInts3 = make(chan int64, 3)
	sinkPtrs = make(chan *Node, 2)
	sinkErrs = make(chan error)
}

var (
	sinkMap   map[int]int
	sinkMemo  map[int]int
	sinkNames map[string]int
	sinkBigs  map[int]Big
	sinkNaNs  map[float64]int
	sinkNest  map[string]map[string]int
)

// Maps makes maps and assigns their elements, which the runtime
// allocates for as the maps grow (Go 1.26's swiss tables): a map of
// 2,000 ints (its header, first group, tables as they grow and split,
// and directories), a memo that a recursion fills (each element put
// after the calls that put others), a literal of three elements and
// one of ten, a map kept in the frame that outgrows its group, counts
// by ++ and +=, values over 128 bytes (kept apart: an object each), NaN
// keys and a map of maps. The program measures its objects and bytes.
//
//go:noinline
func Maps() {
	m := make(map[int]int)
	for i := range 2000 {
		m[i] = i
	}
	sinkMap = m
	sinkMemo = map[int]int{0: 0, 1: 1}
	fibMemo(sinkMemo, 40)
	sinkNames = map[string]int{"a": 1, "b": 2, "c": 3}
	words := []string{"d", "e", "f", "g", "h", "i", "j", "k", "l", "m"}
	for _, w := range words {
		sinkNames[w]++
		sinkNames[w] += len(w)
	}
	local := map[int]bool{1: true}
	for i := range 20 {
		local[i] = i%2 == 0
	}
	sinkBigs = map[int]Big{1: {}, 2: {}, 3: {}, 4: {}, 5: {}, 6: {}, 7: {}, 8: {}, 9: {}, 10: {}}
	sinkBigs[11] = Big{}
	sinkNaNs = make(map[float64]int, len(local))
	for i := range 12 {
		sinkNaNs[math.NaN()] = i
	}
	sinkNest = map[string]map[string]int{}
	for _, w := range words[:3] {
		sinkNest[w] = map[string]int{}
		sinkNest[w][w] = 1
	}
}

// GenericMaps fills, makes and writes maps of type parameters' types
// (generic functions over M ~map[K]V): 100 elements put one by one in a
// map of its caller's (header, group, first table, three growths), a make
// of 100 and a literal of two. The program measures its objects.
//
//go:noinline
func GenericMaps() {
	m := map[int]string{}
	sinkMapAny = m
	fill(m, sinkKeys[:], "x")
	sinkMapAny = mkmap[map[int]int](100)
	sinkMapAny = mapLit[map[string]int](1)
}

var (
	sinkMapAny any
	sinkKeys   [100]int
)

func init() {
	for i := range sinkKeys {
		sinkKeys[i] = i
	}
}

func fill[M ~map[K]V, K comparable, V any](m M, ks []K, v V) {
	for _, k := range ks {
		m[k] = v
	}
}

func mkmap[M ~map[K]V, K comparable, V any](n int) M { return make(M, n) }

func mapLit[M ~map[string]V, V any](v V) M { return M{"a": v, "b": v} }

// GenericSlices makes, writes and grows slices of type parameters'
// types (generic functions over S ~[]E): a make of 10 strings, one of a
// constant 3 ints, one of 0 (which allocates nothing), a literal of two
// pointers, a make of 100 pointers (800 bytes: a malloc header), and 100
// strings appended one by one (a growth each time the capacity is full;
// not ints, whose first slice of 8 bytes the tiny allocator would pack
// into a block MemStats counts whole). The program measures its objects.
//
//go:noinline
func GenericSlices() {
	sinkStrs = mkslice[[]string](10)
	sinkIntSlice = mk3[[]int]()
	sinkIntSlice = mkslice[[]int](0)
	sinkNodes = sliceLit[[]*Node](sinkNode)
	sinkNodes = mkslice[[]*Node](100)
	sinkStrs = appendAll[[]string](100, "s")
}

var sinkIntSlice []int

func mkslice[S ~[]E, E any](n int) S { return make(S, n) }

func mk3[S ~[]int]() S { return make(S, 3) }

func sliceLit[S ~[]E, E any](v E) S { return S{v, v} }

func appendAll[S ~[]E, E any](n int, v E) S {
	var s S
	for range n {
		s = append(s, v)
	}
	return s
}

// fibMemo is the n-th Fibonacci number, memoized in memo.
func fibMemo(memo map[int]int, n int) int {
	if v, ok := memo[n]; ok {
		return v
	}
	memo[n] = fibMemo(memo, n-1) + fibMemo(memo, n-2)
	return memo[n]
}

var (
	sinkNode  *Node
	sinkRefs  [2]**Node
	sinkRef   **Node
	sinkIndex *int
)

// Moved declares variables whose addresses escape, so that escape
// analysis moves them to the heap: a node (16 bytes), a Big (200 bytes,
// 208 on the heap), a parameter of moveParam (16), the variable of each
// of two iterations of a range loop and of a select's case (8 each),
// three nodes two if statements' inits declare (16 each), a node a
// switch's init declares (16), a pointer a type switch's init
// declares (8) and a node a labeled switch's init declares (16): twelve
// objects, 352 bytes.
//
//go:noinline
func Moved(ch chan *Node) {
	x := Node{v: 1}
	sinkNode = &x
	var b Big
	sinkBig = &b
	moveParam(Node{v: 2})
	for i, v := range sinkNodes[:2] {
		sinkRefs[i] = &v
	}
	ch <- sinkNode
	select {
	case v := <-ch:
		sinkRef = &v
	}
	if y := *sinkNode; y.v >= 0 {
		sinkNode = &y
	}
	if y, z := *sinkNode, *sinkNode; y.v >= z.v {
		sinkNodes[0], sinkNodes[1] = &y, &z
	}
	switch y := *sinkNode; y.v {
	case -1:
	default:
		sinkNode = &y
	}
	switch p := sinkNode; sinkBox.(type) {
	default:
		sinkRef = &p
	}
pick:
	switch y := *sinkNode; y.v {
	case -1:
	default:
		sinkNode = &y
		break pick
	}
}

//go:noinline
func moveParam(n Node) { sinkNode = &n }

// ForInit's i is moved to the heap and, since Go 1.22, copied to a new
// variable before each post statement: three objects of 8 bytes for two
// iterations (the tiny allocator's: MemStats counts their objects, not
// their bytes exactly).
//
// Without a condition, the same: j's loop breaks after one post
// statement (2 objects), firstOver(1)'s k returns after two (3 objects,
// the loop a terminating statement): 8 objects in all.
//
//go:noinline
func ForInit() {
	for i := 0; i < 2; i++ {
		sinkIndex = &i
	}
	for j := 0; ; j++ {
		sinkIndex = &j
		if j == 1 {
			break
		}
	}
	firstOver(1)
}

//go:noinline
func firstOver(n int) int {
	for k := 0; ; k++ {
		sinkIndex = &k
		if k > n {
			return k
		}
	}
}

// list is a generic list: its nodes' size and pointers depend on T.
type list[T any] struct{ head *item[T] }

type item[T any] struct {
	v    T
	next *item[T]
}

//go:noinline
func (l *list[T]) push(v T) { l.head = &item[T]{v: v, next: l.head} }

//go:noinline
func collect[T any](n int, v T) []T {
	out := make([]T, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, v)
	}
	return out
}

//go:noinline
func boxed[T any](v T) *T {
	p := new(T)
	*p = v
	return p
}

//go:noinline
func keepBoth[T any](x T, n int) {
	k := n
	sinkFn = func() int { _ = x; return k }
}

// tally is 16 bytes without pointers: the heap's, not the tiny
// allocator's.
type tally struct{ hits, misses int }

//go:noinline
func countBy[T comparable](xs []T, v T) {
	var c tally
	sinkFn = func() int {
		for _, x := range xs {
			if x == v {
				c.hits++
			}
		}
		return c.hits
	}
}

// GenericClosure makes closures in generic functions, which capture the
// instantiation's dictionary last: keepBoth[int64]'s (its code pointer,
// x, k, the dictionary: 32 bytes), keepBoth[string]'s (40, 48 on the
// heap), and countBy's, which capture xs, v and c, which they assign,
// by reference (c then moved to the heap: 16 bytes), int64's (56, 64)
// and string's (64): 6 objects, 240 bytes.
//
//go:noinline
func GenericClosure() {
	keepBoth(int64(1), 2)
	keepBoth("ab", 3)
	countBy(sinkInts64, 7)
	countBy(sinkStrs, "s")
}

//go:noinline
func boxAny[T any](v T) { sinkBox = v }

// GenericBoxes converts values of a type parameter's type to
// interfaces: each instantiation's type decides whether the runtime
// boxes it. A pair (16 bytes), a string's header (16) and a slice's
// (24) are boxed: 3 objects, 56 bytes. A pointer, a zero-size value, a
// byte, an int under 256, "" and a nil slice are not.
//
//go:noinline
func GenericBoxes() {
	boxAny(pair{1, 2})
	boxAny(text)
	boxAny(sinkInts64)
	boxAny(&text)
	boxAny(struct{}{})
	boxAny(byte(200))
	boxAny(7)
	boxAny("")
	boxAny([]int64(nil))
}

var (
	sinkInts64 []int64
	sinkStrs   []string
	sinkBig2   *Big
	sinkLists  [2]any
)

// Generic allocates in generic functions, each instantiated twice: the
// items of a list of int64 (three of 16 bytes) and of a list of Big (two
// of 200, 208 on the heap), the two lists (moved to the heap: 8 bytes
// each), the slices collect makes of three int64 and two strings (24
// and 32 bytes; its appends do not grow them), and boxed's new(Big):
// 10 objects, 744 bytes.
//
//go:noinline
func Generic() {
	var li list[int64]
	li.push(1)
	li.push(2)
	li.push(3)
	var lb list[Big]
	lb.push(Big{})
	lb.push(Big{})
	sinkLists = [2]any{&li, &lb}
	sinkInts64 = collect(3, int64(7))
	sinkStrs = collect(2, "s")
	sinkBig2 = boxed(Big{})
}

// Results passes a call's three results to keepInts: a slice of two,
// which pmm does not record (the answer says so).
//
//go:noinline
func Results() { keepInts(triple()) }

func triple() (int, int, int) { return 1, 2, 3 }

var twoS = [2]string{"a", ""}

// twoStrings' first result is boxed by allocating, not its second, "".
//
//go:noinline
func twoStrings() (string, string, error) { return twoS[0], twoS[1], nil }

// count is the allocations and elements of one type of slice.
type count struct{ allocs, elements int }

// fig3 prints, for the shapes Fig3 allocates, the heap allocations and
// elements of each type of slice: JP's Fig. 3 counts in Go, where a
// slice of no elements allocates nothing.
func fig3() {
	byType := map[string]*count{"[][][]int": {}, "[][]int": {}, "[]int": {}}
	add := func(t string, n, each int) {
		if each > 0 {
			byType[t].allocs += n
			byType[t].elements += n * each
		}
	}
	for _, d := range [][3]int{{2, 3, 5}, {2, 3, 0}, {2, 0, 5}, {0, 3, 5}} {
		a, b, c := d[0], d[1], d[2]
		add("[][][]int", 1, a)
		add("[][]int", a, b)
		add("[]int", a*b, c)
	}
	for _, t := range []string{"[][][]int", "[][]int", "[]int"} {
		fmt.Printf("want Fig3_%s %d:%d\n", t, byType[t].allocs, byType[t].elements)
	}
}

var (
	rangeNodes = make([]*Node, 8)
	rangeBoxes = make([]any, 8)
)

// RangeFunc allocates in the body of a range over a function whose
// iterator Go inlines, slices.All: the body is inlined into the loop
// and has no compiled copy of its own, and the compiler reports its
// allocations at the for statement. Per element: a variable moved to
// the heap, a &Node{...} and a [2]int64 boxed into an interface.
//
//go:noinline
func RangeFunc(xs []int) {
	for i, v := range slices.All(xs) {
		var n Node
		n.v = int64(v)
		rangeNodes[i] = &Node{next: &n}
		pair := [2]int64{int64(v), int64(i)}
		rangeBoxes[i] = pair
	}
}

type ints []int

var (
	sinkIntsPtr  *ints
	sinkSlicePtr *[]string
	sinkMapPtr   *map[string]int
	sinkEmptyPtr *[]int
)

// AddrLiterals takes the address of slice and map literals: each is
// two sites, the header the pointer points to and the literal's own
// array or map (an empty slice has none). 8 objects: the headers of 24,
// 24 and 24 bytes, the pointer's cell of 8, the arrays of 32 and 32
// bytes, the map's header (48) and group (208).
//
//go:noinline
func AddrLiterals() {
	sinkIntsPtr = &ints{1, 2, 3, 4}
	sinkSlicePtr = &([]string{"a", "b"})
	sinkMapPtr = &map[string]int{"a": 1}
	sinkEmptyPtr = &[]int{}
}

var sinkPoints []*geo.Point

// ElidedOther makes a slice of pointers to another package's type, its
// elements' &geo.Point{...} elided: 3 objects, the array of 16 bytes
// and two points of 16.
//
//go:noinline
func ElidedOther() {
	sinkPoints = []*geo.Point{{X: 1, Y: 2}, {X: 3, Y: 4}}
}

// measure prints the heap objects and bytes one call of f allocates:
// the least of five calls, since pmm's runtime, when instrumented,
// allocates now and then on a goroutine of its own (a log segment made
// ready in advance), which MemStats counts too; f allocates the same
// every call.
func measure(name string, f func()) {
	var before, after runtime.MemStats
	objects, bytes := ^uint64(0), ^uint64(0)
	for i := 0; i < 5; i++ {
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		objects = min(objects, after.Mallocs-before.Mallocs)
		bytes = min(bytes, after.TotalAlloc-before.TotalAlloc)
	}
	fmt.Printf("want %s_objects %d\n", name, objects)
	fmt.Printf("want %s_bytes %d\n", name, bytes)
}

func main() {
	debug.SetGCPercent(-1)
	// The first calls warm up what the runtime allocates once.
	Fig3()
	List(6)
	Grow(100)
	Strings()
	Closure(1)
	Outer()
	Variadic()
	Boxed("abc", sinkBytes, pair{1, 2})
	BoxedSmall(7)
	Channels()
	Maps()
	GenericMaps()
	GenericSlices()
	Generic()
	GenericClosure()
	GenericBoxes()
	Results()
	ForInit()
	RangeFunc([]int{1, 2, 3})
	AddrLiterals()
	ElidedOther()
	ch := make(chan *Node, 1)
	sinkNodes = []*Node{{}, {}}
	Moved(ch)
	sinkNodes = make([]*Node, 0, 4)
	measure("Fig3", Fig3)
	fig3()
	measure("List", func() { List(6) })
	grew := 0
	measure("Grow", func() { grew = Grow(100) })
	fmt.Printf("want Grow_grew %d\n", grew)
	measure("Strings", Strings)
	measure("Closure", func() { Closure(7) })
	measure("Stack", func() { Stack() })
	measure("Inlined", func() { Inlined() })
	measure("Zero", func() { Zero(0) })
	measure("Variadic", Variadic)
	bs := []byte("xyz")
	measure("Boxed", func() { Boxed("abc", bs, pair{1, 2}) })
	measure("BoxedSmall", func() { BoxedSmall(7) })
	measure("Channels", Channels)
	measure("Maps", Maps)
	measure("GenericMaps", GenericMaps)
	measure("GenericSlices", GenericSlices)
	measure("ForInit", ForInit)
	rangeXs := []int{1, 2, 3}
	measure("RangeFunc", func() { RangeFunc(rangeXs) })
	measure("AddrLiterals", AddrLiterals)
	measure("ElidedOther", ElidedOther)
	measure("Generic", Generic)
	measure("GenericClosure", GenericClosure)
	measure("GenericBoxes", GenericBoxes)
	sinkNodes = []*Node{{}, {}}
	measure("Moved", func() { Moved(ch) })
	measure("Outer", Outer)
	measure("Inner", Inner)
	fmt.Println(sinkFn(), len(sinkGrid), len(sinkInts), len(sinkStr), len(sinkBytes), sinkBig != nil)
}
