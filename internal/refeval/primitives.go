package refeval

import (
	"math"
	"slices"
	"sort"
	"strings"

	"pmm.dev/pmm/internal/funcname"
	"pmm.dev/pmm/internal/reftrace"
	"pmm.dev/pmm/spec"
)

// cost estimates how many bindings evaluating f with the variables bound
// so far tries; ok is false when f cannot be evaluated yet (a comparison
// or negation over unbound variables).
func (e *evaluator) cost(f spec.Formula) (float64, bool) {
	n := float64(len(e.tr.Execs) + 1)
	a, isAtom := f.(*spec.AtomF)
	if _, neg := f.(*spec.Not); neg || !isAtom || e.defs[a.Pred] != nil {
		free := e.freeVars(f)
		switch unbound := len(e.unbound(free)); {
		case unbound == 0:
			return 2, true
		case neg:
			return 0, false
		case unbound < len(free):
			return 10, true
		}
		return n, true
	}
	p := spec.Lookup(a.Pred)
	if p == nil {
		return 0, false // primitive reports the unknown name
	}
	var bound []bool
	all := true
	for _, t := range a.Args {
		bound = append(bound, e.bound(t))
		all = all && bound[len(bound)-1]
	}
	if p.Kind == spec.ValueRelation {
		switch {
		case all:
			return 0, true
		case a.Pred == "=" && (isNilLit(a.Args[0]) || isNilLit(a.Args[1])):
			// (= v nil) tests v; it binds v only when nothing else can,
			// since nil equals no value an attribute yields.
			return 100 * n * n, true
		case a.Pred == "=" && (bound[0] || bound[1]):
			return 1, true
		}
		return 0, false
	}
	if all {
		return 0.1, true
	}
	switch a.Pred {
	case spec.TypeFunctionExecution, "function-name":
		switch {
		case bound[0]:
			return 1, true
		case bound[1]:
			if v, _ := e.term(a.Args[1]); v.kind == vString {
				return float64(len(e.byFunc[funcname.Key(v.s)])), true
			}
			return 0.1, true
		}
		return n, true
	case spec.TypeRegionExecution, spec.TypeIteration:
		all, by := e.regions, e.byRegion
		if a.Pred == spec.TypeIteration {
			all, by = e.iters, e.byIter
		}
		switch {
		case bound[0]:
			return 1, true
		case bound[1] && bound[2]:
			f, _ := e.term(a.Args[1])
			l, _ := e.term(a.Args[2])
			return float64(len(by[regionKey(f.s, l.s)])), true
		}
		return float64(len(all) + 1), true
	case spec.TypeBlocking:
		return e.byNameCost(a, bound, e.byOpFunc, e.ops), true
	case spec.TypeGoroutine:
		return e.byNameCost(a, bound, e.byGoFunc, e.gors), true
	case spec.TypeAllocation:
		return e.byNameCost(a, bound, e.byAlFunc, e.tr.Allocs), true
	case "calls", "spawns":
		return pick(bound, 2, 1, n), true
	case "calls*":
		return pick(bound, 10, 3, 3*n), true
	case "before", "contains", "same-goroutine":
		return pick(bound, 3*n, 3*n, 9*n*n), true
	}
	if bound[0] { // begin, end and the attributes of a bound execution
		return 1, true
	}
	return n, true
}

// byNameCost is the cost of an event type atom a whose second argument
// is a function name: its events are all, and by name in by.
func (e *evaluator) byNameCost(a *spec.AtomF, bound []bool, by map[string][]*reftrace.Execution, all []*reftrace.Execution) float64 {
	switch {
	case bound[0]:
		return 1
	case bound[1]:
		f, _ := e.term(a.Args[1])
		return float64(len(by[funcname.Key(f.s)]))
	}
	return float64(len(all) + 1)
}

// pick is the cost of a binary relation with its first argument bound,
// its second, or neither.
func pick(bound []bool, first, second, neither float64) float64 {
	switch {
	case bound[0]:
		return first
	case bound[1]:
		return second
	}
	return neither
}

// primitive evaluates an atom of a primitive of the vocabulary.
func (e *evaluator) primitive(a *spec.AtomF, k func() bool) bool {
	args := a.Args
	switch a.Pred {
	case "=", "/=", "<", "<=", ">", ">=":
		return e.comparison(a.Pred, args[0], args[1], k)
	case spec.TypeFunctionExecution, "function-name":
		// Seed A.1: function-execution is function-invocation with
		// function-name; the name is the one attribute of an invocation.
		return e.functionExecution(args[0], args[1], k)
	case spec.TypeRegionExecution:
		return e.regionExecution(args[0], args[1], args[2], k)
	case spec.TypeIteration:
		return e.iteration(args[0], args[1], args[2], k)
	case spec.TypeBlocking:
		return e.blocking(args[0], args[1], args[2], args[3], k)
	case spec.TypeGoroutine:
		return e.goroutine(args[0], args[1], k)
	case spec.TypeAllocation:
		return e.allocation(args[0], args[1], args[2], args[3], k)
	case "function-invocation", "interval":
		// Every execution of a function is an invocation of it; interval
		// is defined by function-execution (its row's Definition), so
		// the executions of regions, iterations and blocking operations
		// are not among its events.
		return e.eachExec(args[0], e.funcs, func(c *reftrace.Execution) bool {
			return !c.IsFunc() || e.unify(args[0], execValue(c), k)
		})
	case spec.TypePoint:
		return e.anyPoint(args[0], k)
	case "begin", "end":
		return e.point(args[0], args[1], a.Pred == "end", k)
	case "parameters", "return-values", "goroutine", "panicked", "iteration-index", "select-case", "operation-blocked",
		"allocation-elements", "allocation-bytes", "allocation-heap-bytes":
		return e.attribute(args[0], args[1], func(x *reftrace.Execution) (value, bool) { return attribute(a.Pred, x, 0) }, k)
	case "blocked":
		// Defined by its row as (operation-blocked b true).
		yes := spec.Term{Pos: args[0].Pos, Lit: &spec.Literal{Kind: spec.LitBool, Bool: true}}
		return e.attribute(args[0], yes, func(x *reftrace.Execution) (value, bool) { return attribute("operation-blocked", x, 0) }, k)
	case spec.AttrCallingContext:
		return e.attribute(args[0], args[1], e.callingContext, k)
	case "parameter", "return-value":
		n := args[1].Lit.Int
		return e.attribute(args[0], args[2], func(x *reftrace.Execution) (value, bool) { return attribute(a.Pred, x, n) }, k)
	case "allocation-account":
		patterns, err := spec.AccountPatterns(args[1].Lit.Str)
		if err != nil {
			fail("%s: %v", a.Pred, err)
		}
		return e.attribute(args[0], args[2], func(x *reftrace.Execution) (value, bool) {
			return value{kind: vString, s: e.account(patterns, x)}, x.IsAllocation()
		}, k)
	case "reachable-objects", "reachable-bytes":
		return e.walk(a.Pred == "reachable-bytes", args[0], args[1].Lit.Str, args[2].Lit.Str, args[3], k)
	}
	if r, ok := controls[a.Pred]; ok {
		return e.control(r, args[0], args[1], k)
	}
	fail("the reference evaluator cannot evaluate %s", a.Pred)
	return false
}

// comparison evaluates (op a b). = binds an unbound side to the other;
// the other comparisons need both sides bound. A nil literal tests for
// nil ((= v nil), (/= v nil)); otherwise nil makes a comparison false.
func (e *evaluator) comparison(op string, a, b spec.Term, k func() bool) bool {
	x, xok := e.term(a)
	y, yok := e.term(b)
	if op == "=" && xok != yok {
		if xok {
			return e.unify(b, x, k)
		}
		return e.unify(a, y, k)
	}
	if !xok || !yok {
		fail("%s compares an unbound variable", op)
	}
	var holds bool
	switch {
	case isNilLit(a) || isNilLit(b):
		isNil := x.kind == vNil && y.kind == vNil
		holds = op == "=" && isNil || op == "/=" && !isNil
	case x.kind == vNil || y.kind == vNil:
	case op == "=":
		holds = equal(x, y)
	case op == "/=":
		holds = !equal(x, y)
	default:
		c, ok := compare(x, y)
		holds = ok && (op == "<" && c < 0 || op == "<=" && c <= 0 || op == ">" && c > 0 || op == ">=" && c >= 0)
	}
	if !holds {
		return true
	}
	return k()
}

func isNilLit(t spec.Term) bool { return t.Lit != nil && t.Lit.Kind == spec.LitNil }

// functionExecution evaluates (function-execution x name).
func (e *evaluator) functionExecution(x, name spec.Term, k func() bool) bool {
	return e.named(x, name, (*reftrace.Execution).IsFunc, e.funcs, e.byFunc, k)
}

// named binds x to an execution that is (is) of the function called
// name: one of all, or of by[funcname.Key(name)] when name is bound.
func (e *evaluator) named(x, name spec.Term, is func(*reftrace.Execution) bool,
	all []*reftrace.Execution, by map[string][]*reftrace.Execution, k func() bool) bool {
	nameOf := func(c *reftrace.Execution) bool {
		if !is(c) {
			return true
		}
		return e.unify(x, execValue(c), func() bool {
			return e.unifyName(name, c.Func, k)
		})
	}
	candidates := all
	if v, ok := e.term(name); ok {
		if v.kind != vString {
			return true
		}
		candidates = by[funcname.Key(v.s)]
	}
	return e.eachExec(x, candidates, nameOf)
}

// regionKey identifies a region by its function (funcname.Key) and label.
func regionKey(fn, label string) string { return funcname.Key(fn) + "\x00" + label }

// regionExecution evaluates (region-execution r name label): r is an
// execution of the region labeled label in the body of the function
// called name. A bound name matches as function-execution's does; an
// unbound one is bound to the function's name as the trace holds it.
func (e *evaluator) regionExecution(r, name, label spec.Term, k func() bool) bool {
	return e.labeled(r, name, label, (*reftrace.Execution).IsRegion, e.regions, e.byRegion, k)
}

// iteration evaluates (loop-iteration i name label): i is an iteration of
// the loop region labeled label of the function called name; names
// match as in regionExecution.
func (e *evaluator) iteration(i, name, label spec.Term, k func() bool) bool {
	return e.labeled(i, name, label, (*reftrace.Execution).IsIteration, e.iters, e.byIter, k)
}

// labeled binds x to an execution that is (is) of the region labeled label
// of the function called name: one of all, or of by[regionKey] when name
// and label are bound.
func (e *evaluator) labeled(x, name, label spec.Term, is func(*reftrace.Execution) bool,
	all []*reftrace.Execution, by map[string][]*reftrace.Execution, k func() bool) bool {
	of := func(c *reftrace.Execution) bool {
		if !is(c) {
			return true
		}
		return e.unify(x, execValue(c), func() bool {
			return e.unifyName(name, c.Func, func() bool {
				return e.unify(label, value{kind: vString, s: c.Label}, k)
			})
		})
	}
	candidates := all
	v, nameOK := e.term(name)
	l, labelOK := e.term(label)
	if nameOK && labelOK {
		if v.kind != vString || l.kind != vString {
			return true
		}
		candidates = by[regionKey(v.s, l.s)]
	}
	return e.eachExec(x, candidates, of)
}

// blocking evaluates (blocking-operation b name kind operand): b is an
// operation of kind kind on operand (as written; "" for a select) in the
// body of the function called name, which matches as in
// function-execution.
func (e *evaluator) blocking(b, name, kind, operand spec.Term, k func() bool) bool {
	return e.namedWith(b, name, kind, operand, (*reftrace.Execution).IsBlocking, e.ops, e.byOpFunc,
		func(c *reftrace.Execution) (string, string) { return c.Op, c.Operand }, k)
}

// namedWith binds x to an event that is (is) in the body of the function
// called name, which matches as in function-execution, and s1 and s2 to
// the two strings fields gives of it: one of all, or of
// by[funcname.Key(name)] when name is bound.
func (e *evaluator) namedWith(x, name, s1, s2 spec.Term, is func(*reftrace.Execution) bool,
	all []*reftrace.Execution, by map[string][]*reftrace.Execution, fields func(*reftrace.Execution) (string, string), k func() bool) bool {
	of := func(c *reftrace.Execution) bool {
		if !is(c) {
			return true
		}
		f1, f2 := fields(c)
		return e.unify(x, eventValue(c), func() bool {
			return e.unifyName(name, c.Func, func() bool {
				return e.unify(s1, value{kind: vString, s: f1}, func() bool {
					return e.unify(s2, value{kind: vString, s: f2}, k)
				})
			})
		})
	}
	candidates := all
	if v, ok := e.term(name); ok {
		if v.kind != vString {
			return true
		}
		candidates = by[funcname.Key(v.s)]
	}
	return e.eachExec(x, candidates, of)
}

// goroutine evaluates (goroutine-execution g name): g is a goroutine a go
// statement started with the function called name, which matches as in
// function-execution.
func (e *evaluator) goroutine(g, name spec.Term, k func() bool) bool {
	return e.named(g, name, (*reftrace.Execution).IsGoroutine, e.gors, e.byGoFunc, k)
}

// allocation evaluates (allocation a name kind type): a is a heap
// allocation of kind kind and Go type type at a site in the body of the
// function called name, which matches as in function-execution; a is a
// point (eventValue).
func (e *evaluator) allocation(a, name, kind, typ spec.Term, k func() bool) bool {
	return e.namedWith(a, name, kind, typ, (*reftrace.Execution).IsAllocation, e.tr.Allocs, e.byAlFunc,
		func(c *reftrace.Execution) (string, string) { return c.Alloc, c.Type }, k)
}

// eventValue is the value of an execution, or of an allocation: a point.
func eventValue(x *reftrace.Execution) value {
	if x.IsAllocation() {
		return pointValue(x, false)
	}
	return execValue(x)
}

// eachExec calls of with the execution (or allocation) x is bound to, or,
// x unbound, with each of candidates, until of returns false.
func (e *evaluator) eachExec(x spec.Term, candidates []*reftrace.Execution, of func(*reftrace.Execution) bool) bool {
	if v, ok := e.term(x); ok {
		return !(v.kind == vExec || v.kind == vPoint && v.exec.IsAllocation()) || of(v.exec)
	}
	for _, c := range candidates {
		if !of(c) {
			return false
		}
	}
	return true
}

// unifyName makes the function name term t name fn: a bound t names it
// when the two are equal without type arguments (funcname.Key); an unbound
// one is bound to fn as the trace holds it.
func (e *evaluator) unifyName(t spec.Term, fn string, k func() bool) bool {
	v, ok := e.term(t)
	if !ok {
		return e.unify(t, value{kind: vString, s: fn}, k)
	}
	if v.kind == vString && funcname.Key(v.s) == funcname.Key(fn) {
		return k()
	}
	return true
}

// point evaluates (begin p x) or (end p x): an execution that never ended
// has no end point.
func (e *evaluator) point(p, x spec.Term, end bool, k func() bool) bool {
	of := func(c *reftrace.Execution) bool {
		if end && !c.Ended || c.IsAllocation() {
			return true
		}
		return e.unify(x, execValue(c), func() bool { return e.unify(p, pointValue(c, end), k) })
	}
	if v, ok := e.term(p); ok && !e.bound(x) {
		return v.kind != vPoint || v.end != end || of(v.exec)
	}
	return e.eachExec(x, e.tr.Execs, of)
}

// anyPoint evaluates (point p): the begin point of every execution of a
// function and the end point of every one that ended (point's row
// defines it by function-execution: the points of regions, iterations
// and blocking operations are not among them).
func (e *evaluator) anyPoint(p spec.Term, k func() bool) bool {
	if v, ok := e.term(p); ok {
		if v.kind != vPoint || !v.exec.IsFunc() {
			return true
		}
		return k()
	}
	for _, c := range e.funcs {
		if !e.unify(p, pointValue(c, false), k) {
			return false
		}
		if c.Ended && !e.unify(p, pointValue(c, true), k) {
			return false
		}
	}
	return true
}

// attribute evaluates an attribute atom: v is get(x), where get reports
// whether x (an execution or an allocation) has the attribute.
func (e *evaluator) attribute(x, v spec.Term, get func(*reftrace.Execution) (value, bool), k func() bool) bool {
	of := func(c *reftrace.Execution) bool {
		a, ok := get(c)
		if !ok {
			return true
		}
		return e.unify(x, eventValue(c), func() bool { return e.unify(v, a, k) })
	}
	if e.bound(x) {
		return e.eachExec(x, nil, of)
	}
	return e.eachExec(x, e.tr.Execs, of) && e.eachExec(x, e.tr.Allocs, of)
}

// walk evaluates (reachable-objects p expr type n) or, bytes true,
// (reachable-bytes p expr type n): the heap walk from expr by type at
// point p (of a function's execution, or an allocation), or at the
// begin point of the execution p, as the trace records it. A point
// without that walk (the expression does not compile there) has no
// value.
func (e *evaluator) walk(bytes bool, p spec.Term, expr, typ string, n spec.Term, k func() bool) bool {
	at := func(c *reftrace.Execution, end bool, pv value) bool {
		for _, w := range c.Walks[b2i(end)] {
			if w.Expr == expr && w.Type == typ {
				v := w.Objects
				if bytes {
					v = w.Bytes
				}
				return e.unify(p, pv, func() bool { return e.unify(n, value{kind: vInt, i: v}, k) })
			}
		}
		return true
	}
	if pv, ok := e.term(p); ok {
		if (pv.kind == vExec || pv.kind == vPoint) && pv.exec.IsFunc() || pv.kind == vPoint && pv.exec.IsAllocation() {
			return at(pv.exec, pv.kind == vPoint && pv.end, pv)
		}
		return true
	}
	for _, c := range e.funcs {
		if !at(c, false, execValue(c)) || !at(c, false, pointValue(c, false)) || c.Ended && !at(c, true, pointValue(c, true)) {
			return false
		}
	}
	for _, a := range e.tr.Allocs {
		if !at(a, false, pointValue(a, false)) {
			return false
		}
	}
	return true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// attribute returns the attribute attr of x (n is the position of
// parameter and return-value, from 1). Results and panicked are known
// only when x ended; an execution that panicked returned nothing, so it
// has no results (neither the list nor any position). A region's
// execution has only a goroutine; an iteration has its index too, and a
// blocking operation its select-case (known at its end for a select,
// -1 for another kind); an allocation has its goroutine, elements,
// requested bytes and heap bytes.
func attribute(attr string, x *reftrace.Execution, n int64) (value, bool) {
	switch {
	case attr == "goroutine":
		return value{kind: vInt, i: x.Goroutine}, true
	case attr == "iteration-index":
		return value{kind: vInt, i: x.Index}, x.IsIteration()
	case attr == "select-case":
		return value{kind: vInt, i: x.Case}, x.IsBlocking() && (x.Op != "select" || x.Ended)
	case attr == "operation-blocked":
		return value{kind: vBool, i: int64(b2i(x.Blocked))}, x.IsBlocking() && x.Tried
	case attr == "allocation-elements":
		return value{kind: vInt, i: x.Elements}, x.IsAllocation()
	case attr == "allocation-bytes":
		return value{kind: vInt, i: x.Bytes}, x.IsAllocation()
	case attr == "allocation-heap-bytes":
		return value{kind: vInt, i: x.HeapBytes}, x.IsAllocation()
	case !x.IsFunc():
		return value{}, false
	}
	returned := x.Ended && !x.Panicked
	switch attr {
	case "parameters":
		return listValue(x.Params), true
	case "parameter":
		if n >= 1 && n <= int64(len(x.Params)) {
			return fromTrace(x.Params[n-1]), true
		}
	case "return-values":
		if returned {
			return listValue(x.Results), true
		}
	case "return-value":
		if returned && n >= 1 && n <= int64(len(x.Results)) {
			return fromTrace(x.Results[n-1]), true
		}
	case "panicked":
		if x.Ended {
			return fromTrace(x.Panicked), true
		}
	}
	return value{}, false
}

// callingContext returns the calling context of x, a function's
// execution or an allocation (docs/LANGUAGE.md, "Calling contexts"): the
// functions of the executions from its goroutine's root to it, through
// their callers (on one goroutine), joined by ";": an execution's own
// function last, an allocation's that of the execution it is in.
func (e *evaluator) callingContext(x *reftrace.Execution) (value, bool) {
	for x != nil && !x.IsFunc() && x.In != 0 {
		x = e.tr.ByID[x.In] // an allocation's execution, a region's function's
	}
	if x == nil || !x.IsFunc() {
		return value{}, false
	}
	var names []string
	for c := x; c != nil; c = e.tr.ByID[c.Caller] {
		names = append(names, c.Func)
	}
	slices.Reverse(names)
	return value{kind: vString, s: strings.Join(names, ";")}, true
}

// control is a control relation between two events: holds decides it;
// from (to) lists candidates for the second (first) argument given the
// first (second), a superset of those for which it holds; domain lists
// the candidates for the first when neither is bound.
type control struct {
	holds  func(e *evaluator, a, b value) bool
	from   func(e *evaluator, a value) []value
	to     func(e *evaluator, b value) []value
	domain func(e *evaluator) []value
}

var controls = map[string]control{
	"calls": parentOf(func(x *reftrace.Execution) int64 { return x.Caller },
		func(e *evaluator) map[int64][]*reftrace.Execution { return e.children }),
	"calls*": {
		holds: func(e *evaluator, a, b value) bool {
			if a.kind != vExec || b.kind != vExec {
				return false
			}
			for c := e.tr.ByID[b.exec.Caller]; c != nil; c = e.tr.ByID[c.Caller] {
				if c == a.exec {
					return true
				}
			}
			return false
		},
		from: func(e *evaluator, a value) []value {
			var out []value
			// A copy: popping and pushing on the index's own slice would
			// overwrite the children of a.exec for later questions.
			stack := slices.Clone(e.children[a.exec.ID])
			for len(stack) > 0 {
				c := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				out = append(out, execValue(c))
				stack = append(stack, e.children[c.ID]...)
			}
			return out
		},
		to: func(e *evaluator, b value) []value {
			var out []value
			for c := e.tr.ByID[b.exec.Caller]; c != nil; c = e.tr.ByID[c.Caller] {
				out = append(out, execValue(c))
			}
			return out
		},
		domain: allExecs,
	},
	"spawns": parentOf(func(x *reftrace.Execution) int64 { return x.Spawner },
		func(e *evaluator) map[int64][]*reftrace.Execution { return e.spawned }),
	"before": {
		holds: func(e *evaluator, a, b value) bool {
			end, ok := a.seq(false)
			begin, _ := b.seq(true)
			return ok && end < begin
		},
		from: func(e *evaluator, a value) []value {
			if end, ok := a.seq(false); ok {
				return e.beganIn(end, math.MaxInt64)
			}
			return nil
		},
		to: func(e *evaluator, b value) []value {
			begin, _ := b.seq(true)
			return e.endedBefore(begin)
		},
		domain: (*evaluator).allEvents,
	},
	"contains": {
		holds: func(e *evaluator, a, b value) bool {
			if a.kind != vExec {
				return false
			}
			begin, _ := b.seq(true)
			end, ended := b.seq(false)
			return a.exec.BeginSeq < begin && ended && (!a.exec.Ended || end < a.exec.EndSeq)
		},
		from: func(e *evaluator, a value) []value {
			if a.kind != vExec {
				return nil
			}
			if end, ok := a.seq(false); ok {
				return e.beganIn(a.exec.BeginSeq, end)
			}
			return e.beganIn(a.exec.BeginSeq, math.MaxInt64)
		},
		to: func(e *evaluator, b value) []value {
			begin, _ := b.seq(true)
			execs := allExecs(e) // in order of their begin
			return execs[:sort.Search(len(execs), func(i int) bool { return execs[i].exec.BeginSeq >= begin })]
		},
		domain: allExecs,
	},
	"same-goroutine": {
		holds:  func(e *evaluator, a, b value) bool { return a.exec.Goroutine == b.exec.Goroutine },
		from:   func(e *evaluator, a value) []value { return eventsOf(e.byG[a.exec.Goroutine]) },
		to:     func(e *evaluator, b value) []value { return eventsOf(e.byG[b.exec.Goroutine]) },
		domain: (*evaluator).allEvents,
	},
}

// parentOf is the relation (rel a b) that holds when parent(b) is a's id:
// calls (the caller) and spawns (the spawner); index lists the executions
// by parent.
func parentOf(parent func(*reftrace.Execution) int64, index func(*evaluator) map[int64][]*reftrace.Execution) control {
	return control{
		holds: func(e *evaluator, a, b value) bool {
			return a.kind == vExec && b.kind == vExec && parent(b.exec) == a.exec.ID
		},
		from:   func(e *evaluator, a value) []value { return execValues(index(e)[a.exec.ID]) },
		to:     func(e *evaluator, b value) []value { return e.execsByID(parent(b.exec)) },
		domain: allExecs,
	}
}

// control evaluates (rel a b).
func (e *evaluator) control(r control, a, b spec.Term, k func() bool) bool {
	av, aok := e.term(a)
	bv, bok := e.term(b)
	if aok && !av.isEvent() || bok && !bv.isEvent() {
		return true
	}
	try := func(x, y value) bool {
		if !r.holds(e, x, y) {
			return true
		}
		return e.unify(a, x, func() bool { return e.unify(b, y, k) })
	}
	switch {
	case aok && bok:
		return try(av, bv)
	case aok:
		for _, y := range r.from(e, av) {
			if !try(av, y) {
				return false
			}
		}
	case bok:
		for _, x := range r.to(e, bv) {
			if !try(x, bv) {
				return false
			}
		}
	default:
		for _, x := range r.domain(e) {
			for _, y := range r.from(e, x) {
				if !try(x, y) {
					return false
				}
			}
		}
	}
	return true
}

func (e *evaluator) execsByID(id int64) []value {
	if c := e.tr.ByID[id]; c != nil && id != 0 {
		return []value{execValue(c)}
	}
	return nil
}

func execValues(xs []*reftrace.Execution) []value {
	out := make([]value, len(xs))
	for i, x := range xs {
		out[i] = execValue(x)
	}
	return out
}

func allExecs(e *evaluator) []value {
	if e.execs == nil {
		e.execs = execValues(e.tr.Execs)
	}
	return e.execs
}

// allEvents are every execution and point of the run, allocations too.
func (e *evaluator) allEvents() []value {
	if e.events == nil {
		e.events = append(eventsOf(e.tr.Execs), eventsOf(e.tr.Allocs)...)
	}
	return e.events
}

// beganIn returns the events whose begin lies strictly between the
// points lo and hi.
func (e *evaluator) beganIn(lo, hi int64) []value {
	if e.byBegin == nil {
		e.byBegin = append([]value(nil), e.allEvents()...)
		sortBySeq(e.byBegin, true)
	}
	i := sort.Search(len(e.byBegin), func(i int) bool { s, _ := e.byBegin[i].seq(true); return s > lo })
	j := sort.Search(len(e.byBegin), func(i int) bool { s, _ := e.byBegin[i].seq(true); return s >= hi })
	if j < i {
		return nil
	}
	return e.byBegin[i:j]
}

// endedBefore returns the events that ended before the point at seq.
func (e *evaluator) endedBefore(seq int64) []value {
	if e.byEnd == nil {
		for _, v := range e.allEvents() {
			if _, ok := v.seq(false); ok {
				e.byEnd = append(e.byEnd, v)
			}
		}
		sortBySeq(e.byEnd, false)
	}
	return e.byEnd[:sort.Search(len(e.byEnd), func(i int) bool { s, _ := e.byEnd[i].seq(false); return s >= seq })]
}

func sortBySeq(vs []value, begin bool) {
	sort.SliceStable(vs, func(i, j int) bool {
		a, _ := vs[i].seq(begin)
		b, _ := vs[j].seq(begin)
		return a < b
	})
}

// eventsOf are the executions xs and their points; an allocation among
// xs is a point.
func eventsOf(xs []*reftrace.Execution) []value {
	var out []value
	for _, x := range xs {
		if x.IsAllocation() {
			out = append(out, pointValue(x, false))
			continue
		}
		out = append(out, execValue(x), pointValue(x, false))
		if x.Ended {
			out = append(out, pointValue(x, true))
		}
	}
	return out
}

// account is the memory account allocation x is charged to under
// patterns (seed 002's principal–agent rule): the pattern that matches
// the package of the nearest frame on x's goroutine, from x's own
// function out along its execution's callers, whose package some
// pattern matches; "" when none does. The chain of callers never
// crosses a go statement: a goroutine does not inherit an account. A
// function of package main is of the import path the trace gives it,
// which a pattern may match as it matches any other ("example.com/m/..."
// matches example.com/m's main), besides "main".
func (e *evaluator) account(patterns []string, x *reftrace.Execution) string {
	charge := func(fn string) string {
		pkg := spec.FuncPackage(fn)
		name := ""
		if pkg == "main" {
			name = "main" // the runtime names a package main's functions main.F
			if e.tr.MainPath != "" {
				pkg = e.tr.MainPath
			}
		}
		return spec.AccountOf(patterns, pkg, name)
	}
	if acc := charge(x.Func); acc != "" {
		return acc
	}
	for c := e.tr.ByID[x.In]; c != nil; c = e.tr.ByID[c.Caller] {
		if acc := charge(c.Func); acc != "" {
			return acc
		}
	}
	return ""
}
