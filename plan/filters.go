package plan

import "pmm.dev/pmm/spec"

// Filters are the run-time filters of one event of one question at a site
// (seed 5.3, Algorithm 4): tests that drop an execution when it cannot be
// part of an answer. Each is sound: it drops only executions whose tuples
// would join nothing in the question's view, so the answers are the same
// with or without them, and what is recorded is less.
type Filters struct {
	// Pre are tests on the event's own data at its begin point (its
	// parameters, receiver, data-conditions): intra-event conditions, the
	// site's pre-condition.
	Pre []Cond
	// Post are tests on its data at its end point (results, duration,
	// panicked): the post-condition.
	Post []Cond
	// Callees are the events the execution must have called, at call
	// sites in its body whose own tests passed, for it to be kept: the
	// post-condition of seed Table 4.1, (AND FOO-id BAR-id).
	Callees []string
	// Caller is, for the callee of a lexical relation, the variable of its
	// caller: the callee is recorded only when the caller passed its
	// pre-condition, and on passing it marks itself in the caller's state.
	Caller string
	// Marks says the callee tells its caller it ran and passed: false
	// when the caller does not wait for it (see dropUnmarkableCallees).
	Marks bool
	// Var is the event's variable, in disjunct Disjunct of its question
	// (the branches of an or name the same variables: the state fields
	// of each are its own).
	Var      string
	Disjunct int
	// Name is the function the event must be an execution of, when the
	// question names it: at a site of another function the pre-condition
	// is false (an intra-event test decided when the site is generated).
	Name string
	// Hold is the inter-event test whose earlier event this is: an
	// execution that passed is held in its caller's state, not recorded.
	// Probe is the one whose later event this is: an execution passes
	// only if an earlier one with equal values is held. Holds are the
	// tests whose held executions the state of this event, the caller,
	// keeps.
	Hold, Probe *Pair
	Holds       []*Pair
	// Absent is the negated part this event, a callee, is the event of:
	// an execution that passes its tests tells its caller, and is not
	// recorded. Absences are those this event, the caller, requires.
	Absent   *Absence
	Absences []*Absence
	// Exports are the event's values its callees' tests read from its
	// state: its site captures them.
	Exports []Field
	// Buffers says the event, a caller, keeps its callees' tuples until it
	// ends, and records them only if it passes: its post-condition can
	// fail after a callee passed (Algorithm 3's release of the data of
	// the outermost interval). Buffered says the event's tuples, a
	// callee's, go to that buffer.
	Buffers, Buffered bool
	// Contexts are the calls* relations the event is the ancestor or the
	// descendant of, decided through the goroutine-local context.
	Contexts []*Context
	// Aggregate is the run-time aggregate of the event's question, if it
	// has one: the event adds to its cells (or holds the additions of
	// its callees) instead of recording tuples.
	Aggregate *RunAggregate
}

// dropsSome reports whether the filters may keep an execution from
// being recorded: a test of its own values, of its callees or its
// caller, an inter-event test, a negation, a context; or its question is
// an aggregate kept in cells, not tuples.
func (f *Filters) dropsSome() bool {
	return len(f.Pre) > 0 || len(f.Post) > 0 || len(f.Callees) > 0 || f.Caller != "" || f.Hold != nil || f.Probe != nil ||
		f.Absent != nil || len(f.Absences) > 0 || len(f.Contexts) > 0 || f.Aggregate != nil || f.Buffered
}

// ChecksEntries reports whether the site counts its entries checked (the
// times its code ran with recording on: pmmrt.Check, the site_counts
// table): it has run-time filters and they may drop an execution that
// reaches it. Where, for some question, they drop none, every entry
// checked is recorded and pmm stats counts them from the data, as at a
// site without filters: an atomic add less per execution.
func (s *Site) ChecksEntries() bool {
	if len(s.Targets) != 1 || s.Targets[0].Filters == nil {
		return false
	}
	t := s.Targets[0]
	return len(t.Emits) == 0 || !t.recordsEvery()
}

// recordsEvery reports whether the target records tuples of every
// execution that reaches its site, for some question: one without
// filters (a mode without them), or whose filters drop none.
func (t *Target) recordsEvery() bool {
	if t.Filters == nil {
		return true
	}
	for _, fs := range t.Filters {
		drops := false
		for _, f := range fs {
			drops = drops || f.dropsSome()
		}
		if !drops {
			return true
		}
	}
	return false
}

// Cond is a comparison an event can test alone: every variable it reads
// is a value the event's site captures.
type Cond struct {
	Atom    *spec.Atom
	Negated bool
	Values  map[string]Field // value variable → the captured value it is
	// Outer are the value variables that are the caller's values, read
	// from its state (an inter-event condition of a direct callee).
	Outer map[string]bool
}

// Options say how to instrument.
type Options struct {
	// Filters adds run-time filters (the runtime and combined modes).
	Filters bool
}

// filtersOf computes the filters of variable v of a question in the
// disjunct root, whose temporal analysis is a, and whose inter-event
// tests decided at run time are pairs and negated parts absences.
func filtersOf(v string, root *spec.Conj, a *Conj, pairs []*Pair, absences map[*spec.Conj]*Absence) *Filters {
	f := &Filters{Var: v}
	values := boundValues(v, root)
	for _, t := range a.Tests {
		if t.Atom == nil || !t.Local || t.Negated || t.At.Var != v {
			continue
		}
		if c, ok := condOf(t.Atom, values, false); ok {
			if t.At.End == spec.Begin && onlyBegin(c) {
				f.Pre = append(f.Pre, c)
			} else {
				f.Post = append(f.Post, c)
			}
		}
	}
	// A negated comparison, alone in its negation, is a test too: (not (=
	// p 0)) drops the executions whose p is 0.
	for _, n := range root.Not {
		if len(n.Exists) > 0 || len(n.Not) > 0 || len(n.Atoms) != 1 || n.Atoms[0].Prim.Kind != spec.ValueRelation {
			continue
		}
		if c, ok := condOf(n.Atoms[0], values, true); ok {
			if onlyBegin(c) {
				f.Pre = append(f.Pre, c)
			} else {
				f.Post = append(f.Post, c)
			}
		}
	}
	for _, at := range root.Atoms {
		if at.Prim.Name == spec.TypeFunctionExecution && at.Args[0].Var == v && at.Args[1].Lit != nil {
			f.Name = at.Args[1].Lit.Str
		}
	}
	// Direct calls: v requires its callees, and a callee its caller.
	callers := 0
	for _, at := range root.Atoms {
		if !isDirectCall(at.Prim) || at.Args[0].Lit != nil || at.Args[1].Lit != nil {
			continue
		}
		switch v {
		case at.Args[0].Var:
			f.Callees = append(f.Callees, at.Args[1].Var)
		case at.Args[1].Var:
			f.Caller = at.Args[0].Var
			f.Marks = true
			callers++
		}
	}
	if callers > 1 {
		// Called directly by two events: they must be one execution, a
		// join left to the answer; no caller's state is the one to read.
		f.Caller, f.Marks = "", false
	}
	// Tests with the caller's values known when it began, as early as
	// the callee's own allow; the caller captures what they read.
	if f.Caller != "" {
		for _, c := range callerConds(v, f.Caller, root, a) {
			if onlyBegin(c) {
				f.Pre = append(f.Pre, c)
			} else {
				f.Post = append(f.Post, c)
			}
		}
	}
	for _, callee := range f.Callees {
		for _, c := range callerConds(callee, v, root, a) {
			for w := range c.Outer {
				f.Exports = append(f.Exports, c.Values[w])
			}
		}
	}
	for _, p := range pairs {
		switch v {
		case p.Earlier:
			f.Hold = p
		case p.Later:
			f.Probe = p
		case p.Caller:
			f.Holds = append(f.Holds, p)
		}
	}
	for _, n := range root.Not {
		if a := absences[n]; a != nil && a.Caller == v {
			f.Absences = append(f.Absences, a)
		}
	}
	return f
}

// callerConds are the tests placed at direct callee x that read, besides
// x's values, those of its caller c known when c began (seed 5.3.2):
// comparisons, and a value of x bound already by c (a join, such as equal
// parameters), an equality.
func callerConds(x, c string, root *spec.Conj, a *Conj) []Cond {
	xv, cv := boundValues(x, root), boundValues(c, root)
	var out []Cond
	for _, t := range a.Tests {
		if t.Atom == nil || t.Local || t.Deferred || t.Negated || t.At.Var != x || len(t.Reads) == 0 {
			continue
		}
		ok := true
		for _, r := range t.Reads {
			ok = ok && r.Var == c && r.End == spec.Begin
		}
		if !ok {
			continue
		}
		cond := Cond{Atom: t.Atom, Values: map[string]Field{}, Outer: map[string]bool{}}
		switch t.Atom.Prim.Kind {
		case spec.ValueRelation:
			for _, term := range t.Atom.Args {
				if term.Lit != nil {
					continue
				}
				if f, bound := cv[term.Var]; bound {
					cond.Values[term.Var], cond.Outer[term.Var] = f, true
				} else if f, bound := xv[term.Var]; bound {
					cond.Values[term.Var] = f
				} else {
					ok = false
				}
			}
		case spec.Attribute:
			w := t.Atom.Args[len(t.Atom.Args)-1]
			fx, okx := attributeField(t.Atom)
			fc, okc := cv[w.Var]
			if w.Lit != nil || !okx || !okc {
				ok = false
				break
			}
			own := w.Var + "'" // not a PMM name: no clash
			cond.Atom = &spec.Atom{Pos: t.Atom.Pos, Prim: spec.Equality(), Args: []spec.Term{{Var: own}, {Var: w.Var}}}
			cond.Values[own], cond.Values[w.Var], cond.Outer[w.Var] = fx, fc, true
		default:
			ok = false
		}
		if ok {
			out = append(out, cond)
		}
	}
	return out
}

// boundValues maps the value variables that attributes of v bind, in the
// disjunct's own atoms, to what v's site captures.
func boundValues(v string, root *spec.Conj) map[string]Field {
	values := map[string]Field{}
	for _, a := range root.Atoms {
		if a.Prim.Kind != spec.Attribute || a.Args[0].Lit != nil || a.Args[0].Var != v {
			continue
		}
		last := a.Args[len(a.Args)-1]
		if last.Lit != nil {
			continue
		}
		f, ok := attributeField(a)
		if !ok || f.Cap == CapParams || f.Cap == CapResults {
			continue // a list: no comparison reads it
		}
		if _, ok := values[last.Var]; !ok {
			values[last.Var] = f
		}
	}
	return values
}

// condOf makes a comparison a Cond when every variable it reads is bound
// to a captured value.
func condOf(a *spec.Atom, values map[string]Field, negated bool) (Cond, bool) {
	if a.Prim.Kind != spec.ValueRelation {
		return Cond{}, false
	}
	c := Cond{Atom: a, Negated: negated, Values: map[string]Field{}}
	for _, t := range a.Args {
		if t.Lit != nil {
			continue
		}
		f, ok := values[t.Var]
		if !ok {
			return Cond{}, false
		}
		c.Values[t.Var] = f
	}
	return c, true
}

// onlyBegin reports whether a Cond reads only values known when the
// event begins.
func onlyBegin(c Cond) bool {
	for _, f := range c.Values {
		if f.AtEnd() {
			return false
		}
	}
	return true
}
