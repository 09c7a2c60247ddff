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
type Context struct {
	Ancestor, Descendant string
	Slot                 int
	// Off says some site of the ancestor cannot enter the context (a
	// call that may run several functions has no filters): the
	// descendant must then be recorded without the test.
	Off bool
}

// contextsOf finds the calls* relations of a disjunct, outside its
// negated parts, with slots numbered from next.
func contextsOf(root *spec.Conj, next int) []*Context {
	var out []*Context
	for _, at := range root.Atoms {
		if at.Prim.Name == "calls*" && at.Args[0].Lit == nil && at.Args[1].Lit == nil && at.Args[0].Var != at.Args[1].Var {
			out = append(out, &Context{Ancestor: at.Args[0].Var, Descendant: at.Args[1].Var, Slot: next + len(out)})
		}
	}
	return out
}

// inContext reports whether the site generates the code of c.
func (sg *siteGen) inContext(c *Context) bool { return c != nil && sg.on(&c.Off) }

// contextField names the state field of an ancestor's Enter.
func contextField(qi int, c *Context) string {
	return flagName("x", qi, c.Ancestor) + "_" + strconv.Itoa(c.Slot)
}

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
			tests = append(tests, rt+".Active("+slot+")")
		case c.Ancestor:
			field := contextField(qi, c)
			sg.fields = append(sg.fields, field+" "+rt+".Ctx")
			enter := rt + ".Enter(" + slot + ")"
			if sg.caps[CapGoroutine] {
				enter = rt + ".EnterG(" + slot + ", s.g)" // the goroutine is taken already
			}
			sg.enters = append(sg.enters, "if s."+passFlag(qi, f.Var)+" {", "\ts."+field+" = "+enter, "}")
			sg.tmpl.After = append(sg.tmpl.After, "s."+field+".Leave()")
		}
	}
	return tests
}
