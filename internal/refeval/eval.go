package refeval

import (
	"fmt"
	"strings"

	"pmm.dev/pmm/internal/funcname"
	"pmm.dev/pmm/internal/reftrace"
	"pmm.dev/pmm/spec"
)

// evalError is an error of evaluation, raised by panic and recovered per
// question.
type evalError string

func fail(format string, args ...any) { panic(evalError(fmt.Sprintf(format, args...))) }

// evaluator evaluates formulas over one trace by backtracking: each
// formula binds variables of env and calls its continuation once per
// binding that satisfies it, then unbinds them. A continuation returns
// false to stop the search (a test needs one witness).
type evaluator struct {
	tr   *reftrace.Trace
	defs map[string]*spec.Def
	env  map[string]value // the bound variables of the definition evaluated

	funcs    []*reftrace.Execution            // the executions of functions, in order of their begin
	byFunc   map[string][]*reftrace.Execution // functions' executions by funcname.Key of Func
	byRegion map[string][]*reftrace.Execution // regions' executions by regionKey
	regions  []*reftrace.Execution            // the executions of regions, in order of their begin
	byIter   map[string][]*reftrace.Execution // iterations by the regionKey of their loop
	iters    []*reftrace.Execution            // the iterations of loops, in order of their begin
	byOpFunc map[string][]*reftrace.Execution // blocking operations by funcname.Key of Func
	ops      []*reftrace.Execution            // the blocking operations, in order of their begin
	byGoFunc map[string][]*reftrace.Execution // goroutines by funcname.Key of the function they start
	gors     []*reftrace.Execution            // the goroutines, in order of their begin
	byAlFunc map[string][]*reftrace.Execution // allocations by funcname.Key of Func
	children map[int64][]*reftrace.Execution  // by Caller
	spawned  map[int64][]*reftrace.Execution  // by Spawner: first executions of goroutines, and goroutines
	byG      map[int64][]*reftrace.Execution  // by Goroutine
	kinds    map[string][]kind                // head kinds of each definition
	execs    []value                          // every execution, once needed
	events   []value                          // every execution and point, once needed
	free     map[spec.Formula][]string        // freeVars, memoized
	aggRows  map[string][][]value             // the rows of each aggregate used in a formula
	byBegin  []value                          // every event by the seq of its begin
	byEnd    []value                          // every event that ended by the seq of its end
}

func newEvaluator(prog *spec.Program, tr *reftrace.Trace) *evaluator {
	e := &evaluator{
		tr: tr, defs: map[string]*spec.Def{}, env: map[string]value{},
		byFunc: map[string][]*reftrace.Execution{}, byRegion: map[string][]*reftrace.Execution{},
		byIter: map[string][]*reftrace.Execution{}, byOpFunc: map[string][]*reftrace.Execution{}, byGoFunc: map[string][]*reftrace.Execution{},
		byAlFunc: map[string][]*reftrace.Execution{},
		children: map[int64][]*reftrace.Execution{},
		spawned:  map[int64][]*reftrace.Execution{}, byG: map[int64][]*reftrace.Execution{},
		kinds: map[string][]kind{}, free: map[spec.Formula][]string{}, aggRows: map[string][][]value{},
	}
	for _, d := range prog.Defs {
		e.defs[d.Name] = d
	}
	for _, a := range tr.Allocs {
		e.byG[a.Goroutine] = append(e.byG[a.Goroutine], a)
		k := funcname.Key(a.Func)
		e.byAlFunc[k] = append(e.byAlFunc[k], a)
	}
	for _, x := range tr.Execs {
		e.byG[x.Goroutine] = append(e.byG[x.Goroutine], x)
		switch {
		case x.IsRegion():
			k := regionKey(x.Func, x.Label)
			e.byRegion[k] = append(e.byRegion[k], x)
			e.regions = append(e.regions, x)
			continue
		case x.IsIteration():
			k := regionKey(x.Func, x.Label)
			e.byIter[k] = append(e.byIter[k], x)
			e.iters = append(e.iters, x)
			continue
		case x.IsBlocking():
			k := funcname.Key(x.Func)
			e.byOpFunc[k] = append(e.byOpFunc[k], x)
			e.ops = append(e.ops, x)
			continue
		case x.IsGoroutine():
			k := funcname.Key(x.Func)
			e.byGoFunc[k] = append(e.byGoFunc[k], x)
			e.gors = append(e.gors, x)
			e.spawned[x.Spawner] = append(e.spawned[x.Spawner], x)
			continue
		}
		e.funcs = append(e.funcs, x)
		e.byFunc[funcname.Key(x.Func)] = append(e.byFunc[funcname.Key(x.Func)], x)
		if x.Caller != 0 {
			e.children[x.Caller] = append(e.children[x.Caller], x)
		}
		if x.Spawner != 0 {
			e.spawned[x.Spawner] = append(e.spawned[x.Spawner], x)
		}
	}
	return e
}

// relation returns the distinct tuples of the head of d (a set-former).
func (e *evaluator) relation(d *spec.Def) [][]value {
	saved := e.env
	e.env = map[string]value{}
	defer func() { e.env = saved }()
	var out [][]value
	seen := map[string]bool{}
	e.eval(d.Body, func() bool {
		t := make([]value, len(d.Head))
		for i, h := range d.Head {
			v, ok := e.env[h.Var]
			if !ok {
				fail("head variable %s of %s is not bound", h.Var, d.Name)
			}
			t[i] = v
		}
		if k := tupleKey(t); !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
		return true
	})
	return out
}

func tupleKey(t []value) string {
	var b strings.Builder
	for _, v := range t {
		b.WriteString(v.key())
		b.WriteByte(0)
	}
	return b.String()
}

// eval calls k once per binding of the free variables of f that are not
// bound yet under which f holds (possibly more than once per binding). It
// returns false when k stopped the search.
func (e *evaluator) eval(f spec.Formula, k func() bool) bool {
	switch f := f.(type) {
	case *spec.And:
		return e.conj(conjuncts(f), k)
	case *spec.Or:
		return e.distinct(e.unbound(e.freeVars(f)), func(k2 func() bool) bool {
			for _, g := range f.Args {
				if !e.eval(g, k2) {
					return false
				}
			}
			return true
		}, k)
	case *spec.Not:
		if vs := e.unbound(e.freeVars(f)); len(vs) > 0 {
			fail("not over unbound variables %s", strings.Join(vs, ", "))
		}
		holds := false
		e.eval(f.Arg, func() bool { holds = true; return false })
		if holds {
			return true
		}
		return k()
	case *spec.Exists:
		return e.distinct(e.unbound(e.freeVars(f)), func(k2 func() bool) bool {
			saved := map[string]value{}
			for _, v := range f.Vars {
				if x, ok := e.env[v.Var]; ok {
					saved[v.Var] = x
				}
				delete(e.env, v.Var)
			}
			r := e.eval(f.Body, k2)
			for _, v := range f.Vars {
				delete(e.env, v.Var)
				if x, ok := saved[v.Var]; ok {
					e.env[v.Var] = x
				}
			}
			return r
		}, k)
	case *spec.Forall:
		fail("forall is not part of the language (pmm check rejects it)")
	case *spec.AtomF:
		if d := e.defs[f.Pred]; d != nil {
			return e.derived(f, d, k)
		}
		return e.primitive(f, k)
	}
	fail("unknown formula %T", f)
	return false
}

// conj evaluates a conjunction, choosing each time the term that is
// cheapest with the variables bound so far: tests before generators, and
// generators from bound variables before enumerations.
func (e *evaluator) conj(terms []spec.Formula, k func() bool) bool {
	if len(terms) == 0 {
		return k()
	}
	best, bestCost := -1, 0.0
	for i, t := range terms {
		if c, ok := e.cost(t); ok && (best < 0 || c < bestCost) {
			best, bestCost = i, c
		}
	}
	if best < 0 {
		fail("no term of a conjunction can be evaluated with the variables bound (is it safe?)")
	}
	rest := make([]spec.Formula, 0, len(terms)-1)
	rest = append(append(rest, terms[:best]...), terms[best+1:]...)
	return e.eval(terms[best], func() bool { return e.conj(rest, k) })
}

// distinct evaluates gen, which binds the variables vars (unbound when it
// starts), and calls k once per distinct binding of them. Without vars it
// is a test: gen stops at its first success.
func (e *evaluator) distinct(vars []string, gen func(func() bool) bool, k func() bool) bool {
	if len(vars) == 0 {
		holds := false
		gen(func() bool { holds = true; return false })
		return !holds || k()
	}
	var tuples [][]value
	seen := map[string]bool{}
	gen(func() bool {
		t := make([]value, len(vars))
		for i, v := range vars {
			t[i] = e.env[v]
		}
		if key := tupleKey(t); !seen[key] {
			seen[key] = true
			tuples = append(tuples, t)
		}
		return true
	})
	for _, t := range tuples {
		for i, v := range vars {
			e.env[v] = t[i]
		}
		ok := k()
		for _, v := range vars {
			delete(e.env, v)
		}
		if !ok {
			return false
		}
	}
	return true
}

// derived evaluates an atom of the derived event or question d: d's body
// in a scope of its own, its head bound to the atom's bound arguments.
func (e *evaluator) derived(a *spec.AtomF, d *spec.Def, k func() bool) bool {
	if d.Aggregate != nil {
		return e.aggregateAtom(a, d, k)
	}
	if len(a.Args) != len(d.Head) {
		fail("%s takes %d arguments, found %d", d.Name, len(d.Head), len(a.Args))
	}
	inner := map[string]value{}
	var open []int // head positions whose argument is an unbound variable
	for i, t := range a.Args {
		if v, ok := e.term(t); ok {
			inner[d.Head[i].Var] = v
		} else {
			open = append(open, i)
		}
	}
	outer := e.env
	e.env = inner
	var tuples [][]value
	seen := map[string]bool{}
	e.eval(d.Body, func() bool {
		t := make([]value, len(open))
		for j, i := range open {
			v, ok := e.env[d.Head[i].Var]
			if !ok {
				fail("head variable %s of %s is not bound", d.Head[i].Var, d.Name)
			}
			t[j] = v
		}
		if key := tupleKey(t); !seen[key] {
			seen[key] = true
			tuples = append(tuples, t)
		}
		return len(open) > 0 // a test needs one witness
	})
	e.env = outer
	for _, t := range tuples {
		var bound []string
		ok := true
		for j, i := range open {
			name := a.Args[i].Var
			if prev, dup := e.env[name]; dup { // the variable is at two positions
				ok = ok && equal(prev, t[j])
				continue
			}
			e.env[name] = t[j]
			bound = append(bound, name)
		}
		stop := ok && !k()
		for _, name := range bound {
			delete(e.env, name)
		}
		if stop {
			return false
		}
	}
	return true
}

// term returns the value of a literal or bound variable.
func (e *evaluator) term(t spec.Term) (value, bool) {
	if t.Lit == nil {
		v, ok := e.env[t.Var]
		return v, ok
	}
	switch t.Lit.Kind {
	case spec.LitString:
		return value{kind: vString, s: t.Lit.Str}, true
	case spec.LitInt:
		return value{kind: vInt, i: t.Lit.Int}, true
	case spec.LitFloat:
		return value{kind: vFloat, f: t.Lit.Float}, true
	case spec.LitBool:
		return fromTrace(t.Lit.Bool), true
	case spec.LitList:
		return listValue(listElems(t.Lit)), true
	}
	return value{}, true // nil
}

// listElems is a list literal's elements as the trace holds values:
// int64, float64, string, bool, nil, and []any for a nested list.
func listElems(l *spec.Literal) []any {
	out := make([]any, len(l.List))
	for i, x := range l.List {
		switch x.Kind {
		case spec.LitString:
			out[i] = x.Str
		case spec.LitInt:
			out[i] = x.Int
		case spec.LitFloat:
			out[i] = x.Float
		case spec.LitBool:
			out[i] = x.Bool
		case spec.LitList:
			out[i] = listElems(x)
		}
	}
	return out
}

func (e *evaluator) bound(t spec.Term) bool {
	_, ok := e.term(t)
	return ok
}

// unify makes t equal to v: a bound t must equal v, an unbound one is
// bound to v while k runs.
func (e *evaluator) unify(t spec.Term, v value, k func() bool) bool {
	if x, ok := e.term(t); ok {
		if equal(x, v) {
			return k()
		}
		return true
	}
	e.env[t.Var] = v
	r := k()
	delete(e.env, t.Var)
	return r
}

func (e *evaluator) unbound(vars []string) []string {
	var out []string
	for _, v := range vars {
		if _, ok := e.env[v]; !ok {
			out = append(out, v)
		}
	}
	return out
}

// freeVars is the memoized freeVars of f.
func (e *evaluator) freeVars(f spec.Formula) []string {
	vs, ok := e.free[f]
	if !ok {
		vs = freeVars(f)
		e.free[f] = vs
	}
	return vs
}

// conjuncts flattens nested ands.
func conjuncts(f spec.Formula) []spec.Formula {
	if a, ok := f.(*spec.And); ok {
		var out []spec.Formula
		for _, g := range a.Args {
			out = append(out, conjuncts(g)...)
		}
		return out
	}
	return []spec.Formula{f}
}

// freeVars returns the free variables of f, in order of first occurrence.
func freeVars(f spec.Formula) []string {
	var out []string
	seen := map[string]bool{}
	var visit func(f spec.Formula, bound map[string]bool)
	visit = func(f spec.Formula, bound map[string]bool) {
		switch f := f.(type) {
		case *spec.And:
			for _, g := range f.Args {
				visit(g, bound)
			}
		case *spec.Or:
			for _, g := range f.Args {
				visit(g, bound)
			}
		case *spec.Not:
			visit(f.Arg, bound)
		case *spec.Exists:
			visit(f.Body, with(bound, f.Vars))
		case *spec.Forall:
			visit(f.Body, with(bound, f.Vars))
		case *spec.AtomF:
			for _, t := range f.Args {
				if t.Lit == nil && !bound[t.Var] && !seen[t.Var] {
					seen[t.Var] = true
					out = append(out, t.Var)
				}
			}
		}
	}
	visit(f, map[string]bool{})
	return out
}

func with(bound map[string]bool, vars []spec.Term) map[string]bool {
	out := make(map[string]bool, len(bound)+len(vars))
	for v := range bound {
		out[v] = true
	}
	for _, v := range vars {
		out[v.Var] = true
	}
	return out
}

// walk calls fn on f and every formula inside it.
func walk(f spec.Formula, fn func(spec.Formula)) {
	fn(f)
	switch f := f.(type) {
	case *spec.And:
		for _, g := range f.Args {
			walk(g, fn)
		}
	case *spec.Or:
		for _, g := range f.Args {
			walk(g, fn)
		}
	case *spec.Not:
		walk(f.Arg, fn)
	case *spec.Exists:
		walk(f.Body, fn)
	case *spec.Forall:
		walk(f.Body, fn)
	}
}
