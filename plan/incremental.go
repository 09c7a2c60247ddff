// The temporal reasoning of pmm (seed 001,
// chapter 5). For each conjunction of a question it builds the event
// dependency graph (Definition 1, Algorithm 2, from the vocabulary's
// temporal meanings), finds the outermost interval (Algorithm 3), and
// places every condition at the earliest point of execution where the
// data it reads is all available (Algorithm 4): at the event's own site
// for an intra-event condition, at the later event for an inter-event
// one, and at answer time when the events it reads have no order.

package plan

import (
	"fmt"
	"sort"
	"strings"

	"pmm.dev/pmm/spec"
)

// Conj is the temporal analysis of one conjunction.
type Conj struct {
	Types spec.VarTypes
	Graph *spec.TemporalGraph
	// Outermost is the interval that contains every other event of the
	// conjunction, or "" (Algorithm 3); its end is when the conjunction's
	// data can be released.
	Outermost string
	// Tests are the conjunction's conditions, each at the point where it
	// is tested.
	Tests []*Test
}

// Test is one condition and where it is tested.
type Test struct {
	// What is tested: an atom of the conjunction (a comparison, an
	// attribute whose variable is bound earlier, a relation between
	// events), or, for Exists, that an execution of Var happened.
	Atom   *spec.Atom
	Exists string
	// At is the point where the data is all available; the test runs
	// there. Meaningless when Deferred.
	At spec.Point
	// Reads are the other points whose data the test reads; they all
	// precede At.
	Reads []spec.Point
	// Local says the test reads only the data of At's own event: an
	// intra-event condition (seed 5.3.1).
	Local bool
	// Deferred says the points the test reads have no temporal order
	// that puts one after all others: it is decided when the answer is
	// computed (seed 5.3.2).
	Deferred bool
	// Negated says the test is a negated sub-conjunction's: absence is
	// known only when the interval that holds it ends.
	Negated bool
}

func (t *Test) String() string {
	what := "exists " + t.Exists
	if t.Atom != nil {
		what = t.Atom.String()
	}
	if t.Negated {
		what = "not " + what
	}
	switch {
	case t.Deferred:
		return what + " at answer time"
	case t.Local:
		return what + " at " + t.At.String() + " (local)"
	}
	var reads []string
	for _, r := range t.Reads {
		reads = append(reads, r.String())
	}
	return what + " at " + t.At.String() + " reading " + strings.Join(reads, ", ")
}

// Analyze analyzes a normalized conjunction.
func Analyze(c *spec.Conj) (*Conj, error) {
	types, ok := c.Types(nil)
	if !ok {
		return nil, fmt.Errorf("the types of the variables do not agree")
	}
	a := &Conj{Types: types, Graph: spec.BuildTemporalGraph(c, types)}
	if cyc := a.Graph.Cycle(); cyc != nil {
		return nil, fmt.Errorf("temporal dependency cycle (IC2)")
	}
	a.order()
	a.Outermost = a.outermost()
	p := &placer{a: a, bound: map[string]spec.Point{}}
	p.place(c, false)
	return a, nil
}

// reach[p][q] says p precedes q in the graph (transitively).
type reach map[spec.Point]map[spec.Point]bool

func (a *Conj) order() reach {
	r := reach{}
	succ := map[spec.Point][]spec.Point{}
	for _, e := range a.Graph.Edges {
		succ[e.From] = append(succ[e.From], e.To)
	}
	for _, p := range a.Graph.Nodes {
		seen := map[spec.Point]bool{}
		var visit func(q spec.Point)
		visit = func(q spec.Point) {
			for _, s := range succ[q] {
				if !seen[s] {
					seen[s] = true
					visit(s)
				}
			}
		}
		visit(p)
		r[p] = seen
	}
	return r
}

// outermost is Algorithm 3: with the points in temporal order, if the
// earliest and the latest are each one point, the begin and end of one
// interval, that interval contains every event.
func (a *Conj) outermost() string {
	r := a.order()
	var first, last []spec.Point
	for _, p := range a.Graph.Nodes {
		hasPred, hasSucc := false, len(r[p]) > 0
		for _, q := range a.Graph.Nodes {
			if r[q][p] {
				hasPred = true
			}
		}
		if !hasPred {
			first = append(first, p)
		}
		if !hasSucc {
			last = append(last, p)
		}
	}
	if len(first) == 1 && len(last) == 1 && first[0].Var == last[0].Var && first[0].End == spec.Begin && last[0].End == spec.Finish {
		return first[0].Var
	}
	return ""
}

// placer places the tests of a conjunction and of its negated parts.
type placer struct {
	a     *Conj
	bound map[string]spec.Point // value variable → where it is first available
}

// available returns where an attribute atom's value is available: at the
// begin of its event for what is known at entry, at the end for what is
// known at exit (its capture's meaning says which).
func available(a *spec.Atom, alias map[string]spec.Point) spec.Point {
	x := a.Args[0].Var
	if p, ok := alias[x]; ok { // a point: its own time
		return p
	}
	if a.Prim.Recorded != nil && recordedField(a.Prim, needOf(a, PointBegin)).AtEnd() {
		return spec.Point{Var: x, End: spec.Finish}
	}
	return spec.Point{Var: x, End: spec.Begin}
}

// aliases maps point variables to the interval point they are.
func aliases(c *spec.Conj) map[string]spec.Point {
	m := map[string]spec.Point{}
	c.EachAtom(func(a *spec.Atom) {
		if a.Prim.PointOf() && a.Args[0].Lit == nil && a.Args[1].Lit == nil {
			m[a.Args[0].Var] = spec.Point{Var: a.Args[1].Var, End: a.Prim.Denotes}
		}
	})
	return m
}

func (p *placer) place(c *spec.Conj, negated bool) {
	alias := aliases(c)
	point := func(v string, end spec.End) spec.Point {
		if q, ok := alias[v]; ok {
			return q
		}
		return spec.Point{Var: v, End: end}
	}
	// Attributes bind their value variables where they are available; a
	// variable bound again (a join, such as two executions with equal
	// parameters) is an equality test at the later binding.
	type binding struct {
		atom *spec.Atom
		at   spec.Point
	}
	var bindings []binding
	for _, a := range c.Atoms {
		if a.Prim.Kind == spec.Attribute {
			bindings = append(bindings, binding{a, available(a, alias)})
		}
	}
	r := p.a.order()
	sort.SliceStable(bindings, func(i, j int) bool { return r[bindings[i].at][bindings[j].at] })
	for _, b := range bindings {
		v := b.atom.Args[len(b.atom.Args)-1]
		if v.Lit != nil {
			p.add(b.atom, b.at, nil, negated) // an attribute compared with a constant
			continue
		}
		if first, ok := p.bound[v.Var]; ok {
			p.add(b.atom, b.at, []spec.Point{first}, negated)
			continue
		}
		p.bound[v.Var] = b.at
	}
	for _, a := range c.Atoms {
		switch a.Prim.Kind {
		case spec.ValueRelation:
			var reads []spec.Point
			for _, t := range a.Args {
				if t.Lit != nil {
					continue
				}
				if q, ok := p.bound[t.Var]; ok {
					reads = append(reads, q)
				} else if isEvent(p.a.Types[t.Var]) {
					reads = append(reads, point(t.Var, spec.Begin))
				}
			}
			p.test(a, reads, negated)
		case spec.ControlRelation:
			// A relation is known when its later event begins, with what
			// the earlier one is by then: for an edge into a begin point,
			// its origin (the end of a for (before a b)); else the begins.
			ends := make([]spec.End, len(a.Args))
			for _, e := range a.Prim.Temporal {
				if e.To.End == spec.Begin && e.From.Arg != e.To.Arg {
					ends[e.From.Arg] = e.From.End
				}
			}
			var reads []spec.Point
			for i, t := range a.Args {
				if t.Lit == nil {
					reads = append(reads, point(t.Var, ends[i]))
				}
			}
			p.test(a, reads, negated)
		}
	}
	// An event contained in the outermost interval is known to have
	// happened, or not, when the interval ends (the post-condition of
	// Table 4.1).
	if o := p.a.Outermost; o != "" && !negated {
		for _, v := range c.Exists {
			if p.a.Types[v] == spec.TypeFunctionExecution && v != o {
				p.a.Tests = append(p.a.Tests, &Test{Exists: v, At: spec.Point{Var: o, End: spec.Finish},
					Reads: []spec.Point{{Var: v, End: spec.Finish}}})
			}
		}
	}
	for _, n := range c.Not {
		p.place(n, true)
	}
}

func isEvent(t string) bool { return t == spec.TypeFunctionExecution || t == spec.TypePoint }

// test places a test that reads the given points: at the one that all
// the others precede.
func (p *placer) test(a *spec.Atom, reads []spec.Point, negated bool) {
	r := p.a.order()
	for _, at := range reads {
		latest := true
		for _, q := range reads {
			if q != at && !r[q][at] {
				latest = false
			}
		}
		if latest {
			var others []spec.Point
			for _, q := range reads {
				if q != at {
					others = append(others, q)
				}
			}
			p.add(a, at, others, negated)
			return
		}
	}
	if len(reads) == 0 {
		p.a.Tests = append(p.a.Tests, &Test{Atom: a, Local: true, Negated: negated})
		return
	}
	p.a.Tests = append(p.a.Tests, &Test{Atom: a, Deferred: true, Reads: reads, Negated: negated})
}

func (p *placer) add(a *spec.Atom, at spec.Point, reads []spec.Point, negated bool) {
	local := true
	for _, q := range reads {
		if q.Var != at.Var {
			local = false
		}
	}
	p.a.Tests = append(p.a.Tests, &Test{Atom: a, At: at, Reads: reads, Local: local, Negated: negated})
}
