package instrument

import (
	"fmt"
	"go/types"
	"slices"
	"strconv"
	"strings"

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
		if !sg.g.callerPassesAtBegin(ra) {
			dest = "cs." + pendingField(qi)
		}
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
	if readsResults(aggregateFields(ra)) {
		lines = append([]string{"if s.ok { // no results, no tuple to add"}, append(indent(lines), "}")...)
	}
	if f == nil {
		return append([]string{"{"}, append(indent(lines), "}")...), nil // every execution is one
	}
	return append([]string{"if " + sg.passes(qi, f) + " {"}, append(indent(lines), "}")...), nil
}

// aggregateFields are the values an addition to the cells of ra reads:
// its group, then its value.
func aggregateFields(ra *plan.RunAggregate) []plan.Field {
	read := append([]plan.Field(nil), ra.Group...)
	if ra.Value != nil {
		read = append(read, *ra.Value)
	}
	return read
}

// aggregateAtBegin returns the run-time aggregate of question qi at
// target t when its executions are added to the cells as they begin
// (fs, the question's filters there, nil at a site without filters):
// when the group and the value are known at the begin, and whether an
// execution is in the relation too (its tests run at its begin; no
// callee, negated part or later event to wait for, and a caller only if
// it passes at its own begin). An
// execution that began is then counted even if the process ends before
// it does (a worker whose deferred wg.Done lets main return first), as
// the reference semantics counts it. An aggregate that needs the end
// adds at the end: an execution that never ended is in no relation that
// reads its end.
func (sg *siteGen) aggregateAtBegin(t *plan.Target, qi int, fs []*plan.Filters) *plan.RunAggregate {
	ra := sg.unfilteredAggregate(t, qi)
	if fs != nil {
		ra = sg.aggregating(fs)
	}
	if ra == nil || ra.Caller != "" && !sg.g.callerPassesAtBegin(ra) || len(ra.Pairs) > 0 || len(ra.Absences) > 0 || atEnd(aggregateFields(ra)) {
		return nil
	}
	for _, f := range fs {
		if f.Var == ra.Event && !plan.NeverAt(sg.s, f) && (len(f.Post) > 0 || len(f.Callees) > 0 || len(f.Absences) > 0 ||
			f.Absent != nil || f.Hold != nil || f.Probe != nil || len(f.Holds) > 0 || f.Buffers || f.Buffered) {
			return nil
		}
	}
	return ra
}

// callerPassesAtBegin reports whether the caller of ra's event passes on
// what is known at its begin and on having called the event: then a
// callee that passed (it tests its caller's pre-condition) is in the
// relation, and adds to the cells itself instead of waiting for its
// caller's end, which may never come (a worker still running when the
// process exits).
func (g *generator) callerPassesAtBegin(ra *plan.RunAggregate) bool {
	if known, ok := g.callerAtBegin[ra]; ok {
		return known
	}
	known, found := ra.Caller != "", false
	for _, s := range g.plan.Sites {
		for _, t := range s.Targets {
			for _, fs := range t.Filters {
				for _, f := range fs {
					if f.Aggregate != ra || f.Var != ra.Caller {
						continue
					}
					found = true
					for _, c := range f.Callees {
						known = known && c == ra.Event
					}
					known = known && len(f.Post) == 0 && len(f.Absences) == 0 && f.Absent == nil && f.Hold == nil && f.Probe == nil &&
						len(f.Holds) == 0 && !f.Buffers && !f.Buffered
				}
			}
		}
	}
	known = known && found
	g.callerAtBegin[ra] = known
	return known
}

// additions renders the additions of the executions of ra's event at
// the site to the cells of question qi: one for each of its filters fs
// (one for every execution at a site without filters).
func (sg *siteGen) additions(qi int, t *plan.Target, ra *plan.RunAggregate, fs []*plan.Filters) ([]string, error) {
	if fs == nil {
		return sg.contribute(qi, t, ra, nil)
	}
	var out []string
	for _, f := range fs {
		if f.Var != ra.Event || plan.NeverAt(sg.s, f) {
			continue
		}
		lines, err := sg.contribute(qi, t, ra, f)
		if err != nil {
			return nil, err
		}
		out = append(out, lines...)
	}
	return out, nil
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
// its key (held, with the calls holds that return its Held). An event
// added at its begin (aggregateAtBegin) adds nothing here.
func (sg *siteGen) aggregateBlock(qi int, t *plan.Target, ra *plan.RunAggregate, fs, held []*plan.Filters, holds []string) ([]string, error) {
	var out []string
	for i, f := range held {
		out = append(out, "if "+sg.passes(qi, f)+" {", "\t_ = "+holds[i], "}")
	}
	if sg.aggregateAtBegin(t, qi, fs) != ra {
		lines, err := sg.additions(qi, t, ra, fs)
		if err != nil {
			return nil, err
		}
		out = append(out, lines...)
	}
	for _, f := range fs {
		if f.Var == ra.Caller && !plan.NeverAt(sg.s, f) {
			out = append(out, "if "+sg.passes(qi, f)+" {", "\ts."+pendingField(qi)+".Release()", "}")
		}
	}
	return out, nil
}

// constantCells returns, for a site (a definition, or a call of a
// function outside the module) whose only work is to count its
// executions in cells whose groups are known when the site is
// generated (every question at it a count grouped by the function's
// name or constants, added at the begin, with no test), the
// declarations of its Cells (pmmrt.NewCell, one per question) and the
// statements that count an execution in them (Cell.Count: the gate,
// inlined, and an add to the cell of the goroutine's P; no state, no
// id, no defer). ok is false for
// any other site.
func (sg *siteGen) constantCells() (decls, counts []string, ok bool) {
	s := sg.s
	if len(s.Targets) != 1 || s.Caller || sg.g.adopters[s.FuncID] || s.Targets[0].Publish {
		return nil, nil, false
	}
	t := s.Targets[0]
	qs := t.Questions()
	for qi := range t.Filters {
		if !slices.Contains(qs, qi) {
			return nil, nil, false // a question it records nothing for, but tests (a negated part)
		}
	}
	rt := sg.pc.Imports[sg.g.rtPath]
	for _, qi := range qs {
		fs := sg.filters(t, qi)
		ra := sg.aggregateAtBegin(t, qi, fs)
		if ra == nil || ra.Value != nil || ra.Caller != "" {
			return nil, nil, false
		}
		for _, f := range fs {
			if f.Var != ra.Event || !plan.Untested(f) || plan.NeverAt(s, f) || f.Marks || f.Buffers || f.Buffered || len(f.Exports) > 0 {
				return nil, nil, false
			}
		}
		var group []string
		for _, g := range ra.Group {
			if g.Cap != plan.CapFunction && g.Cap != plan.CapConst {
				return nil, nil, false
			}
			enc, err := sg.encodeField(t, g)
			if err != nil {
				return nil, nil, false
			}
			group = append(group, enc...)
		}
		cell := sg.name("cell")
		if len(qs) > 1 {
			cell += "q" + strconv.Itoa(qi)
		}
		decls = append(decls, fmt.Sprintf("var %s = %s.NewCell(func(r *%s.Rec) { %s }, %d)", cell, rt, rt, strings.Join(group, "; "), ra.Table))
		counts = append(counts, cell+".Count()")
	}
	return decls, counts, len(counts) > 0
}
