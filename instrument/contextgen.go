package instrument

import (
	"strconv"

	"pmm.dev/pmm/plan"
)

// inContext reports whether the site generates the code of c.
func (sg *siteGen) inContext(c *plan.Context) bool { return c != nil && sg.on(c) }

// slotField names the state field of an ancestor's Enter of a
// goroutine-local slot (a context's, or a dynamic absence's): slots are
// numbered across all questions, so the name is unique.
func slotField(slot int) string { return "x" + strconv.Itoa(slot) }

// contextSetup adds, for variable f.Var of question qi, the Enter of the
// contexts it is the ancestor of (once its id, clocks and goroutine are
// taken, and left when it ends), and returns the tests of those it is
// the descendant of, for its pre-condition.
func (sg *siteGen) contextSetup(qi int, f *plan.Filters) []string {
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
			case sg.caps[plan.CapGoroutine]:
				enter = rt + ".EnterG(" + slot + ", s.g)" // the goroutine is taken already
			}
			sg.enters = append(sg.enters, "if s."+passFlag(qi, f.Disjunct, f.Var)+" {", "\ts."+field+" = "+enter, "}")
			sg.tmpl.After = append(sg.tmpl.After, "s."+field+".Leave()")
		}
	}
	return tests
}
