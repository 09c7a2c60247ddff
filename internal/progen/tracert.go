package progen

// traceRuntime is the file added to the traced twin: a hand-written
// tracer, independent of pmm, that writes the internal/reftrace format
// (JSON lines) to the file named by $PMM_REFTRACE. Each goroutine has its
// own shadow stack of the executions it is running, found by the
// goroutine's id (read from runtime.Stack: slow, and simple enough to be
// obviously right); the generated code pushes at each begin and pops in
// a deferred call registered first, so that it runs after the function's
// own deferred calls.
const traceRuntime = `package main

import (
	"bufio"
	"encoding/json"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

type trRecord struct {
	Kind      string ` + "`json:\"k\"`" + `
	ID        int64  ` + "`json:\"id\"`" + `
	Seq       int64  ` + "`json:\"seq\"`" + `
	Func      string ` + "`json:\"fn,omitempty\"`" + `
	Caller    int64  ` + "`json:\"caller,omitempty\"`" + `
	Spawner   int64  ` + "`json:\"spawner,omitempty\"`" + `
	Goroutine int64  ` + "`json:\"g,omitempty\"`" + `
	Params    []any  ` + "`json:\"params,omitempty\"`" + `
	Label     string ` + "`json:\"label,omitempty\"`" + `
	In        int64  ` + "`json:\"in,omitempty\"`" + `
	Iter      bool   ` + "`json:\"iter,omitempty\"`" + `
	Index     int64  ` + "`json:\"index,omitempty\"`" + `
	Op        string ` + "`json:\"op,omitempty\"`" + `
	Operand   string ` + "`json:\"operand,omitempty\"`" + `
	Results   []any  ` + "`json:\"results,omitempty\"`" + `
	Panicked  bool   ` + "`json:\"panicked,omitempty\"`" + `
	Case      *int64 ` + "`json:\"case,omitempty\"`" + `
	Blocked   *bool  ` + "`json:\"blocked,omitempty\"`" + `
	Go        bool   ` + "`json:\"go,omitempty\"`" + `
	Alloc     string ` + "`json:\"alloc,omitempty\"`" + `
	Type      string ` + "`json:\"type,omitempty\"`" + `
	Elements  int64  ` + "`json:\"elems,omitempty\"`" + `
	Bytes     int64  ` + "`json:\"bytes,omitempty\"`" + `
	HeapBytes int64  ` + "`json:\"heap,omitempty\"`" + `
	Walks     []trWalk ` + "`json:\"walks,omitempty\"`" + `
	Path      string ` + "`json:\"path,omitempty\"`" + `
}

// trWalk is a heap walk at a begin or end point (internal/reftrace's
// Walk), which the program computes by construction (trWalks).
type trWalk struct {
	Expr string ` + "`json:\"expr\"`" + `
	Type string ` + "`json:\"type\"`" + `
	N    int64  ` + "`json:\"n\"`" + `
	B    int64  ` + "`json:\"b\"`" + `
}

// trG is one goroutine's shadow stack.
type trG struct {
	num     int64
	spawner int64 // for the first execution of a spawned goroutine
	stack   []int64
	// walks are, for each execution of stack, its walks at its begin,
	// which are those of its allocations too (wls and a do not change
	// while it runs).
	walks [][]trWalk
}

var (
	trSeq, trIDs, trGoroutines atomic.Int64
	trMu                       sync.Mutex
	trByGoid                   = map[int64]*trG{}
	trOut                      *bufio.Writer
	trFile                     *os.File
	trClosed                   bool
)

func init() {
	f, err := os.Create(os.Getenv("PMM_REFTRACE"))
	if err != nil {
		panic(err)
	}
	trFile, trOut = f, bufio.NewWriter(f)
	// The import path of package main, whose functions the runtime
	// names main.F: the accounts' patterns match it.
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		trWrite(&trRecord{Kind: "main", Path: bi.Path})
	}
}

func trGoid() int64 {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	s = s[len("goroutine "):]
	i := 0
	for s[i] >= '0' && s[i] <= '9' {
		i++
	}
	id, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		panic(err)
	}
	return id
}

// trState is the calling goroutine's stack, made at its first execution.
func trState() *trG {
	id := trGoid()
	trMu.Lock()
	defer trMu.Unlock()
	g := trByGoid[id]
	if g == nil {
		g = &trG{num: trGoroutines.Add(1)}
		trByGoid[id] = g
	}
	return g
}

func trWrite(r *trRecord) {
	data, err := json.Marshal(r)
	if err != nil {
		panic(err)
	}
	trMu.Lock()
	defer trMu.Unlock()
	if trClosed {
		return
	}
	trOut.Write(data)
	trOut.WriteByte('\n')
}

// trCur is the execution running on the calling goroutine: the spawner of
// the goroutines its go statements start.
func trCur() int64 {
	g := trState()
	return g.stack[len(g.stack)-1]
}

// trGB begins, at a go statement of the execution running on the calling
// goroutine, a goroutine that starts fn: its id and begin point are taken
// here, and the new goroutine records it (trGA).
func trGB(fn string) *trRecord {
	r := &trRecord{Kind: "begin", ID: trIDs.Add(1), Func: fn, Go: true, Spawner: trCur()}
	r.Seq = trSeq.Add(1)
	return r
}

// trGA, on the goroutine r began, records r there and starts the
// goroutine's shadow stack, whose first execution its spawner spawned;
// it returns r's id, for trGE.
func trGA(r *trRecord) int64 {
	g := trState()
	g.spawner = r.Spawner
	r.Goroutine = g.num
	trWrite(r)
	return r.ID
}

// trGE ends the goroutine id, once the function it started has ended.
func trGE(id int64) {
	trWrite(&trRecord{Kind: "end", ID: id, Seq: trSeq.Add(1)})
}

// trCheckNames, set by $PMM_REFTRACE_CHECKNAMES in a build without
// inlining, checks each function's name against the runtime's.
var trCheckNames = os.Getenv("PMM_REFTRACE_CHECKNAMES") != ""

// trCheckName checks, with trCheckNames, that the function that called
// the tracer's caller is named fn; else the process exits, with status 3
// (a panic might be recovered by the program).
func trCheckName(fn string) {
	if trCheckNames {
		pc, _, _, _ := runtime.Caller(2)
		if got := runtime.FuncForPC(pc).Name(); got != fn {
			os.Stderr.WriteString("trace: function " + got + " is traced as " + fn + "\n")
			os.Exit(3)
		}
	}
}

func trBegin(fn string, params ...any) (int64, bool) {
	trCheckName(fn)
	return trBeginRec(nil, fn, params)
}

// trBeginW is trBegin with the heap walks at the begin point.
func trBeginW(walks []trWalk, fn string, params ...any) (int64, bool) {
	trCheckName(fn)
	return trBeginRec(walks, fn, params)
}

// trBeginRec records a begin: trBegin's and trBeginW's.
func trBeginRec(walks []trWalk, fn string, params []any) (int64, bool) {
	g := trState()
	r := &trRecord{Kind: "begin", ID: trIDs.Add(1), Func: fn, Goroutine: g.num, Params: params, Walks: walks}
	if n := len(g.stack); n > 0 {
		r.Caller = g.stack[n-1]
	} else {
		r.Spawner = g.spawner
	}
	g.stack, g.walks = append(g.stack, r.ID), append(g.walks, walks)
	r.Seq = trSeq.Add(1)
	trWrite(r)
	return r.ID, false
}

// trRes reads a result when the execution ends.
func trRes[T any](p *T) func() any { return func() any { return *p } }

// trEnd records the end of execution id: ok is set by the function's
// returns (and by its deferred closure that recovers), results read its
// results.
func trEnd(id int64, ok *bool, results ...func() any) { trEndW(nil, id, ok, results...) }

// trEndW is trEnd with the heap walks at the end point.
func trEndW(walks []trWalk, id int64, ok *bool, results ...func() any) {
	r := &trRecord{Kind: "end", ID: id, Seq: trSeq.Add(1), Panicked: !*ok, Walks: walks}
	if *ok {
		for _, res := range results {
			r.Results = append(r.Results, res())
		}
	}
	g := trState()
	g.stack, g.walks = g.stack[:len(g.stack)-1], g.walks[:len(g.walks)-1]
	trWrite(r)
}

// trRB begins an execution of the region labeled label of fn, in the
// execution of fn running on the calling goroutine, and returns its id.
func trRB(fn, label string) int64 {
	trCheckName(fn)
	g := trState()
	r := &trRecord{Kind: "begin", ID: trIDs.Add(1), Func: fn, Label: label, In: g.stack[len(g.stack)-1], Goroutine: g.num}
	r.Seq = trSeq.Add(1)
	trWrite(r)
	return r.ID
}

// trIB begins an iteration of the loop region labeled label of fn, in the
// execution of fn running on the calling goroutine, numbered *n, which it
// increments; it returns its id.
func trIB(fn, label string, n *int64) int64 {
	trCheckName(fn)
	g := trState()
	r := &trRecord{Kind: "begin", ID: trIDs.Add(1), Func: fn, Label: label, Iter: true, Index: *n, In: g.stack[len(g.stack)-1], Goroutine: g.num}
	*n++
	r.Seq = trSeq.Add(1)
	trWrite(r)
	return r.ID
}

// trBB begins a blocking operation of kind op on operand in fn, in the
// execution of fn running on the calling goroutine, and returns its id.
func trBB(fn, op, operand string) int64 {
	trCheckName(fn)
	g := trState()
	r := &trRecord{Kind: "begin", ID: trIDs.Add(1), Func: fn, Op: op, Operand: operand, In: g.stack[len(g.stack)-1], Goroutine: g.num}
	r.Seq = trSeq.Add(1)
	trWrite(r)
	return r.ID
}

// trBE ends the blocking operation id, a select by its case c (-1 for
// another kind).
func trBE(id, c int64) {
	r := &trRecord{Kind: "end", ID: id, Seq: trSeq.Add(1)}
	if c >= 0 {
		r.Case = &c
	}
	trWrite(r)
}

// trBK ends the blocking operation id, which the twin tried without
// waiting first: blocked says that attempt failed, so it waited.
func trBK(id int64, blocked bool) {
	trWrite(&trRecord{Kind: "end", ID: id, Seq: trSeq.Add(1), Blocked: &blocked})
}

// trWaits says that blocking operation id could not proceed at once:
// its goroutine waits. Written before it waits, so that an operation
// that never proceeds (its goroutine blocked when the run ended) is
// known to have blocked, as pmm's sites know it.
func trWaits(id int64, blocked *bool) {
	*blocked = true
	trWrite(&trRecord{Kind: "blocked", ID: id, Seq: trSeq.Add(1)})
}

// trSend sends v on c, trying first without waiting; *blocked says
// whether blocking operation id had to wait.
func trSend[T any](c chan T, v T, id int64, blocked *bool) {
	select {
	case c <- v:
		return
	default:
	}
	trWaits(id, blocked)
	c <- v
}

// trRecv receives from c, trying first without waiting; *blocked says
// whether it had to wait.
func trRecv[T any](c chan T, id int64, blocked *bool) T {
	v, _ := trRecv2(c, id, blocked)
	return v
}

// trRecv2 is trRecv with the comma-ok result.
func trRecv2[T any](c chan T, id int64, blocked *bool) (T, bool) {
	select {
	case v, ok := <-c:
		return v, ok
	default:
	}
	trWaits(id, blocked)
	v, ok := <-c
	return v, ok
}

// trLock locks m, trying first without waiting; *blocked says whether
// it had to wait.
func trLock(m interface {
	TryLock() bool
	Lock()
}, id int64, blocked *bool) {
	if !m.TryLock() {
		trWaits(id, blocked)
		m.Lock()
	}
}

// trRLock read-locks m, trying first without waiting; *blocked says
// whether it had to wait.
func trRLock(m *sync.RWMutex, id int64, blocked *bool) {
	if !m.TryRLock() {
		trWaits(id, blocked)
		m.RLock()
	}
}

// trRE ends the region execution (or iteration) *id, if one is open, and
// closes it.
func trRE(id *int64) {
	if *id == 0 {
		return
	}
	trWrite(&trRecord{Kind: "end", ID: *id, Seq: trSeq.Add(1)})
	*id = 0
}

// trRUnwind ends, in order, the region executions and iterations still open when a
// function ends by a panic (and, harmlessly, none when it returns).
func trRUnwind(ids ...*int64) {
	for _, id := range ids {
		trRE(id)
	}
}

// trAlloc records an allocation of kind and type typ in fn, in the
// execution of fn running on the calling goroutine, made room for elems
// elements of bytes bytes.
func trAlloc(fn, kind, typ string, elems, bytes int64) {
	g := trState()
	r := &trRecord{Kind: "alloc", ID: trIDs.Add(1), Func: fn, In: g.stack[len(g.stack)-1], Goroutine: g.num,
		Alloc: kind, Type: typ, Elements: elems, Bytes: bytes, HeapBytes: trHeap(bytes), Walks: g.walks[len(g.walks)-1]}
	r.Seq = trSeq.Add(1)
	trWrite(r)
}

// trHeap is the bytes the heap takes for an object of n bytes, n at most
// 512 (the runtime adds no malloc header): the size class the runtime
// rounds the capacity of a byte slice up to when append allocates it.
func trHeap(n int64) int64 { return int64(cap(append([]byte(nil), make([]byte, n)...))) }

// trAP records the allocation v of kind (new, composite) and type typ in
// fn, and returns v.
func trAP[T any](v *T, fn, kind, typ string) *T {
	trAlloc(fn, kind, typ, 1, int64(unsafe.Sizeof(*v)))
	return v
}

// trAS records the allocation of v's array, of kind (make-slice, append)
// and type typ in fn, and returns v.
func trAS[E any](v []E, fn, kind, typ string) []E {
	var z E
	trAlloc(fn, kind, typ, int64(cap(v)), int64(cap(v))*int64(unsafe.Sizeof(z)))
	return v
}

// trAC records the objects of the channel v of type typ made in fn, and
// returns v: the runtime's header (112 bytes in Go 1.26) with the buffer
// in one object, or, when the elements hold pointers, the header and
// then the buffer apart.
func trAC[E any](v chan E, fn, typ string, pointers bool) chan E {
	const header = 112
	var z E
	buf := int64(cap(v)) * int64(unsafe.Sizeof(z))
	if pointers && buf > 0 {
		trAlloc(fn, "make-chan", typ, 0, header)
		trAlloc(fn, "make-chan", typ, int64(cap(v)), buf)
		return v
	}
	trAlloc(fn, "make-chan", typ, int64(cap(v)), header+buf)
	return v
}

// trAM records the objects of the map v of type map[int]int, made
// (kind make-map) or written as a literal (map-literal) in fn, that
// escapes, and returns v. In Go 1.26: its header (a Map, 48 bytes) and,
// for a literal of 8 elements or fewer, its first group (a control
// word and 8 slots of an int key and value: 136 bytes), which the
// runtime allocates as it puts the first element.
func trAM(v map[int]int, fn, kind string) map[int]int {
	trAlloc(fn, kind, "map[int]int", 1, 48)
	if len(v) > 0 {
		trAlloc(fn, kind, "map[int]int", 8, 136)
	}
	return v
}

// trAMW records what the runtime allocated for a new key put in fn into
// a map[int]int of n elements before it, made with no hint: where the
// map is not in the frame (whose first group is in the frame too), its
// first group as it puts the first element; at the ninth (a small map
// of 8 is full), a table of 16 slots: a directory of one, the table's
// struct (32 bytes) and its two groups.
func trAMW(n int, fn string, frame bool) {
	switch {
	case n == 0 && !frame:
		trAlloc(fn, "map-assign", "map[int]int", 8, 136)
	case n == 8:
		trAlloc(fn, "map-assign", "map[int]int", 1, 8)
		trAlloc(fn, "map-assign", "map[int]int", 1, 32)
		trAlloc(fn, "map-assign", "map[int]int", 16, 2*136)
	}
}

// trABox records the int v converted to an interface in fn, and returns
// it: the runtime boxes a value under 256 without allocating.
func trABox(v int, fn string) int {
	if uint64(v) >= 256 {
		trAlloc(fn, "interface", "int", 1, 8)
	}
	return v
}

// trAStr records the concatenation v in fn, and returns it.
func trAStr(v, fn string) string {
	trAlloc(fn, "concat", "string", int64(len(v)), int64(len(v)))
	return v
}

// trFinish writes the trace out when main returns; what goroutines still
// running record afterwards is dropped, as the process may exit anyway.
func trFinish() {
	trMu.Lock()
	defer trMu.Unlock()
	trClosed = true
	if err := trOut.Flush(); err != nil {
		panic(err)
	}
	if err := trFile.Close(); err != nil {
		panic(err)
	}
}
`

// WriteTraceRuntime writes the tracer of traced twins into dir as
// trace.go: hand-written twins (the regression cases of the differential
// test) use it too.
func WriteTraceRuntime(dir string) error {
	return writeFiles(dir, map[string]string{"trace.go": traceRuntime})
}

// WriteTracerPackage writes the tracer of a twin of several packages
// into dir as the package tr (example.com/gen/tr, its names exported),
// which each package of the twin imports with a dot.
func WriteTracerPackage(dir string) error {
	return writeFiles(dir, map[string]string{"tr/trace.go": tracerPackage()})
}
