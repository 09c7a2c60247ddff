package instrument

import (
	"go/types"
	"sort"
	"strconv"
	"strings"

	"pmm.dev/pmm/incremental"
	"pmm.dev/pmm/spec"
)

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
// disjunct root, whose inter-event tests decided at run time are pairs
// and negated parts absences.
func filtersOf(v string, root *spec.Conj, pairs []*Pair, absences map[*spec.Conj]*Absence) (*Filters, error) {
	a, err := incremental.Analyze(root)
	if err != nil {
		return nil, err
	}
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
		if at.Prim.Name != "calls" || at.Args[0].Lit != nil || at.Args[1].Lit != nil {
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
	return f, nil
}

// callerConds are the tests placed at direct callee x that read, besides
// x's values, those of its caller c known when c began (seed 5.3.2):
// comparisons, and a value of x bound already by c (a join, such as equal
// parameters), an equality.
func callerConds(x, c string, root *spec.Conj, a *incremental.Conj) []Cond {
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
			cond.Atom = &spec.Atom{Pos: t.Atom.Pos, Prim: spec.Lookup("="), Args: []spec.Term{{Var: own}, {Var: w.Var}}}
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
		switch f.Cap {
		case CapResult, CapDuration, CapPanicked:
			return false
		case CapDataCond:
			if f.N == pointEnd {
				return false
			}
		}
	}
	return true
}

// goOperator is the Go operator of a comparison of the vocabulary.
func goOperator(op string) string {
	switch op {
	case "=":
		return "=="
	case "/=":
		return "!="
	}
	return op
}

// flagName names a state field (or method) of variable v in disjunct d
// of question q. Names are unique by construction: several questions,
// and the disjuncts of one (the branches of an or), meet at one site and
// name the same variables; v is written injectively (lower-case letters
// and digits as they are, any other character as _hex_), and q and d
// are delimited, so that two different (prefix, q, d, v) never give one
// name.
func flagName(prefix string, q, d int, v string) string {
	var b strings.Builder
	b.WriteString(prefix + strconv.Itoa(q))
	if d > 0 {
		b.WriteString("d" + strconv.Itoa(d)) // disjunct 0 keeps the short form
	}
	b.WriteByte('_')
	for _, r := range v {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteString("_" + strconv.FormatInt(int64(r), 16) + "_")
		}
	}
	return b.String()
}

// questionsOf returns the indexes of the questions a target emits
// tuples for, in order.
func questionsOf(t *Target) []int {
	seen := map[int]bool{}
	var qs []int
	for _, e := range t.Emits {
		if !seen[e.QIndex] {
			seen[e.QIndex] = true
			qs = append(qs, e.QIndex)
		}
	}
	sort.Ints(qs)
	return qs
}

// filters returns the filters of a target for question qi, one per
// variable, if the site can test them: a site that may record several
// functions has none.
func (sg *siteGen) filters(t *Target, qi int) []*Filters {
	if len(sg.s.Targets) != 1 || t.Filters == nil {
		return nil
	}
	return t.Filters[qi]
}

// hasCaller reports whether some variable a target records for question
// qi is the callee of a lexical relation.
func hasCaller(fs []*Filters) bool {
	for _, f := range fs {
		if f.Caller != "" || f.Absent != nil && !f.Absent.Off {
			return true
		}
	}
	return false
}

// bufferField names a caller's state field that keeps the tuples of its
// callees for question qi until it ends (Filters.Buffers).
func bufferField(qi int) string { return "b" + strconv.Itoa(qi) }

// tupleDest is where the tuples of question qi go at this site: to the
// log, or, when every event the site records for it is a callee whose
// caller keeps its callees' tuples, to the caller's buffer.
func (sg *siteGen) tupleDest(qi int, fs []*Filters) string {
	rt := sg.pc.Imports[sg.g.rtPath]
	if len(fs) == 0 || !sg.callerPtr {
		return rt
	}
	for _, f := range fs {
		if !f.Buffered && !sg.absent(f.Absent) {
			return rt
		}
	}
	return "s.cs." + bufferField(qi)
}

// passFlag names the state field that says variable v of question qi
// passed its pre-condition at this site; callees read their caller's.
func passFlag(qi, d int, v string) string { return flagName("p", qi, d, v) }

// calleeFlag names the caller's state field that says callee v of
// question qi ran and passed its tests.
func calleeFlag(qi, d int, v string) string { return flagName("c", qi, d, v) }

// filterSetup adds the state of the run-time filters: for each question
// and variable, a flag that says the execution passed the variable's
// pre-condition (for a callee, also that its caller passed), and a flag
// per callee the post-condition needs. The before-form sets the first;
// on is whether any passed.
func (sg *siteGen) filterSetup() error {
	if len(sg.s.Targets) != 1 || sg.s.Targets[0].Filters == nil {
		return nil
	}
	t := sg.s.Targets[0]
	var on []string
	for _, qi := range questionsOf(t) {
		fs := t.Filters[qi]
		if len(fs) == 0 { // recorded for a negated part: no filters
			fs = []*Filters{{Var: "all"}}
			t.Filters[qi] = fs
		}
		for _, f := range fs {
			pre := []string{}
			if !t.named(f.Name) {
				pre = append(pre, "false") // not the function the question names
			}
			for _, c := range f.Pre {
				if g, ok := sg.exactCond(f, c); ok {
					pre = append(pre, g)
				}
			}
			if f.Caller != "" && sg.callerPtr {
				pre = append(pre, "s.cs."+passFlag(qi, f.Disjunct, f.Caller))
			}
			if a := f.Absent; sg.absent(a) && !neverAt(sg.s, f) {
				switch {
				case a.Dynamic:
					pre = append(pre, sg.pc.Imports[sg.g.rtPath]+".Active("+strconv.Itoa(a.Slot)+")")
				case !sg.callerPtr:
					sg.turnOff(&a.Off)
				default:
					pre = append(pre, "s.cs."+passFlag(qi, f.Disjunct, a.Caller))
				}
			}
			for _, a := range f.Absences {
				if sg.absent(a) {
					sg.declare(absentFlag(qi, f.Disjunct, a.Var), "bool")
					if a.Dynamic {
						sg.enterFlag(qi, f, a)
					}
				}
			}
			pre = append(pre, sg.contextSetup(qi, f)...)
			if f.Probe != nil && !atEnd(f.Probe.LaterKey) {
				if probe := sg.probe(qi, f); probe != "" {
					pre = append(pre, probe)
				}
			}
			sg.heldFields(qi, f)
			if len(pre) == 0 {
				pre = []string{"true"}
			}
			if sg.targs != "" {
				// Call sites in a generic function cannot reach its
				// state to say they ran: do not wait for them (and an
				// aggregate that needs them is not exact).
				if len(f.Callees) > 0 && !neverAt(sg.s, f) {
					sg.failAggregate(f)
				}
				f.Callees = nil
			}
			if f.Buffers {
				// One buffer per question, whichever disjuncts keep it.
				sg.declareShared(bufferField(qi), sg.pc.Imports[sg.g.rtPath]+".Held")
			}
			if ra := f.Aggregate; ra != nil && ra.Caller == f.Var && ra.Caller != "" && sg.on(&ra.Off) {
				sg.declare(pendingField(qi), sg.pc.Imports[sg.g.rtPath]+".Held")
			}
			flag := passFlag(qi, f.Disjunct, f.Var)
			sg.declare(flag, "bool")
			for _, callee := range f.Callees {
				sg.declare(calleeFlag(qi, f.Disjunct, callee), "bool")
			}
			sg.tmpl.Before = append(sg.tmpl.Before, "s."+flag+" = "+strings.Join(pre, " && "))
			on = append(on, "s."+flag)
		}
	}
	sg.tmpl.Before = append(sg.tmpl.Before, "s.on = "+strings.Join(on, " || "))
	return nil
}

// passes is the test, at the end of an execution, that it is an event of
// variable f.Var of question qi: it passed the pre-condition, its own
// post-condition, and its callees ran and passed theirs.
func (sg *siteGen) passes(qi int, f *Filters) string {
	conds := []string{"s." + passFlag(qi, f.Disjunct, f.Var)}
	for _, c := range f.Post {
		if g, ok := sg.exactCond(f, c); ok {
			conds = append(conds, g)
		}
	}
	for _, a := range f.Absences {
		if sg.absent(a) {
			conds = append(conds, "!s."+absentFlag(qi, f.Disjunct, a.Var))
		}
	}
	for _, callee := range f.Callees {
		conds = append(conds, "s."+calleeFlag(qi, f.Disjunct, callee))
	}
	if f.Probe != nil && atEnd(f.Probe.LaterKey) {
		if probe := sg.probe(qi, f); probe != "" {
			conds = append(conds, probe)
		}
	}
	if f.Hold != nil && readsResults(f.Hold.EarlierKey) || f.Probe != nil && readsResults(f.Probe.LaterKey) {
		conds = append(conds, "s.ok") // no results, no key: it equals none
	}
	return strings.Join(conds, " && ")
}

// postCondition keeps the tuples of question qi when the execution is an
// event of any of the question's variables the site records.
func (sg *siteGen) postCondition(qi int, fs []*Filters) string {
	var alts []string
	for _, f := range fs {
		alts = append(alts, "("+sg.passes(qi, f)+")")
	}
	return strings.Join(alts, " || ")
}

// exactCond is goCond for a test of f's event. A test the site cannot
// write is left out, which only records more, unless the event's negated
// part or its question's aggregate relies on it being exact: those are
// turned off.
func (sg *siteGen) exactCond(f *Filters, c Cond) (string, bool) {
	g, ok := sg.goCond(c)
	if !ok && !neverAt(sg.s, f) {
		if sg.absent(f.Absent) {
			sg.turnOff(&f.Absent.Off)
		}
		sg.failAggregate(f)
	}
	return g, ok
}

// goCond writes a Cond as a Go boolean expression over the state, when
// the types allow; a Cond it cannot write is not tested (sound: it only
// records more).
func (sg *siteGen) goCond(c Cond) (string, bool) {
	var args []string
	var argTypes []types.Type
	for _, t := range c.Atom.Args {
		if t.Lit != nil {
			args = append(args, goLiteral(t.Lit))
			argTypes = append(argTypes, nil)
			continue
		}
		if v := c.Values[t.Var]; !c.Outer[t.Var] && v.Cap == CapDataCond && sg.absentConds[v] {
			// The execution has no such value: no comparison of it
			// holds, nor its negation (the attribute's atom fails).
			return "false", true
		}
		expr, typ, ok := sg.stateValue(c.Values[t.Var])
		if c.Outer[t.Var] {
			expr, typ, ok = sg.callerValue(c.Values[t.Var])
		}
		if !ok {
			return "", false
		}
		args = append(args, expr)
		argTypes = append(argTypes, typ)
	}
	if !comparableAs(c.Atom, argTypes) {
		return "", false
	}
	g := "(" + args[0] + " " + goOperator(c.Atom.Pred()) + " " + args[1] + ")"
	if c.Negated {
		g = "!" + g
	}
	var read []Field
	for _, v := range c.Values {
		read = append(read, v)
	}
	if readsResults(read) {
		// An execution that panicked has no results: the comparison,
		// negated or not, cannot hold of it.
		g = "(s.ok && " + g + ")"
	}
	return g, true
}

// stateValue is the Go expression of a captured value in the state.
func (sg *siteGen) stateValue(f Field) (string, types.Type, bool) {
	var name string
	switch f.Cap {
	case CapParam:
		name = "p" + strconv.Itoa(f.N)
	case CapResult:
		name = "r" + strconv.Itoa(f.N)
	case CapReceiver:
		name = "recv"
	case CapDuration:
		return "(s.t1 - s.t0)", types.Typ[types.Int64], true
	case CapPanicked:
		return "!s.ok", types.Typ[types.Bool], true
	case CapDataCond:
		name, _, _ = dataCondValue(sg.vals, f)
	}
	v, ok := sg.vals[name]
	if !ok {
		return "", nil, false
	}
	return "s." + name, v.typ, true
}

// callerValue is the Go expression of a value captured by the caller's
// state, read through the call site's pointer to it.
func (sg *siteGen) callerValue(f Field) (string, types.Type, bool) {
	if !sg.callerPtr || sg.callerSite == nil {
		return "", nil, false
	}
	caller := &siteGen{vals: sg.g.defVals[sg.callerSite]}
	expr, typ, ok := caller.stateValue(f)
	if !ok || !strings.HasPrefix(expr, "s.") {
		return "", nil, false
	}
	return "s.cs." + strings.TrimPrefix(expr, "s."), typ, true
}

// comparableAs reports whether Go can compare the two sides as the atom
// does: basic types, literals of a matching kind, ordered for < and the
// like.
func comparableAs(a *spec.Atom, ts []types.Type) bool {
	var basic []*types.Basic
	for _, t := range ts {
		if t == nil {
			continue // a literal
		}
		b, ok := t.Underlying().(*types.Basic)
		if !ok {
			return false
		}
		basic = append(basic, b)
	}
	if len(basic) == 0 {
		return false
	}
	if len(basic) == 2 && !types.Identical(basic[0], basic[1]) {
		return false
	}
	for _, t := range a.Args {
		if t.Lit == nil {
			continue
		}
		other := basic[0]
		switch t.Lit.Kind {
		case spec.LitInt:
			if other.Info()&types.IsNumeric == 0 {
				return false
			}
		case spec.LitFloat:
			if other.Info()&types.IsFloat == 0 {
				return false
			}
		case spec.LitString:
			if other.Info()&types.IsString == 0 {
				return false
			}
		case spec.LitBool:
			if other.Info()&types.IsBoolean == 0 {
				return false
			}
		default:
			return false
		}
	}
	if spec.IsOrdering(a.Pred()) && basic[0].Info()&types.IsOrdered == 0 {
		return false
	}
	return true
}

func goLiteral(l *spec.Literal) string {
	if l.Kind == spec.LitString {
		return strconv.Quote(l.Str)
	}
	return l.String()
}
