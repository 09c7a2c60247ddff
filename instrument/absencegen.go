package instrument

import (
	"strconv"

	"pmm.dev/pmm/plan"
)

// absent reports whether the site generates the code of a; like active.
func (sg *siteGen) absent(a *plan.Absence) bool {
	return a != nil && sg.on(a)
}

// absentFlag names the caller's state field that says an execution of
// the negated part's event h of question qi ran in its body.
func absentFlag(qi, d int, h string) string { return flagName("n", qi, d, h) }

// markAbsent is the statement by which an execution of a negated part's
// event that passed its tests tells the executions it is inside.
func (sg *siteGen) markAbsent(qi int, f *plan.Filters) string {
	a := f.Absent
	if a.Dynamic {
		return sg.pc.Imports[sg.g.rtPath] + ".MarkAll(" + strconv.Itoa(a.Slot) + ")"
	}
	return "cs." + absentFlag(qi, f.Disjunct, a.Var) + " = true"
}

// enterFlag makes the caller f.Var of a dynamic absence enter its slot
// with a flag once it passed its pre-condition, and leave it when it
// ends, reading the flag into its state before its post-condition reads
// it. The runtime keeps the flag: a pointer into the state would move the
// state, a local variable of the user's function, to the heap.
func (sg *siteGen) enterFlag(qi int, f *plan.Filters, a *plan.Absence) {
	rt := sg.pc.Imports[sg.g.rtPath]
	field := slotField(a.Slot)
	sg.declare(field, rt+".Ctx")
	slot := strconv.Itoa(a.Slot)
	enter := rt + ".EnterFlag(" + slot + ")"
	if sg.caps[plan.CapGoroutine] {
		enter = rt + ".EnterFlagG(" + slot + ", s.g)"
	}
	sg.enters = append(sg.enters, "if s."+passFlag(qi, f.Disjunct, f.Var)+" {", "\ts."+field+" = "+enter, "}")
	sg.tmpl.After = append(sg.tmpl.After, "s."+absentFlag(qi, f.Disjunct, a.Var)+" = s."+field+".LeaveMarked()")
}
