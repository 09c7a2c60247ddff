package instrument

import (
	"fmt"
	"go/types"
	"strconv"

	"pmm.dev/pmm/plan"
)

// aggregating returns the run-time aggregate of the question of fs when
// the site adds its tuples to cells instead of recording them.
func (sg *siteGen) aggregating(fs []*plan.Filters) *plan.RunAggregate {
	for _, f := range fs {
		if ra := f.Aggregate; ra != nil && sg.on(ra) {
			for _, p := range ra.Pairs {
				if !sg.active(p) {
					sg.turnOff(ra)
				}
			}
			for _, ab := range ra.Absences {
				if !sg.absent(ab) {
					sg.turnOff(ra)
				}
			}
			if sg.on(ra) {
				return ra
			}
		}
	}
	return nil
}

// failAggregate turns off the run-time aggregate of fs' question, when a
// test of it cannot be written at this site.
func (sg *siteGen) failAggregate(f *plan.Filters) {
	if f.Aggregate != nil {
		sg.turnOff(f.Aggregate)
	}
}

// pendingField names the caller's state field that holds the additions of
// its callees until it ends.
func pendingField(qi int) string { return "a" + strconv.Itoa(qi) }

// contribute renders the addition of an execution of the event to the
// cells of question qi: to the runtime, or, for a callee, to its caller's
// pending additions.
func (sg *siteGen) contribute(qi int, t *plan.Target, ra *plan.RunAggregate, f *plan.Filters) ([]string, error) {
	rt := sg.pc.Imports[sg.g.rtPath]
	dest := rt
	if ra.Caller != "" {
		if !sg.callerPtr {
			sg.turnOff(ra)
			return nil, nil
		}
		dest = "s.cs." + pendingField(qi)
	}
	lines := []string{"var r " + rt + ".Rec"}
	for _, g := range ra.Group {
		enc, err := sg.encodeField(t, g)
		if err != nil {
			sg.turnOff(ra)
			return nil, nil
		}
		lines = append(lines, enc...)
	}
	call := fmt.Sprintf("%s.AggInt(%d, &r, 0)", dest, ra.Table)
	if ra.Value != nil {
		expr, typ, ok := sg.aggValue(*ra.Value)
		if !ok {
			sg.turnOff(ra)
			return nil, nil
		}
		call = fmt.Sprintf("%s.Agg%s(%d, &r, %s)", dest, typ, ra.Table, expr)
	}
	lines = append(lines, call)
	read := append([]plan.Field(nil), ra.Group...)
	if ra.Value != nil {
		read = append(read, *ra.Value)
	}
	if readsResults(read) {
		lines = append([]string{"if s.ok { // no results, no tuple to add"}, append(indent(lines), "}")...)
	}
	if f == nil {
		return append([]string{"{"}, append(indent(lines), "}")...), nil // every execution is one
	}
	return append([]string{"if " + sg.passes(qi, f) + " {"}, append(indent(lines), "}")...), nil
}

// unfilteredAggregate returns the run-time aggregate of question qi at a
// site without filters (one that may run several functions), whose event
// tests nothing but its function's name: target t adds every execution
// of the function the question names, or of any.
func (sg *siteGen) unfilteredAggregate(t *plan.Target, qi int) *plan.RunAggregate {
	for _, f := range t.Filters[qi] {
		if ra := f.Aggregate; ra != nil && sg.on(ra) && f.Var == ra.Event && plan.Untested(f) {
			if !t.Named(f.Name) {
				return nil
			}
			return ra
		}
	}
	return nil
}

// aggValue is the Go expression of the value an aggregate reads, and
// whether it is an Int or a Float.
func (sg *siteGen) aggValue(f plan.Field) (string, string, bool) {
	expr, typ, ok := sg.stateValue(f)
	if !ok {
		return "", "", false
	}
	b, ok := typ.Underlying().(*types.Basic)
	switch {
	case !ok:
		return "", "", false
	case b.Info()&types.IsUnsigned != 0:
		return "", "", false // the answer holds it unsigned
	case b.Info()&types.IsInteger != 0:
		return "int64(" + expr + ")", "Int", true
	case b.Info()&types.IsFloat != 0:
		return "float64(" + expr + ")", "Float", true
	}
	return "", "", false
}

// aggregateBlock renders question qi at a site whose tuples go to cells:
// the event adds its tuple, the caller releases its callees' additions
// when it passes, and an earlier event of an inter-event test holds only
// its key (held, with the calls holds that return its Held).
func (sg *siteGen) aggregateBlock(qi int, t *plan.Target, ra *plan.RunAggregate, fs, held []*plan.Filters, holds []string) ([]string, error) {
	var out []string
	for i, f := range held {
		out = append(out, "if "+sg.passes(qi, f)+" {", "\t_ = "+holds[i], "}")
	}
	for _, f := range fs {
		if plan.NeverAt(sg.s, f) {
			continue
		}
		switch f.Var {
		case ra.Event:
			lines, err := sg.contribute(qi, t, ra, f)
			if err != nil {
				return nil, err
			}
			out = append(out, lines...)
		case ra.Caller:
			out = append(out, "if "+sg.passes(qi, f)+" {", "\ts."+pendingField(qi)+".Release()", "}")
		}
	}
	return out, nil
}
