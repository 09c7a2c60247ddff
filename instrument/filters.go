package instrument

import (
	"go/types"
	"strconv"
	"strings"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/spec"
)

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

// filters returns the filters of a target for question qi, one per
// variable, if the site can test them: a site that may record several
// functions has none.
func (sg *siteGen) filters(t *plan.Target, qi int) []*plan.Filters {
	if len(sg.s.Targets) != 1 || t.Filters == nil {
		return nil
	}
	return t.Filters[qi]
}

// callees are the callees f's event waits for at this site: none in a
// generic function, whose call sites cannot reach its state to say they
// ran.
func (sg *siteGen) callees(f *plan.Filters) []string {
	if sg.targs != "" {
		return nil
	}
	return f.Callees
}

// hasCaller reports whether some variable a target records for question
// qi is the callee of a lexical relation.
func (sg *siteGen) hasCaller(fs []*plan.Filters) bool {
	for _, f := range fs {
		if f.Caller != "" || f.Absent != nil && sg.g.plan.On(f.Absent) {
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
func (sg *siteGen) tupleDest(qi int, fs []*plan.Filters) string {
	rt := sg.pc.Imports[sg.g.rtPath]
	if len(fs) == 0 || !sg.callerPtr {
		return rt
	}
	for _, f := range fs {
		if !f.Buffered && !sg.absent(f.Absent) {
			return rt
		}
	}
	return "cs." + bufferField(qi)
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
	for _, qi := range t.Questions() {
		for _, f := range t.Filters[qi] {
			pre := []string{}
			if !t.Named(f.Name) {
				pre = append(pre, "false") // not the function the question names
			}
			for _, c := range f.Pre {
				if g, ok := sg.exactCond(f, c); ok {
					pre = append(pre, g)
				}
			}
			if f.Caller != "" && sg.callerPtr {
				pre = append(pre, "cs."+passFlag(qi, f.Disjunct, f.Caller))
			}
			if a := f.Absent; sg.absent(a) && !plan.NeverAt(sg.s, f) {
				switch {
				case a.Dynamic:
					pre = append(pre, sg.pc.Imports[sg.g.rtPath]+".Active("+strconv.Itoa(a.Slot)+")")
				case !sg.callerPtr:
					sg.turnOff(a)
				default:
					pre = append(pre, "cs."+passFlag(qi, f.Disjunct, a.Caller))
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
			if sg.targs != "" && len(f.Callees) > 0 && !plan.NeverAt(sg.s, f) {
				sg.failAggregate(f) // an aggregate that waits for callees (see callees) is not exact
			}
			if f.Buffers {
				// One buffer per question, whichever disjuncts keep it.
				sg.declareShared(bufferField(qi), sg.pc.Imports[sg.g.rtPath]+".Held")
			}
			if ra := f.Aggregate; ra != nil && ra.Caller == f.Var && ra.Caller != "" && sg.on(ra) {
				sg.declare(pendingField(qi), sg.pc.Imports[sg.g.rtPath]+".Held")
			}
			flag := passFlag(qi, f.Disjunct, f.Var)
			sg.declare(flag, "bool")
			for _, callee := range sg.callees(f) {
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
func (sg *siteGen) passes(qi int, f *plan.Filters) string {
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
	for _, callee := range sg.callees(f) {
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
func (sg *siteGen) postCondition(qi int, fs []*plan.Filters) string {
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
func (sg *siteGen) exactCond(f *plan.Filters, c plan.Cond) (string, bool) {
	g, ok := sg.goCond(c)
	if !ok && !plan.NeverAt(sg.s, f) {
		if sg.absent(f.Absent) {
			sg.turnOff(f.Absent)
		}
		sg.failAggregate(f)
	}
	return g, ok
}

// goCond writes a Cond as a Go boolean expression over the state, when
// the types allow; a Cond it cannot write is not tested (sound: it only
// records more).
func (sg *siteGen) goCond(c plan.Cond) (string, bool) {
	var args []string
	var argTypes []types.Type
	for _, t := range c.Atom.Args {
		if t.Lit != nil {
			args = append(args, goLiteral(t.Lit))
			argTypes = append(argTypes, nil)
			continue
		}
		if v := c.Values[t.Var]; !c.Outer[t.Var] && v.Cap == plan.CapDataCond && sg.absentConds[v] {
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
	g := "(" + args[0] + " " + c.Atom.Prim.Compares.Go + " " + args[1] + ")"
	if c.Negated {
		g = "!" + g
	}
	var read []plan.Field
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
func (sg *siteGen) stateValue(f plan.Field) (string, types.Type, bool) {
	cc := captureCodes[f.Cap]
	var name string
	switch {
	case f.Cap == plan.CapDataCond:
		name, _, _ = dataCondValue(sg.vals, f)
	case cc.list:
		return "", nil, false // no comparison reads a list
	case cc.value:
		name = valueField(f)
	case cc.int64 != "":
		return "(" + sg.int64Of(f.Cap) + ")", types.Typ[types.Int64], true
	case cc.boolean != "":
		return cc.boolean, types.Typ[types.Bool], true
	}
	v, ok := sg.vals[name]
	if !ok {
		return "", nil, false
	}
	return "s." + name, v.typ, true
}

// callerValue is the Go expression of a value captured by the caller's
// state, read through the call site's pointer to it.
func (sg *siteGen) callerValue(f plan.Field) (string, types.Type, bool) {
	if !sg.callerPtr || sg.callerSite == nil {
		return "", nil, false
	}
	caller := &siteGen{vals: sg.g.defVals[sg.callerSite]}
	expr, typ, ok := caller.stateValue(f)
	if !ok || !strings.HasPrefix(expr, "s.") {
		return "", nil, false
	}
	return "cs." + strings.TrimPrefix(expr, "s."), typ, true
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
