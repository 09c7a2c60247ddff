package progen

import (
	"math/rand"
	"slices"
)

// Heap walks (Features.Walks): package-level linked lists of wnodes that
// share one wtag, statically initialized (no allocation, no function):
// wls[i] is a list of i nodes, wls[3] a cycle that main closes in its
// first statement (a plain assignment: a static initializer cannot
// refer to itself). Every function with an int parameter a in scope (a
// closure's enclosing function's too) can walk from "wls[a&3]", which
// no statement writes once main began: the walk's counts follow from a
// by construction, and the twin records them so (trWalks), at every
// begin and end record of such a function and at its allocations (the
// walks of its begin: nothing changes them meanwhile), by membership type
// main.wnode and of everything, with the sizes unsafe.Sizeof gives. The
// question templates ask for them at executions, begin and end points,
// in filters and in sums. Drawn from a random source of their own, so
// that the rest of a seed's program and questions are those of a
// program without them.

// walkExpr is the Go expression the walks start from.
const walkExpr = "wls[a&3]"

// walkDecls declare the lists.
var walkDecls = []string{
	"type wtag struct{ n int64 }",
	"type wnode struct {\n\tv    int\n\tnext *wnode\n\ttag  *wtag\n}",
	"var wt = wtag{n: 1}",
	"var w1a = wnode{v: 1, tag: &wt}",
	"var w2b = wnode{v: 2, tag: &wt}",
	"var w2a = wnode{v: 1, next: &w2b, tag: &wt}",
	"var w3c = wnode{v: 3, tag: &wt} // main closes the cycle: w3c.next = &w3a",
	"var w3b = wnode{v: 2, next: &w3c, tag: &wt}",
	"var w3a = wnode{v: 1, next: &w3b, tag: &wt}",
	"var wls = [4]*wnode{nil, &w1a, &w2a, &w3a}",
}

// walkTwinDecls are the twin's: the walks from wls[a&3], counted by
// construction.
var walkTwinDecls = []string{`// trWalks are the walks from wls[a&3]: a&3 nodes (the cycle of three
// counted once), and the tag they share.
func trWalks(a int) []trWalk {
	n := int64(a & 3)
	tags := int64(0)
	if n > 0 {
		tags = 1
	}
	node, tag := int64(unsafe.Sizeof(wnode{})), int64(unsafe.Sizeof(wtag{}))
	return []trWalk{{Expr: "wls[a&3]", Type: "main.wnode", N: n, B: n * node},
		{Expr: "wls[a&3]", Type: "*", N: n + tags, B: n*node + tags*tag}}
}`}

// walkSource is the random source of a seed's walks.
func walkSource(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed*15485863 + 11)) }

// addWalks declares the lists, in one program of three.
func (g *gen) addWalks(seed int64) {
	if !g.feat.Walks || walkSource(seed).Intn(3) == 0 {
		return
	}
	g.walks = true
	g.mainPkg().decls = append(g.mainPkg().decls, walkDecls...)
	main := g.func_("main.main")
	main.body = append([]stmt{raw("w3c.next = &w3a")}, main.body...)
}

// hasA reports whether an int parameter a is in scope in the innermost
// of fns (pick's a is of a type parameter that may be a string).
func hasA(fns []*Func) bool {
	return slices.ContainsFunc(fns, func(f *Func) bool {
		return slices.Contains(f.params, "a") && !f.typeArgs
	})
}

// walkQuestions draws the questions about walks.
func (q *qgen) walkQuestions() {
	if len(q.p.funcsWhere(func(f *Func) bool { return f.walks })) == 0 {
		return
	}
	q.r = rand.New(rand.NewSource(q.p.Seed*104723 + 7))
	want := 2 + q.r.Intn(3)
	for tries, n := 0, len(q.names); len(q.names) < n+want && tries < 50; tries++ {
		q.walk(walkTemplates[q.r.Intn(len(walkTemplates))])
	}
}

// walkTemplate is a question template over walks: its kind, whether it
// reads the end point (not of a worker, whose end may come after main
// returned), and its text, of (in order) the question's name, the
// function, the attribute, the membership type, the expression and a
// bound.
type walkTemplate struct {
	kind   string
	end    bool
	alloc  bool // of a function's allocations
	format string
}

// walkTemplates ask for the walk of each execution (its begin), at its
// begin and end points, the executions whose walk is over a bound (a
// run-time filter where the plan tests it), and the sum over the
// executions of a function (a function variable would take in those
// outside the module, which pmm says it may miss), and the walk at each
// allocation of a function that allocates.
var walkTemplates = []walkTemplate{
	{"walk-at", false, false, "(defquestion %[1]s :definition ((x n) s.t. (and (function-execution x %[2]s) (%[3]s x %[5]q %[4]s n))))"},
	{"walk-end", true, false, "(defquestion %[1]s :definition ((x n0 n1) s.t. (exists (p0 p1) (and (function-execution x %[2]s) (begin p0 x) (end p1 x) (%[3]s p0 %[5]q %[4]s n0) (%[3]s p1 %[5]q %[4]s n1)))))"},
	{"walk-filter", false, false, "(defquestion %[1]s :definition ((x) s.t. (exists (n) (and (function-execution x %[2]s) (%[3]s x %[5]q %[4]s n) (> n %[6]d)))))"},
	{"walk-sum", false, false, "(defevent %[1]s-ev :definition ((x b) s.t. (and (function-execution x %[2]s) (%[3]s x %[5]q %[4]s b))))\n\n(defquestion %[1]s :definition (sum %[1]s-ev (output output)))"},
	{"walk-alloc", false, true, "(defquestion %[1]s :definition ((a n) s.t. (exists (k t) (and (allocation a %[2]s k t) (%[3]s a %[5]q %[4]s n)))))"},
}

// walk draws a question of template t: most often about a function the
// walk compiles in, by membership type main.wnode or of everything, of
// the objects or the bytes.
func (q *qgen) walk(t walkTemplate) bool {
	walks := q.r.Intn(5) != 0
	// Of allocations, only in a function that makes no channel: heap
	// walks at a channel's make, of one or two objects, are not
	// generated.
	ok := func(f *Func) bool {
		return f.walks == walks && !(t.end && f.Worker) && (!t.alloc || f.allocs && !f.makesChans())
	}
	f := q.pick(ok)
	if f == nil {
		return false
	}
	prim, typ, bound := "reachable-objects", `"main.wnode"`, 1+q.r.Intn(2)
	if q.r.Intn(2) == 0 {
		prim, bound = "reachable-bytes", 24*bound
	}
	if q.r.Intn(2) == 0 {
		typ = `"*"`
	}
	n := q.name(t.kind)
	q.question(n, t.format, n, lit(f), prim, typ, walkExpr, bound)
	return true
}
