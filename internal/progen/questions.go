package progen

import (
	"fmt"
	"maps"
	"math/rand"
	"sort"
	"strings"
)

// Questions are drawn from templates over the program's functions, with
// only what the reference evaluates exactly and deterministically: no
// durations, times, receivers, data conditions or goroutine ids; no end
// attribute (results, panicked, the container of contains or calls*, the
// earlier of before) of a worker, whose end may come after main
// returned; contains only from a function that never runs on a spawned
// goroutine, so that it does not race with one; before only between two
// calls from one execution.

// qgen draws questions.
type qgen struct {
	r     *rand.Rand
	p     *Program
	b     strings.Builder
	names []string
	n     int
}

func genQuestions(r *rand.Rand, p *Program) (string, []string) {
	q := &qgen{r: r, p: p}
	templates := []func() bool{q.count, q.groupedCount, q.aggregate, q.calls, q.valueCompare}
	f := p.Features
	if f.CallsStar {
		templates = append(templates, q.callsStar)
	}
	if f.Goroutines {
		templates = append(templates, q.spawns)
	}
	if f.Goroutines && f.GoroutineEvents {
		templates = append(templates, q.goCount, q.goFirst, q.goOn)
	}
	if f.Contains {
		templates = append(templates, q.contains)
	}
	if f.Negations {
		templates = append(templates, q.negation, q.negation)
	}
	if f.Cache {
		templates = append(templates, q.cache, q.cache)
	}
	if f.Panicked {
		templates = append(templates, q.panicked)
	}
	if f.Or {
		templates = append(templates, q.either)
	}
	if f.Names {
		templates = append(templates, q.calleeNames)
	}
	if f.Regions {
		templates = append(templates, q.regionCount, q.regionIn, q.regionBefore, q.regionContains, q.regionContains)
	}
	if f.Regions && f.Iterations {
		templates = append(templates, q.iterCount, q.iterPerLoop, q.iterIn, q.iterCalls, q.iterCalls)
	}
	if f.Blocking {
		templates = append(templates, q.opCount, q.opCase, q.opIn, q.opIter, q.opBefore)
	}
	want := 10 + r.Intn(6)
	for tries := 0; len(q.names) < want && tries < 200; tries++ {
		templates[r.Intn(len(templates))]()
	}
	q.allocQuestions()
	q.walkQuestions()
	q.contextQuestions()
	q.blockedQuestions()
	return q.b.String(), q.names
}

// define writes a definition; question adds it to those compared.
func (q *qgen) define(format string, args ...any) {
	fmt.Fprintf(&q.b, format+"\n\n", args...)
}

func (q *qgen) question(name, format string, args ...any) {
	q.define(format, args...)
	q.names = append(q.names, name)
}

func (q *qgen) name(kind string) string {
	q.n++
	return fmt.Sprintf("q%d-%s", q.n, kind)
}

// pick returns a random element of fs satisfying ok, or nil.
func (q *qgen) pick(ok func(*Func) bool) *Func {
	var fs []*Func
	for _, f := range q.p.Funcs {
		if ok(f) {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	return fs[q.r.Intn(len(fs))]
}

func lit(f *Func) string { return fmt.Sprintf("%q", f.QName) }

// param is a random parameter position of f whose type is in types (any
// when none are given), 0 when there is none.
func (q *qgen) param(f *Func, types ...Type) int {
	var ks []int
	for i, t := range f.Params {
		if len(types) == 0 || t == types[0] || len(types) > 1 && t == types[1] {
			ks = append(ks, i+1)
		}
	}
	if len(ks) == 0 {
		return 0
	}
	return ks[q.r.Intn(len(ks))]
}

// callEdge is a caller and one of its callees, both satisfying ok.
func (q *qgen) callEdge(ok func(caller, callee *Func) bool) (*Func, *Func) {
	type edge struct{ a, b *Func }
	var es []edge
	for _, f := range q.p.Funcs {
		var cs []*Func
		for c := range f.callees {
			cs = append(cs, c)
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
		for _, c := range cs {
			if ok(f, c) {
				es = append(es, edge{f, c})
			}
		}
	}
	if len(es) == 0 {
		return nil, nil
	}
	e := es[q.r.Intn(len(es))]
	return e.a, e.b
}

// reach is what f calls, directly or not, on its own goroutine.
func reach(f *Func) map[*Func]bool {
	seen := map[*Func]bool{}
	var walk func(*Func)
	walk = func(f *Func) {
		for c := range f.callees {
			if !seen[c] {
				seen[c] = true
				walk(c)
			}
		}
	}
	walk(f)
	return seen
}

// reachNoWorkers is reach(f) without the workers, whose ends may come
// after main returned.
func reachNoWorkers(f *Func) map[*Func]bool {
	r := reach(f)
	for c := range r {
		if c.Worker {
			delete(r, c)
		}
	}
	return r
}

func any_(*Func) bool { return true }

func (q *qgen) count() bool {
	f := q.pick(any_)
	n := q.name("execs")
	if q.n%2 == 0 {
		// Seed A.1: an interval that is an invocation of the function.
		q.question(n, "(defquestion %s :definition ((x) s.t. (and (interval x) (function-invocation x) (function-name x %s))))", n, lit(f))
	} else {
		q.question(n, "(defquestion %s :definition ((x) s.t. (function-execution x %s)))", n, lit(f))
	}
	c := q.name("count")
	q.question(c, "(defquestion %s :definition (count %s (output)))", c, n)
	return true
}

func (q *qgen) groupedCount() bool {
	f := q.pick(func(f *Func) bool { return len(f.Params) > 0 })
	if f == nil {
		return false
	}
	k := q.param(f)
	n := q.name("by-param")
	q.define("(defevent %s :definition ((x v) s.t. (and (function-execution x %s) (parameter x %d v))))", n+"-ev", lit(f), k)
	q.question(n, "(defquestion %s :definition (count %s (output input)))", n, n+"-ev")
	// The aggregate used as a relation: the values passed more than once.
	q.question(n+"-many", "(defquestion %s :definition ((v c) s.t. (and (%s v c) (> c 1))))", n+"-many", n)
	return true
}

// aggregate is a sum, min or max of an int parameter or result.
func (q *qgen) aggregate() bool {
	op := []string{"sum", "min", "max"}[q.r.Intn(3)]
	if q.r.Intn(2) == 0 {
		f := q.pick(func(f *Func) bool { return q.param(f, Int) > 0 })
		if f == nil {
			return false
		}
		n := q.name(op + "-param")
		q.question(n+"-rel", "(defquestion %s :definition ((x v) s.t. (and (function-execution x %s) (parameter x %d v))))", n+"-rel", lit(f), q.param(f, Int))
		q.question(n, "(defquestion %s :definition (%s %s (output output)))", n, op, n+"-rel")
		return true
	}
	f := q.pick(func(f *Func) bool { return f.Result == Int && !f.Worker })
	if f == nil {
		return false
	}
	n := q.name(op + "-result")
	q.question(n+"-rel", "(defquestion %s :definition ((x v) s.t. (and (function-execution x %s) (return-value x 1 v))))", n+"-rel", lit(f))
	q.question(n, "(defquestion %s :definition (%s %s (output output)))", n, op, n+"-rel")
	return true
}

func (q *qgen) calls() bool {
	a, b := q.callEdge(func(a, b *Func) bool { return !a.Worker || q.r.Intn(3) == 0 })
	if a == nil {
		return false
	}
	n := q.name("calls")
	if len(a.Params) > 0 && len(b.Params) > 0 && q.r.Intn(2) == 0 {
		q.question(n, `(defquestion %s :definition
  ((p v) s.t. (exists (x y) (and (function-execution x %s) (function-execution y %s)
                                 (calls x y) (parameter x 1 p) (parameter y 1 v)))))`, n, lit(a), lit(b))
		return true
	}
	q.question(n, `(defquestion %s :definition
  ((x y) s.t. (and (function-execution x %s) (function-execution y %s) (calls x y))))`, n, lit(a), lit(b))
	return true
}

// valueCompare compares a result with a constant, or a callee's
// parameter with its caller's.
func (q *qgen) valueCompare() bool {
	op := []string{"<", ">", "=", "/=", "<=", ">="}[q.r.Intn(6)]
	if q.r.Intn(2) == 0 {
		f := q.pick(func(f *Func) bool { return f.Result == Int && !f.Worker })
		if f == nil {
			return false
		}
		n := q.name("result")
		k := q.r.Intn(4)
		if op == "=" || op == "/=" {
			// The list of its one result, compared with a list value.
			q.question(n, `(defquestion %s :definition
  ((x) s.t. (exists (r) (and (function-execution x %s) (return-values x r) (%s r '(%d))))))`, n, lit(f), op, k)
			return true
		}
		q.question(n, `(defquestion %s :definition
  ((x) s.t. (exists (r) (and (function-execution x %s) (return-value x 1 r) (%s r %d)))))`, n, lit(f), op, k)
		return true
	}
	a, b := q.callEdge(func(a, b *Func) bool { return q.param(a, Int) > 0 && q.param(b, Int) > 0 })
	if a == nil {
		return false
	}
	n := q.name("caller-value")
	q.question(n, `(defquestion %s :definition
  ((y) s.t. (exists (x p v) (and (function-execution x %s) (function-execution y %s) (calls x y)
                                 (parameter x %d p) (parameter y %d v) (%s p v)))))`, n, lit(a), lit(b), q.param(a, Int), q.param(b, Int), op)
	return true
}

func (q *qgen) callsStar() bool {
	a := q.pick(func(f *Func) bool { return !f.Worker && len(reach(f)) > 0 })
	if a == nil {
		return false
	}
	b := q.pickFrom(reach(a))
	n := q.name("calls-star")
	if len(b.Params) > 0 && q.r.Intn(2) == 0 {
		q.question(n, `(defquestion %s :definition
  ((y v) s.t. (exists (x) (and (function-execution x %s) (function-execution y %s) (calls* x y) (parameter y 1 v)))))`, n, lit(a), lit(b))
		return true
	}
	q.question(n, `(defquestion %s :definition
  ((y) s.t. (exists (x) (and (function-execution x %s) (function-execution y %s) (calls* x y)))))`, n, lit(a), lit(b))
	return true
}

func (q *qgen) pickFrom(set map[*Func]bool) *Func {
	var fs []*Func
	for f := range set {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
	return fs[q.r.Intn(len(fs))]
}

// spawner is the function that starts the workers, nil if there is none.
func (p *Program) spawner() *Func {
	for _, f := range p.Funcs {
		if len(f.spawns) > 0 {
			return f
		}
	}
	return nil
}

// worker picks a worker that spawn starts, nil if there is none.
func (q *qgen) worker() *Func {
	s := q.p.spawner()
	if s == nil {
		return nil
	}
	return q.pickFrom(s.spawns)
}

func (q *qgen) spawns() bool {
	w := q.worker()
	if w == nil {
		return false
	}
	n := q.name("spawns")
	q.question(n, `(defquestion %s :definition
  ((w v) s.t. (exists (s) (and (function-execution s %s) (function-execution w %s) (spawns s w) (parameter w 1 v)))))`, n, lit(q.p.spawner()), lit(w))
	return true
}

// goCount asks for the goroutines spawn starts, by the function each
// starts (what is known at their begin: their ends may come after main
// returned).
func (q *qgen) goCount() bool {
	if q.p.spawner() == nil {
		return false
	}
	n := q.name("go-count")
	q.question(n, `(defquestion %s :definition
  ((g f) s.t. (exists (s) (and (function-execution s %s) (goroutine-execution g f) (spawns s g)))))`, n, lit(q.p.spawner()))
	return true
}

// goFirst relates a worker's goroutine to its first execution, on it,
// by their begins.
func (q *qgen) goFirst() bool {
	w := q.worker()
	if w == nil {
		return false
	}
	n := q.name("go-first")
	q.question(n, `(defquestion %s :definition
  ((w v) s.t. (exists (g p b) (and (goroutine-execution g %s) (function-execution w %s) (same-goroutine g w)
                                   (begin p g) (begin b w) (before p b) (parameter w 1 v)))))`, n, lit(w), lit(w))
	return true
}

// goOn asks for the executions of a function a worker reaches on its
// goroutine, by (contains g x): the goroutine's end may come after main
// returned (the last spawn's workers end after their wg.Done, as the
// scheduler decides), and a goroutine that never ended contains what
// began after it and ended (docs/LANGUAGE.md). pmm's views once said it
// contained nothing (seed 10's go-on differed so once under load);
// TestGoroutineQuestionsWorkersOutliveMain forces every worker to outlive
// main.
func (q *qgen) goOn() bool {
	w := q.worker()
	if w == nil {
		return false
	}
	r := reach(w)
	if len(r) == 0 {
		return false
	}
	x := q.pickFrom(r)
	n := q.name("go-on")
	q.question(n, `(defquestion %s :definition
  ((x) s.t. (exists (g) (and (goroutine-execution g %s) (function-execution x %s) (contains g x) (same-goroutine g x)))))`, n, lit(w), lit(x))
	return true
}

func (q *qgen) contains() bool {
	a := q.pick(func(f *Func) bool { return !f.InGo && len(reach(f)) > 0 })
	if a == nil {
		return false
	}
	r := reachNoWorkers(a)
	if len(r) == 0 {
		return false
	}
	b := q.pickFrom(r)
	n := q.name("contains")
	q.question(n, `(defquestion %s :definition
  ((y) s.t. (exists (x) (and (function-execution x %s) (function-execution y %s) (contains x y)))))`, n, lit(a), lit(b))
	return true
}

// negation: the executions of a function that do not call (directly or
// not) some function, or one with a given parameter.
func (q *qgen) negation() bool {
	a, b := q.callEdge(func(a, b *Func) bool { return !a.Worker })
	if a == nil {
		return false
	}
	rel := "calls"
	if q.p.Features.CallsStar && q.r.Intn(2) == 0 {
		rel = "calls*"
	}
	n := q.name("not-" + strings.TrimSuffix(rel, "*") + map[bool]string{true: "-star"}[rel == "calls*"])
	if q.p.Features.NotCalledBy && q.r.Intn(3) == 0 {
		// The other direction: the executions of b not called by an a
		// (for a recursive function, those called from elsewhere).
		n := q.name("not-called-by")
		q.question(n, `(defquestion %s :definition
  ((y) s.t. (and (function-execution y %s)
                 (not (exists (x) (and (function-execution x %s) (calls x y)))))))`, n, lit(b), lit(a))
		return true
	}
	if k := q.param(b, Int); k > 0 && q.r.Intn(2) == 0 {
		q.question(n, `(defquestion %s :definition
  ((x) s.t. (and (function-execution x %s)
                 (not (exists (y v) (and (function-execution y %s) (%s x y) (parameter y %d v) (= v %d)))))))`, n, lit(a), lit(b), rel, k, q.r.Intn(3))
		return true
	}
	q.question(n, `(defquestion %s :definition
  ((x) s.t. (and (function-execution x %s)
                 (not (exists (y) (and (function-execution y %s) (%s x y)))))))`, n, lit(a), lit(b), rel)
	return true
}

// cache is the seed's question: the calls of G from one execution of F
// that repeat the arguments of an earlier one.
func (q *qgen) cache() bool {
	a, b := q.callEdge(func(a, b *Func) bool { return a.callCount[b] > 1 && !a.Worker && !b.Worker && a != b })
	if a == nil {
		return false
	}
	n := q.name("cache")
	q.define(`(defevent %s :definition
  ((g2) s.t. (exists (f g1 args)
               (and (function-execution f %s) (function-execution g1 %s) (function-execution g2 %s)
                    (calls f g1) (calls f g2) (before g1 g2)
                    (parameters g1 args) (parameters g2 args)))))`, n+"-ev", lit(a), lit(b), lit(b))
	q.question(n, "(defquestion %s :definition ((g) s.t. (%s g)))", n, n+"-ev")
	c := q.name("cache-count")
	q.question(c, "(defquestion %s :definition (count %s (output)))", c, n)
	return true
}

func (q *qgen) panicked() bool {
	f := q.pick(func(f *Func) bool { return !f.Worker && (f.panics || q.r.Intn(4) == 0) })
	if f == nil {
		return false
	}
	n := q.name("panicked")
	if len(f.Params) > 0 && q.r.Intn(2) == 0 {
		q.question(n, `(defquestion %s :definition
  ((v) s.t. (exists (x b) (and (function-execution x %s) (panicked x b) (= b true) (parameter x 1 v)))))`, n, lit(f))
		return true
	}
	q.question(n, `(defquestion %s :definition
  ((x) s.t. (exists (b) (and (function-execution x %s) (panicked x b) (= b %v)))))`, n, lit(f), q.r.Intn(3) > 0)
	return true
}

// either is a derived event defined with or, grouped by a parameter.
func (q *qgen) either() bool {
	a := q.pick(func(f *Func) bool { return len(f.Params) > 0 && f.Params[0] == Int })
	b := q.pick(func(f *Func) bool { return len(f.Params) > 0 && f.Params[0] == Int })
	if a == nil || a == b {
		return false
	}
	n := q.name("either")
	q.define("(defevent %s :definition ((x) s.t. (or (function-execution x %s) (function-execution x %s))))", n+"-ev", lit(a), lit(b))
	q.define("(defquestion %s :definition ((x v) s.t. (and (%s x) (parameter x 1 v))))", n+"-rel", n+"-ev")
	q.question(n, "(defquestion %s :definition (count %s (output input)))", n, n+"-rel")
	return true
}

// calleeNames counts the direct callees of a function by name: not of
// main or the spawner, nor of a function that locks a mutex or
// allocates, which call the standard library (fmt, sync, sync/atomic),
// which the twin does not trace.
func (q *qgen) calleeNames() bool {
	a := q.pick(func(f *Func) bool {
		return !f.Worker && len(f.callees) > 0 && f.Name != "main.main" && len(f.spawns) == 0 && !f.callsSync()
	})
	if a == nil {
		return false
	}
	n := q.name("callee-names")
	callee := "(function-execution y fn)"
	if q.n%2 == 0 {
		callee = "(function-invocation y) (function-name y fn)" // seed A.1
	}
	q.question(n+"-rel", `(defquestion %s :definition
  ((y fn) s.t. (exists (x) (and (function-execution x %s) %s (calls x y)))))`, n+"-rel", lit(a), callee)
	q.question(n, "(defquestion %s :definition (count %s (output input)))", n, n+"-rel")
	return true
}

// region returns a function satisfying ok that has regions, and one of
// its labels; nil when there is none.
func (q *qgen) region(ok func(*Func) bool) (*Func, string) {
	f := q.pick(func(f *Func) bool { return len(f.regions) > 0 && ok(f) })
	if f == nil {
		return nil, ""
	}
	return f, f.regions[q.r.Intn(len(f.regions))].label
}

// regionCount counts the executions of one region, or of every region by
// function and label.
func (q *qgen) regionCount() bool {
	f, l := q.region(any_)
	if f == nil {
		return false
	}
	n := q.name("region-count")
	if q.r.Intn(2) == 0 {
		q.define("(defevent %s :definition ((r f l) s.t. (region-execution r f l)))", n+"-ev")
		q.question(n, "(defquestion %s :definition (count %s (output input input)))", n, n+"-ev")
		return true
	}
	q.define("(defevent %s :definition ((r) s.t. (region-execution r %s %q)))", n+"-ev", lit(f), l)
	q.question(n, "(defquestion %s :definition (count %s (output)))", n, n+"-ev")
	return true
}

// mainCaller picks a function that never runs on a spawned goroutine
// such that it, or a function it calls, directly or not, satisfies has;
// and returns it with those functions (it among them). nil if none.
func (q *qgen) mainCaller(has func(*Func) bool) (*Func, map[*Func]bool) {
	a := q.pick(func(a *Func) bool {
		if a.InGo || a.Worker {
			return false
		}
		for f := range reach(a) {
			if has(f) {
				return true
			}
		}
		return has(a)
	})
	if a == nil {
		return nil, nil
	}
	r := reach(a)
	r[a] = true
	return a, r
}

// regionIn relates the executions of a function that never runs on a
// spawned goroutine to the regions of it or of a function it calls,
// directly or not, that run inside them (or on their goroutine): by the
// function's parameter and the region's label.
func (q *qgen) regionIn() bool {
	a, r := q.mainCaller(func(f *Func) bool { return len(f.regions) > 0 })
	if a == nil {
		return false
	}
	f, _ := q.region(func(f *Func) bool { return r[f] })
	rel, kind := "contains", "region-in"
	if q.r.Intn(3) == 0 {
		rel, kind = "same-goroutine", "region-same-g"
	}
	n := q.name(kind)
	if len(a.Params) > 0 {
		q.question(n, `(defquestion %s :definition
  ((v l) s.t. (exists (x r) (and (function-execution x %s) (parameter x 1 v) (region-execution r %s l) (%s x r)))))`, n, lit(a), lit(f), rel)
		return true
	}
	q.define(`(defevent %s :definition
  ((r l) s.t. (exists (x) (and (function-execution x %s) (region-execution r %s l) (%s x r)))))`, n+"-ev", lit(a), lit(f), rel)
	q.question(n, "(defquestion %s :definition (count %s (output input)))", n, n+"-ev")
	return true
}

// regionBefore relates a region of a function to its callees in one
// execution: those that begin after the region ended, or end before it
// began. The function never runs on a spawned goroutine.
func (q *qgen) regionBefore() bool {
	f, l := q.region(func(f *Func) bool { return !f.InGo })
	if f == nil {
		return false
	}
	callees := maps.Clone(f.callees)
	q.noOwnDefers(f, callees)
	if len(callees) == 0 {
		return false
	}
	g := q.pickFrom(callees)
	before := "(before r y)"
	if q.r.Intn(3) == 0 {
		before = "(before y r)"
	}
	n := q.name("region-before")
	q.define(`(defevent %s :definition
  ((r y) s.t. (exists (x) (and (function-execution x %s) (region-execution r %s %q) (function-execution y %s)
                               (contains x r) (calls x y) %s))))`, n+"-ev", lit(f), lit(f), l, lit(g), before)
	q.question(n, "(defquestion %s :definition (count %s (output output)))", n, n+"-ev")
	return true
}

// noOwnDefers removes f's deferred closure that recovers from fs, unless
// the features let the templates relate a region to it.
func (q *qgen) noOwnDefers(f *Func, fs map[*Func]bool) {
	if !q.p.Features.RegionDefers {
		delete(fs, f.recovFn)
	}
}

// regionContains counts, by label, what the regions of a function that
// never runs on a spawned goroutine contain: the executions of another
// of its regions, or of a function it calls, directly or not.
func (q *qgen) regionContains() bool {
	f, l := q.region(func(f *Func) bool { return !f.InGo })
	if f == nil {
		return false
	}
	n := q.name("region-contains")
	if len(f.regions) > 1 && q.r.Intn(2) == 0 {
		// Mostly a region with regions inside.
		for _, o := range f.regions {
			if len(o.inner) > 0 && q.r.Intn(3) > 0 {
				l = o.label
				break
			}
		}
		q.define(`(defevent %s :definition
  ((o i l) s.t. (and (region-execution o %s %q) (region-execution i %s l) (contains o i))))`, n+"-ev", lit(f), l, lit(f))
		q.question(n, "(defquestion %s :definition (count %s (output output input)))", n, n+"-ev")
		return true
	}
	// Mostly what one of its regions calls, directly or not.
	r := reachNoWorkers(f)
	if q.r.Intn(4) > 0 {
		in := map[*Func]bool{}
		for c := range f.regions[q.r.Intn(len(f.regions))].callees {
			in[c] = true
			maps.Copy(in, reachNoWorkers(c))
		}
		if len(in) > 0 {
			r = in
		}
	}
	q.noOwnDefers(f, r)
	if len(r) == 0 {
		return false
	}
	g := q.pickFrom(r)
	q.define(`(defevent %s :definition
  ((r y l) s.t. (and (region-execution r %s l) (function-execution y %s) (contains r y))))`, n+"-ev", lit(f), lit(g))
	q.question(n, "(defquestion %s :definition (count %s (output output input)))", n, n+"-ev")
	return true
}
