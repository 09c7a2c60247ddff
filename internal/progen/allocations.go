package progen

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strconv"
	"strings"
)

// Heap allocations (Features.Allocations): statements of the mids that
// store a newly allocated cell in the package-level atomic.Pointer sink,
// so that escape analysis puts every allocation in them on the heap in
// the mid's own body: &cell{...}, new(cell), a make([]int, n) and a
// concatenation with two non-empty constants (which always allocates)
// held by a cell, and an append to a slice of capacity 1 (which always
// grows), some of them in a loop of two iterations, counted or over
// slices.Values; maps of ints, made or written as literals, held by a cell or
// kept in the frame, into which 1, 5 or 9 keys are put (the runtime's
// objects for them are those of Go 1.26's swiss tables: trAM, trAMW); an int stored in the atomic.Value boxSink, which the runtime
// boxes by allocating unless it is under 256. The channels a function
// makes for its blocking operations are allocations too (makeChans).
// An allocating function is not inlined (//go:noinline): the
// compiler might keep an inlined copy's allocations on the stack, and pmm
// says so. The twin wraps each allocating expression in a helper that
// records it once it is made (trAP, trAS, trAStr, trABox, trAC, trAM, trAMW): its kind, its type
// as pmm's static.db writes it, its elements, requested bytes and heap
// bytes (every object is under 512 bytes: no malloc header). They are
// drawn from a random source of their own, so that the rest of a
// seed's program and questions are those of a program without them.

// allocStmt is a statement with allocations: text in the plain program,
// twin in the twin.
type allocStmt struct{ text, twin string }

func (s *allocStmt) print(p *printer) {
	if p.tw {
		p.line("%s", strings.ReplaceAll(s.twin, fnName, strconv.Quote(p.fns[len(p.fns)-1].Name)))
		return
	}
	p.line("%s", s.text)
}

// fnName stands, in a twin's statement, for the name of the function
// whose body holds it, as a Go string: a literal's name is known only
// once the literals are numbered in source order, after its body is.
const fnName = "\x00fn\x00"

// allocDecls declare the cell and the sink.
var allocDecls = []string{"type cell struct {\n\tn  int\n\ts  string\n\txs []int\n\tp  *cell\n\tm  map[int]int\n}", "var sink atomic.Pointer[cell]", "var boxSink atomic.Value"}

// allocSource is the random source of a seed's allocations.
func allocSource(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed*104729 + 3)) }

// rangeLoopSource is the random source of whether a loop of a seed's
// allocations ranges over a function: a source of its own, so that the
// other draws are those of the programs before such loops were drawn.
func rangeLoopSource(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed*7919 + 11)) }

// allocs adds statements with allocations to f's body, after its first
// at statements (a mid's acc := 0), some of them in a loop.
func (g *gen) allocs(f *Func, at int) {
	if !g.feat.Allocations || g.ra.Intn(3) == 0 {
		return
	}
	if !f.pkg.cells {
		f.pkg.cells = true
		f.pkg.decls = append(f.pkg.decls, allocDecls...)
	}
	g.allocFuncs = append(g.allocFuncs, f)
	var ss []stmt
	for k := 0; k < 1+g.ra.Intn(2); k++ {
		ss = append(ss, g.alloc(f))
	}
	if g.ra.Intn(3) == 0 {
		head := "for i := 0; i < 2; i++ {"
		if g.rl.Intn(2) == 0 {
			// The same two iterations, over a function: slices.Values
			// is inlined, and the loop's body into it, so the compiler
			// reports the body's allocations at the for statement.
			head = "for range slices.Values([]int{0, 1}) {"
		}
		ss = []stmt{&block{head: head, body: ss}}
	}
	f.allocs = true
	f.body = append(append(slices.Clip(f.body[:at]), ss...), f.body[at:]...)
}

// alloc is one statement with allocations in f.
func (g *gen) alloc(f *Func) stmt {
	fn := fnName
	cell := f.pkg.prefix() + ".cell"
	p := func(e, kind string) string { return fmt.Sprintf("trAP(%s, %s, %q, %q)", e, fn, kind, cell) }
	s := func(e, kind string) string { return fmt.Sprintf("trAS(%s, %s, %q, \"[]int\")", e, fn, kind) }
	store := func(text, twin string) stmt {
		return &allocStmt{text: "sink.Store(" + text + ")", twin: "sink.Store(" + twin + ")"}
	}
	switch g.ra.Intn(11) {
	case 0:
		return store("new(cell)", p("new(cell)", "new"))
	case 1:
		return store("&cell{n: a}", p("&cell{n: a}", "composite"))
	case 2:
		mk := "make([]int, a&3+1)"
		return store("&cell{xs: "+mk+"}", p("&cell{xs: "+s(mk, "make-slice")+"}", "composite"))
	case 3:
		cat := `"<" + strs[a%3] + ">"`
		return store("&cell{s: "+cat+"}", p(fmt.Sprintf("&cell{s: trAStr(%s, %s)}", cat, fn), "composite"))
	case 4:
		// A variable moved to the heap, as its address is stored.
		return &allocStmt{text: "{ v := cell{n: a}; sink.Store(&v) }", twin: "{ v := cell{n: a}; sink.Store(" + p("&v", "variable") + ") }"}
	case 5:
		// A range statement's variable, one per iteration.
		loop := "for _, v := range [2]cell{{n: a}, {}} { sink.Store(%s) }"
		return &allocStmt{text: fmt.Sprintf(loop, "&v"), twin: fmt.Sprintf(loop, p("&v", "variable"))}
	case 6:
		// An int converted to an interface: boxed by allocating unless
		// under 256.
		return &allocStmt{text: "boxSink.Store(a * 97)", twin: "boxSink.Store(trABox(a*97, " + fn + "))"}
	case 7:
		// A map made on the heap, then 1, 5 or 9 keys put in it (a
		// is mostly 0, 1 or 2): the ninth grows it from a group to a
		// table.
		loop := "for i := 0; i < a%%3*4+1; i++ { %s }"
		return &allocStmt{text: "{ m := make(map[int]int); " + fmt.Sprintf(loop, "m[i] = a") + "; sink.Store(&cell{m: m}) }",
			twin: fmt.Sprintf("{ m := trAM(make(map[int]int), %s, \"make-map\"); ", fn) + fmt.Sprintf(loop, "n := len(m); m[i] = a; trAMW(n, "+fn+", false)") +
				"; sink.Store(" + p("&cell{m: m}", "composite") + ") }"}
	case 8:
		// A map kept in the frame: its first group is there too, but
		// a ninth key's table is on the heap.
		loop := "for j := 0; j < a%%3*4+1; j++ { %s }"
		return &allocStmt{text: "{ m := make(map[int]int); " + fmt.Sprintf(loop, "m[j] = a") + " }",
			twin: "{ m := make(map[int]int); " + fmt.Sprintf(loop, "n := len(m); m[j] = a; trAMW(n, "+fn+", true)") + " }"}
	case 9:
		lit := "map[int]int{a: 1, a + 1: 2}"
		return store("&cell{m: "+lit+"}", p(fmt.Sprintf("&cell{m: trAM(%s, %s, \"map-literal\")}", lit, fn), "composite"))
	}
	mk := "make([]int, 1)"
	return store("&cell{xs: append("+mk+", a)}",
		p("&cell{xs: "+s("append("+s(mk, "make-slice")+", a)", "append")+"}", "composite"))
}

// allocQuestions draws, from a source of their own, questions from the
// allocation templates, after the others.
func (q *qgen) allocQuestions() {
	if len(q.p.allocFuncs()) == 0 {
		return
	}
	q.r = rand.New(rand.NewSource(q.p.Seed*7727 + 5))
	templates := []func() bool{q.allocCount, q.allocOwn, q.allocKinds}
	if q.p.Features.Goroutines && q.p.Features.GoroutineEvents {
		templates = append(templates, q.allocGo)
	}
	if len(q.p.pkgs) > 1 {
		templates = append(templates, q.allocAccount, q.allocAccount)
	}
	want := 2 + q.r.Intn(3)
	for tries, n := 0, len(q.names); len(q.names) < n+want && tries < 50; tries++ {
		templates[q.r.Intn(len(templates))]()
	}
}

// allocFuncs are the functions of p with allocations in their bodies.
func (p *Program) allocFuncs() []*Func { return p.funcsWhere(func(f *Func) bool { return f.allocs }) }

// funcsWhere are the functions of p for which ok holds, in order.
func (p *Program) funcsWhere(ok func(*Func) bool) []*Func {
	var fs []*Func
	for _, f := range p.Funcs {
		if ok(f) {
			fs = append(fs, f)
		}
	}
	return fs
}

// allocChoices are the functions a question about the allocations of
// f or its callees may name: those of them that allocate.
func (q *qgen) allocChoices(f *Func) (fs []*Func) {
	for _, c := range append(slices.Collect(maps.Keys(reach(f))), f) {
		if c.allocs {
			fs = append(fs, c)
		}
	}
	slices.SortFunc(fs, func(a, b *Func) int { return strings.Compare(a.Name, b.Name) })
	return fs
}

// allocTerm is the function term of such a question, with vars, the
// variables it quantifies, and f when the term is that variable: not
// where f's executions run code outside the module (reachesOutside),
// whose allocations pmm says it does not count.
func (q *qgen) allocTerm(f *Func, vars string) (string, string) {
	fs := q.allocChoices(f)
	if !f.reachesOutside() {
		return "f", vars + " f"
	}
	return lit(fs[q.r.Intn(len(fs))]), vars
}

// reachesOutside reports whether f, or a function it calls, directly or
// not, runs code of the standard library that may allocate: a go
// statement, wg.Add or wg.Wait (the spawner), a worker's deferred
// wg.Done, Lock or RLock.
func (f *Func) reachesOutside() bool {
	for _, c := range append(slices.Collect(maps.Keys(reach(f))), f) {
		if len(c.spawns) > 0 || c.Worker || slices.ContainsFunc(c.ops, func(o opInfo) bool { return o.kind == "lock" || o.kind == "rlock" || o.kind == "wait" }) {
			return true
		}
	}
	return false
}

// allocCount counts the allocations of each execution of a function
// that allocates or calls one that does, by itself or its callees (or
// those of one of them: allocTerm): on its goroutine (contains alone
// would take in those of goroutines running meanwhile); or their heap
// bytes.
func (q *qgen) allocCount() bool {
	f := q.pick(func(f *Func) bool { fs := q.allocChoices(f); return !f.Worker && len(fs) > 0 })
	if f == nil {
		return false
	}
	g, vars := q.allocTerm(f, "k t")
	n := q.name("alloc-count")
	if q.r.Intn(2) == 0 {
		q.define("(defevent %s :definition ((x a) s.t. (exists (%s) (and (function-execution x %s) (allocation a %s k t) (contains x a) (same-goroutine x a)))))", n+"-ev", vars, lit(f), g)
		q.question(n, "(defquestion %s :definition (count %s (input output)))", n, n+"-ev")
		return true
	}
	q.define("(defevent %s :definition ((x a h) s.t. (exists (%s) (and (function-execution x %s) (allocation a %s k t) (contains x a) (same-goroutine x a) (allocation-heap-bytes a h)))))", n+"-ev", vars, lit(f), g)
	q.question(n, "(defquestion %s :definition (sum %s (input output output)))", n, n+"-ev")
	return true
}

// allocOwn sums the bytes (requested or heap) a function's executions
// allocate by themselves, or counts their allocations by kind and type.
func (q *qgen) allocOwn() bool {
	fs := q.p.allocFuncs()
	if len(fs) == 0 {
		return false
	}
	f := fs[q.r.Intn(len(fs))]
	n := q.name("alloc-own")
	switch q.r.Intn(3) {
	case 0:
		q.define("(defevent %s :definition ((x a k t) s.t. (and (function-execution x %s) (allocation a %s k t) (contains x a) (same-goroutine x a))))", n+"-ev", lit(f), lit(f))
		q.question(n, "(defquestion %s :definition (count %s (input output input input)))", n, n+"-ev")
	default:
		attr := []string{"allocation-bytes", "allocation-heap-bytes"}[q.r.Intn(2)]
		q.define("(defevent %s :definition ((x a h) s.t. (exists (k t) (and (function-execution x %s) (allocation a %s k t) (contains x a) (same-goroutine x a) (%s a h)))))", n+"-ev", lit(f), lit(f), attr)
		q.question(n, "(defquestion %s :definition (sum %s (input output output)))", n, n+"-ev")
	}
	return true
}

// allocKinds asks for the allocations' functions, kinds, types,
// elements, requested and heap bytes, counts them by function, kind and
// type, and asks for their memory account, of every function.
func (q *qgen) allocKinds() bool {
	f, head, in := "f", "f ", "input "
	n := q.name("alloc-kinds")
	q.question(n, "(defquestion %s :definition ((%sk t e b h) s.t. (exists (a) (and (allocation a %s k t) (allocation-elements a e) (allocation-bytes a b) (allocation-heap-bytes a h)))))", n, head, f)
	q.define("(defevent %s :definition ((a %sk t) s.t. (allocation a %s k t)))", n+"-ev", head, f)
	q.question(n+"-count", "(defquestion %s :definition (count %s (output %sinput input)))", n+"-count", n+"-ev", in)
	// And their memory account (seed 002): in a program of one package
	// main, which "main" matches and the other pattern does not;
	// else patterns of some of its packages (accountPatterns).
	q.question(n+"-account", "(defquestion %s :definition ((%sk t acc) s.t. (exists (a) (and (allocation a %s k t) (allocation-account a %q acc)))))", n+"-account", head, f, q.accounts())
	return true
}

// accountPatterns are the account sets of a program of several
// packages: patterns that match some of its packages and not others,
// so that the frames of the others are agents (pb's leaves called from
// main and pa, pa's functions between main and pb); package main by
// "main" or by its import path, which example.com/gen/... matches too;
// and two patterns that match one package, the more specific charged.
var accountPatterns = []string{
	"example.com/gen/pa main",
	"main example.com/gen/pb",
	"example.com/gen/pa example.com/gen/pb",
	"example.com/gen/pa",
	"example.com/gen/pb",
	"example.com/gen/...",
	"example.com/gen/pb example.com/gen/...",
	"example.com/gen main",
	"main",
}

// accounts is the account set of an account question: in a program of
// several packages, one time in two the packages that call an
// allocating function of another package, when two do (an agent whose
// account the call graph does not know: it reads it at run time), else
// one of accountPatterns.
func (q *qgen) accounts() string {
	if len(q.p.pkgs) == 1 {
		return "example.com/other/... main"
	}
	if sets := q.p.AgentAccounts(); len(sets) > 0 && q.r.Intn(2) == 0 {
		return sets[q.r.Intn(len(sets))]
	}
	return accountPatterns[q.r.Intn(len(accountPatterns))]
}

// AgentAccounts are, for each allocating function called from two
// packages other than its own or more, the patterns of those packages
// (package main by "main").
func (p *Program) AgentAccounts() []string {
	var sets []string
	for _, f := range p.allocFuncs() {
		callers := map[string]bool{}
		for _, c := range p.Funcs {
			if c.callees[f] && c.pkg != f.pkg {
				callers[c.pkg.prefix()] = true
			}
		}
		if len(callers) < 2 {
			continue
		}
		set := strings.Join(slices.Sorted(maps.Keys(callers)), " ")
		if !slices.Contains(sets, set) {
			sets = append(sets, set)
		}
	}
	return sets
}

// allocAccount asks, in a program of several packages, for the
// allocations per function and account (a count, which the runtime
// keeps in cells), their heap bytes per type and account (a sum), or
// the account of each allocation of every function, or of one, with
// its kind and type.
func (q *qgen) allocAccount() bool {
	fs := q.p.allocFuncs()
	if len(fs) == 0 {
		return false
	}
	f, in := "f", "input "
	acc := q.accounts()
	n := q.name("alloc-account")
	switch q.r.Intn(3) {
	case 0:
		head := map[bool]string{true: "f "}[f == "f"]
		q.define("(defevent %s :definition ((a %sacc) s.t. (exists (k t) (and (allocation a %s k t) (allocation-account a %q acc)))))", n+"-ev", head, f, acc)
		q.question(n, "(defquestion %s :definition (count %s (output %sinput)))", n, n+"-ev", in)
	case 1:
		vars := map[bool]string{true: "k f", false: "k"}[f == "f"]
		q.define("(defevent %s :definition ((a t acc h) s.t. (exists (%s) (and (allocation a %s k t) (allocation-account a %q acc) (allocation-heap-bytes a h)))))", n+"-ev", vars, f, acc)
		q.question(n, "(defquestion %s :definition (sum %s (output input input output)))", n, n+"-ev")
	default:
		g := fs[q.r.Intn(len(fs))]
		q.question(n, "(defquestion %s :definition ((a k t acc) s.t. (and (allocation a %s k t) (allocation-account a %q acc))))", n, lit(g), acc)
	}
	return true
}

// allocGo asks for the allocations on a worker's goroutine, by kind,
// type and elements, by (contains g a), whose goroutine may outlive main
// (see goOn).
func (q *qgen) allocGo() bool {
	w := q.worker()
	if w == nil {
		return false
	}
	if fs := q.allocChoices(w); len(fs) == 0 {
		return false
	}
	g, vars := q.allocTerm(w, "g a")
	n := q.name("alloc-go")
	q.question(n, `(defquestion %s :definition
  ((k t e) s.t. (exists (%s) (and (goroutine-execution g %s) (allocation a %s k t) (contains g a) (same-goroutine g a) (allocation-elements a e)))))`, n, vars, lit(w), g)
	return true
}
