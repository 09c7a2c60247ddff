package instrument

import (
	"fmt"
	"strconv"
	"strings"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/spec"
)

// An execution's end decides what a site keeps of it when its filters
// wait for a callee, a negated part, a pair or a caller's buffer; if it
// never ends (its goroutine still ran when the process exited), what it
// passed before is lost. Where the test can pass before the end, the
// execution is recorded then: a callee whose tests are known at its
// begin tells its caller then (testedAtBegin), and a caller that waits
// only for callees is recorded by the one that makes it pass
// (passesEarly). Elsewhere the site counts such executions in the
// counters file, which survives any exit (rt/pmmrt's Began and Ended),
// and the loader flags the answers that may miss the ones still open.

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
		// Counted ended once its tuples are recorded: a process that
		// exits in between leaves it open, not ended and missing.
		sg.tmpl.After = append(sg.tmpl.After, "if s."+openField+" != 0 {", "\tdefer "+rt+".Ended(s."+openField+")", "}")
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
	id := sg.siteID(t)
	return []string{"if " + cond + " {", "\ts." + openField + " = " + id, "\t" + rt + ".Began(" + id + ")", "}"}
}

// passesEarly reports whether an execution at this definition site is an
// event of question qi as soon as its last callee the question waits for
// passed, with all its tuples or cells known then: its filters (fs) test
// nothing else after its begin (no end, negated part, pair, buffer or
// context) and what it records reads nothing of its end. Its callees
// then record it when they pass (passMethod) instead of leaving it to its
// end, which may never come (a worker still running when the process
// exited).
func (sg *siteGen) passesEarly(t *plan.Target, qi int, fs []*plan.Filters) bool {
	if sg.s.Kind != spec.SiteDefinition || sg.targs != "" || timedOnly(t, qi) {
		return false
	}
	for _, e := range t.Emits {
		if e.QIndex == qi && atEnd(e.Fields) {
			return false
		}
	}
	ra := sg.aggregating(fs)
	if ra != nil && (atEnd(aggregateFields(ra)) || len(ra.Pairs) > 0 || len(ra.Absences) > 0) {
		return false
	}
	waits := false
	for _, f := range fs {
		if plan.NeverAt(sg.s, f) {
			continue
		}
		if len(f.Post) > 0 || len(f.Absences) > 0 || f.Absent != nil || f.Hold != nil || f.Probe != nil || len(f.Holds) > 0 ||
			f.Buffers || f.Buffered || len(f.Contexts) > 0 || ra != nil && f.Var == ra.Caller {
			return false
		}
		waits = waits || len(sg.callees(f)) > 0
	}
	return waits
}

// passMethod declares the method of the site's state that records
// question qi's block (the tuples or cells of an execution that passes
// fs) once, the first time the test passes, and registers it with the
// callee flags it waits for: a callee that sets one calls it. It returns
// the call of the before-form, for the filters that wait for no callee
// (a branch of an or): nothing else can make the test pass later.
func (sg *siteGen) passMethod(qi int, fs []*plan.Filters, block []string) []string {
	q := strconv.Itoa(qi)
	method, done := "pass"+q, "done"+q
	sg.declare(done, "bool")
	var b strings.Builder
	fmt.Fprintf(&b, "func (s *%s%s) %s() {\n\tif s.%s || !(%s) {\n\t\treturn\n\t}\n\ts.%s = true\n", sg.name("state"), sg.targs, method, done, sg.postCondition(qi, fs), done)
	for _, l := range block {
		b.WriteString("\t" + l + "\n")
	}
	b.WriteString("}")
	sg.decls = append(sg.decls, b.String())
	if sg.g.passMethods == nil {
		sg.g.passMethods = map[*plan.Site]map[string]string{}
	}
	if sg.g.passMethods[sg.s] == nil {
		sg.g.passMethods[sg.s] = map[string]string{}
	}
	var atBegin []string
	for _, f := range fs {
		for _, callee := range sg.callees(f) {
			sg.g.passMethods[sg.s][calleeFlag(qi, f.Disjunct, callee)] = method
		}
		if len(sg.callees(f)) == 0 && !plan.NeverAt(sg.s, f) {
			atBegin = []string{"s." + method + "()"}
		}
	}
	return atBegin
}

// markCaller is the statements by which a callee f.Var of question qi
// that passed tells its caller: it sets the caller's flag, then calls
// the caller's method that records it if it passes now (passMethod).
func (sg *siteGen) markCaller(qi int, f *plan.Filters) []string {
	flag := calleeFlag(qi, f.Disjunct, f.Var)
	mark := []string{"cs." + flag + " = true"}
	if m := sg.g.passMethods[sg.callerSite][flag]; m != "" {
		mark = append(mark, "cs."+m+"()")
	}
	return mark
}

// testedAtBegin reports whether every test of f's event is known when it
// begins: its pre-condition, and no test at its end, negated part, own
// callee or pair.
func (sg *siteGen) testedAtBegin(f *plan.Filters) bool {
	return len(f.Post) == 0 && len(f.Absences) == 0 && len(sg.callees(f)) == 0 && f.Probe == nil && f.Hold == nil
}
