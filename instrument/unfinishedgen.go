package instrument

import (
	"strconv"
	"strings"

	"pmm.dev/pmm/plan"
)

// An execution's end decides what a site keeps of it when its filters
// wait for a callee, a negated part, a pair or a caller's buffer; if it
// never ends (its goroutine still ran when the process exited), what it
// passed before is lost. The site counts such executions in the counters
// file, which survives any exit (rt/pmmrt's Began and Ended); the loader
// flags the answers that may miss the ones still open.

// openField is the state field that holds the site number an execution
// counted as open, 0 if none.
const openField = "open"

// waitsForEnd reports whether the tuples or cells of question qi that
// target t keeps until an execution ends may be owed to one that never
// ends: they read nothing of its end, and some filter of the question
// passes on what may be known before it. An execution that never ended
// has no end: a tuple or a test that reads it is rightly absent.
func (sg *siteGen) waitsForEnd(t *plan.Target, qi int, fs []*plan.Filters) bool {
	for _, e := range t.Emits {
		if e.QIndex == qi && atEnd(e.Fields) {
			return false
		}
	}
	if fs == nil {
		return true
	}
	ra := sg.aggregating(fs)
	for _, f := range fs {
		switch {
		case plan.NeverAt(sg.s, f):
		case ra != nil && f.Var == ra.Caller && sg.g.callerPassesAtBegin(ra):
			// Its callees add to the cells themselves.
		case !testsEnd(f):
			return true
		}
	}
	return false
}

// testsEnd reports whether f's post-condition holds only of an execution
// that ended: a test of its results, duration or panicked that is not
// negated (a negated one holds of an execution without an end).
func testsEnd(f *plan.Filters) bool {
	for _, c := range f.Post {
		if !c.Negated {
			return true
		}
	}
	return false
}

// countOpen returns the statements of the before-form that count an
// execution of target t as open when a question of waits (see
// waitsForEnd) applies to it, and adds the after-form's that count its
// end; it notes the questions in Code.WaitEnd.
func (sg *siteGen) countOpen(t *plan.Target, waits []int) []string {
	if len(waits) == 0 {
		return nil
	}
	rt := sg.pc.Imports[sg.g.rtPath]
	if !sg.fieldNames[openField] {
		sg.declare(openField, "int")
		sg.tmpl.After = append(sg.tmpl.After, "if s."+openField+" != 0 {", "\t"+rt+".Ended(s."+openField+")", "}")
	}
	if sg.g.code.WaitEnd == nil {
		sg.g.code.WaitEnd = map[int][]int{}
	}
	sg.g.code.WaitEnd[t.SiteID] = append(sg.g.code.WaitEnd[t.SiteID], waits...)
	cond := "s.on"
	if fs := sg.filters(t, waits[0]); fs != nil {
		var flags []string
		for _, qi := range waits {
			for _, f := range sg.filters(t, qi) {
				flags = append(flags, "s."+passFlag(qi, f.Disjunct, f.Var))
			}
		}
		cond = strings.Join(flags, " || ")
	}
	id := strconv.Itoa(t.SiteID)
	return []string{"if " + cond + " {", "\ts." + openField + " = " + id, "\t" + rt + ".Began(" + id + ")", "}"}
}
