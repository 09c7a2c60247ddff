package instrument

import (
	"strconv"

	"pmm.dev/pmm/spec"
)

// Context is a (calls* a d) decided at run time through the
// goroutine-local dynamic context (pmmrt.Enter, Active): an execution of
// a that passed its pre-condition enters slot Slot until it ends, and an
// execution of d is recorded only when such an execution of a is active
// in its goroutine. Unlike calls, the two sites are in different
// functions, so no local variable links them. The test is sound (an
// execution of d dropped has no active a in its goroutine, so no a calls
// it); the view still decides calls* from ids, ends and goroutines.
//
// (contains a d) holds across goroutines: a only counts its executions
// (pmmrt.EnterAny), and d is recorded only when one is active anywhere
// (pmmrt.Any), a test that costs an atomic load.
type Context struct {
	Ancestor, Descendant string
	Slot                 int
	Anywhere             bool // contains, not calls*
	// Off says some site of the ancestor cannot enter the context (a
	// call that may run several functions has no filters): the
	// descendant must then be recorded without the test.
	Off bool
}

// contextsOf finds the calls* and contains relations between two
// executions of a disjunct, outside its negated parts, with slots
// numbered from next.
func contextsOf(root *spec.Conj, types spec.VarTypes, next int) []*Context {
	var out []*Context
	for _, at := range root.Atoms {
		a, d := at.Args[0], at.Args[len(at.Args)-1]
		if (at.Prim.Name == "calls*" || at.Prim.Name == "contains") && a.Lit == nil && d.Lit == nil && a.Var != d.Var &&
			types[a.Var] == spec.TypeFunctionExecution && types[d.Var] == spec.TypeFunctionExecution {
			out = append(out, &Context{Ancestor: a.Var, Descendant: d.Var, Slot: next + len(out), Anywhere: at.Prim.Name == "contains"})
		}
	}
	return out
}

// inContext reports whether the site generates the code of c.
func (sg *siteGen) inContext(c *Context) bool { return c != nil && sg.on(&c.Off) }

// slotField names the state field of an ancestor's Enter of a
// goroutine-local slot (a context's, or a dynamic absence's): slots are
// numbered across all questions, so the name is unique.
func slotField(slot int) string { return "x" + strconv.Itoa(slot) }

// contextSetup adds, for variable f.Var of question qi, the Enter of the
// contexts it is the ancestor of (once its id, clocks and goroutine are
// taken, and left when it ends), and returns the tests of those it is
// the descendant of, for its pre-condition.
func (sg *siteGen) contextSetup(qi int, f *Filters) []string {
	rt := sg.pc.Imports[sg.g.rtPath]
	var tests []string
	for _, c := range f.Contexts {
		if !sg.inContext(c) {
			continue
		}
		slot := strconv.Itoa(c.Slot)
		switch f.Var {
		case c.Descendant:
			if c.Anywhere {
				tests = append(tests, rt+".Any("+slot+")")
			} else {
				tests = append(tests, rt+".Active("+slot+")")
			}
		case c.Ancestor:
			field := slotField(c.Slot)
			sg.declare(field, rt+".Ctx")
			enter := rt + ".Enter(" + slot + ")"
			switch {
			case c.Anywhere:
				enter = rt + ".EnterAny(" + slot + ")"
			case sg.caps[CapGoroutine]:
				enter = rt + ".EnterG(" + slot + ", s.g)" // the goroutine is taken already
			}
			sg.enters = append(sg.enters, "if s."+passFlag(qi, f.Disjunct, f.Var)+" {", "\ts."+field+" = "+enter, "}")
			sg.tmpl.After = append(sg.tmpl.After, "s."+field+".Leave()")
		}
	}
	return tests
}
