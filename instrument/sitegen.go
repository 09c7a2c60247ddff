package instrument

import (
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strconv"
	"strings"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/spec"
)

func (g *generator) site(s *plan.Site) (err error) {
	fi, n, nodes, err := g.node(s)
	if err != nil {
		return err
	}
	// A site that cannot be instrumented leaves nothing in the helpers of
	// its file: not the file itself, whose only import would then be
	// unused, nor the imports the site's types added.
	path := fi.tf.Name()
	h, had := g.code.Helpers[path]
	var imports map[string]string
	if had {
		imports = maps.Clone(h.Imports)
	}
	defer func() {
		switch {
		case err == nil:
		case had:
			h.Imports = imports
		default:
			delete(g.code.Helpers, path)
		}
	}()
	switch s.Kind {
	case spec.SiteDefinition:
		return g.definition(s, fi, n)
	case spec.SiteRegion, spec.SiteIteration:
		return g.regionSites(s)
	case spec.SiteBlocking:
		return g.blockingSite(s, fi, n, nodes)
	case spec.SiteGo:
		return g.goSite(s, fi, n.(*ast.CallExpr), nodes)
	case spec.SiteAllocation:
		return g.allocationSite(s, fi, n.(ast.Expr), nodes)
	}
	return g.call(s, fi, n.(*ast.CallExpr), nodes)
}

// siteGen accumulates the code of one site.
type siteGen struct {
	g      *generator
	s      *plan.Site
	fi     *fileInfo
	pc     *Helpers
	self   *types.Package
	caps   map[plan.Capture]bool
	tmpl   Template
	fields []string         // state fields, "name type"
	vals   map[string]value // captured values by field name
	edits  []Edit           // edits of the user's file
	tparam string           // "[pmm__TT any, pmm__TU comparable]" for generic sites, in the helpers
	targs  string           // "[pmm__TT, pmm__TU]", in the helpers
	uargs  string           // "[T, U]", in the user's code
	// tparams are the site's type parameters, and blankNames the
	// helpers' names of the blank ones, in order (typeName).
	tparams    []types.Type
	blankNames []string
	rename     map[string]string // type parameter → its name in the helpers
	p          string            // the prefix of generated names
	name       func(string) string
	// accountCached says an allocation site's dynamic account reads may
	// share their function execution's cache (accountCache); cachedSets
	// are the account sets whose reads did.
	accountCached bool
	cachedSets    []int
	// callerPtr says the call site's wrapper has its caller's state, cs,
	// the state of callerSite.
	callerPtr  bool
	callerSite *plan.Site
	// callerParam declares cs, for the functions that take it.
	callerParam string
	// clocks are the before-form's statements that take ids, clocks and
	// goroutines, run once the pre-condition passed; enters those that
	// enter goroutine-local contexts, after them.
	clocks []string
	enters []string
	// beginMarks are the statements by which callees whose tests are
	// all known at their begin tell their caller then (filteredBlock).
	beginMarks []string
	// adopt is the statement of a definition's enter, before its tests,
	// that takes the id a call site published for it (adoptID).
	adopt string
	// imports are the packages the site's code in the user's file names
	// with the helpers' names for them (type arguments of generic calls).
	imports []string
	// decls are helper declarations beyond the state, enter and exit
	// (the keys of inter-event tests), declared names the set of them.
	decls    []string
	declared map[string]bool
	// fieldNames are the names of the state's fields; conflict is the
	// first name declared twice (see declare).
	fieldNames map[string]bool
	conflict   error
	// absentConds are the data-conditions the site's executions do not
	// have: their expressions do not compile there.
	absentConds map[plan.Field]bool
}

func (g *generator) newSiteGen(s *plan.Site, fi *fileInfo) *siteGen {
	pc := g.helpers(fi)
	sg := &siteGen{g: g, s: s, fi: fi, pc: pc, self: fi.pkg.Types, caps: s.Captures(), vals: map[string]value{}, p: pc.prefix, declared: map[string]bool{}, fieldNames: map[string]bool{}}
	sg.name = func(n string) string { return sg.p + n + strconv.Itoa(g.local[s]) }
	if len(s.Targets) > 0 && len(s.Targets[0].Emits) > 0 {
		sg.caps[plan.CapID] = true
	}
	if s.ImpliedID {
		delete(sg.caps, plan.CapID) // its record's position implies it
	}
	return sg
}

func (sg *siteGen) field(name string, t types.Type, read string) error {
	ts, err := sg.typeName(t)
	if err != nil {
		return err
	}
	sg.declare(name, ts)
	sg.vals[name] = value{field: name, typ: t, expr: read}
	return nil
}

// declare adds a field to the site's state. Names are unique by
// construction (flagName, slotField, and the fixed names of common): a
// name declared twice is a bug in pmm, and the site is refused with it
// rather than given code that does not compile.
func (sg *siteGen) declare(name, typ string) {
	if sg.fieldNames[name] {
		if sg.conflict == nil {
			sg.conflict = fmt.Errorf("pmm bug: the state field %s would be declared twice", name)
		}
		return
	}
	sg.fieldNames[name] = true
	sg.fields = append(sg.fields, name+" "+typ)
}

// declareShared declares a field that several events of one question
// share (the buffer of its callees' tuples), once.
func (sg *siteGen) declareShared(name, typ string) {
	if !sg.fieldNames[name] {
		sg.declare(name, typ)
	}
}

// common adds the captures every kind of site takes the same way, and
// the pre-condition.
func (sg *siteGen) common() {
	rt := sg.pc.Imports[sg.g.rtPath]
	sg.tmpl.Pre = rt + ".Enabled()"
	sg.declare("on", "bool")
	// The id, the clock and the goroutine are taken once the
	// pre-condition passed (takeClocks): a filtered-out execution costs
	// its tests and a branch.
	for _, c := range takenCaptures {
		if !sg.caps[c] {
			continue
		}
		cc := captureCodes[c]
		sg.declare(cc.field, cc.typ)
		take := "s." + cc.field + " = " + rt + "." + cc.take + "()"
		if (plan.Field{Cap: c}).AtEnd() {
			sg.tmpl.After = append(sg.tmpl.After, take)
		} else {
			sg.clocks = append(sg.clocks, take)
		}
	}
	sg.compensation(rt)
	sg.declare("ok", "bool") // set when the execution returns
	for _, c := range []plan.Capture{plan.CapCaller, plan.CapIndex, plan.CapCase, plan.CapObject, plan.CapElements, plan.CapBytes, plan.CapHeapBytes} {
		if cc := captureCodes[c]; sg.caps[c] {
			sg.declare(cc.field, cc.typ)
		}
	}
	sg.tmpl.Post = "true"
}

// compensation adds the code by which the site's durations subtract
// pmm's recording of the timed executions nested in them, and by which a
// timed execution that may be nested in such a duration counts itself
// (Options.Nested, pmmrt.TimedBegin): the count is taken before the
// begin clock and the compensation after the end clock, outside the
// interval; the execution counts itself once its end clock is read.
func (sg *siteGen) compensation(rt string) {
	nested := sg.g.opt.Nested
	t0, t1 := "s.t0 = "+rt+".Now()", "s.t1 = "+rt+".Now()"
	var atEnd []string
	switch {
	case nested.Compensated(sg.s):
		sg.declare("tc", rt+".Timed")
		sg.declare("comp", "int64")
		if i := slices.Index(sg.clocks, t0); i >= 0 {
			sg.clocks = slices.Insert(sg.clocks, i, "s.tc = "+rt+".TimedBegin()")
		}
		end := "Compensate"
		if nested.Counted(sg.s) {
			end = "CompensateEnded"
		}
		atEnd = append(atEnd, "s.comp = s.tc."+end+"(s.t1 - s.t0)")
	case nested.Counted(sg.s):
		atEnd = append(atEnd, rt+".TimedEnded()")
	}
	if i := slices.Index(sg.tmpl.After, t1); i >= 0 {
		sg.tmpl.After = slices.Insert(sg.tmpl.After, i+1, atEnd...)
	} else if i := slices.Index(sg.clocks, t0); i >= 0 && nested.Counted(sg.s) {
		sg.clocks = slices.Insert(sg.clocks, i+1, rt+".TimedEnded()")
	}
}

// takeClocks ends the before-form with the statements that take ids,
// clocks and goroutines, for the executions that passed the
// pre-condition.
func (sg *siteGen) takeClocks() {
	defer func() { sg.tmpl.Before = append(sg.tmpl.Before, sg.enters...) }()
	if len(sg.clocks) == 0 {
		return
	}
	if !sg.filtered() {
		sg.tmpl.Before = append(sg.clocks, sg.tmpl.Before...)
		return
	}
	sg.tmpl.Before = append(sg.tmpl.Before, "if s.on {")
	sg.tmpl.Before = append(sg.tmpl.Before, indent(sg.clocks)...)
	sg.tmpl.Before = append(sg.tmpl.Before, "}")
}

// filtered reports whether the site has run-time filters.
func (sg *siteGen) filtered() bool {
	return len(sg.s.Targets) == 1 && sg.s.Targets[0].Filters != nil
}

// action renders the tuples of every target as Go statements; with
// several targets, each target's tuples are emitted when s.target says
// it ran.
func (sg *siteGen) action() error {
	rt := sg.pc.Imports[sg.g.rtPath]
	if sg.filtered() {
		// The post-condition: the execution is an event of some question
		// the site records for (each question's own test is in the action).
		t := sg.s.Targets[0]
		var alts []string
		for _, qi := range t.Questions() {
			alts = append(alts, sg.postCondition(qi, t.Filters[qi]))
		}
		sg.tmpl.Post = strings.Join(alts, " || ")
	}
	for ti, t := range sg.s.Targets {
		if len(t.Emits) == 0 {
			continue
		}
		// The site's counter of entries checked (seed table 6.2): the times
		// the instrumentation ran with recording on. Only sites whose
		// filters may drop an execution count (plan.Site.ChecksEntries):
		// elsewhere every entry checked is recorded, and the recorded ones
		// are counted from the data (pmm stats).
		var check []string
		if sg.s.ChecksEntries() {
			check = []string{fmt.Sprintf("%s.Check(%s)", rt, sg.siteID(t))}
		}
		// The tuples of each question, under its post-condition when the
		// site has run-time filters; those known when the execution
		// begins, then, when nothing at its end can drop them.
		var stmts, early []string
		var waits []int // the questions whose tuples or cells wait for the end
		for _, qi := range t.Questions() {
			fs := sg.filters(t, qi)
			atBegin := sg.atBegin(t, qi, fs)
			if atBegin && timedOnly(t, qi) {
				atBegin = false // both tuples at the end, in one record
			}
			emits := func(dest string, begin bool) ([]string, error) {
				var sel []plan.Emit
				for _, e := range t.Emits {
					if e.QIndex == qi && (!atBegin || !atEnd(e.Fields) == begin) {
						sel = append(sel, e)
					}
				}
				if dest == rt {
					if pair, ok := sg.execPair(rt, t, sel); ok {
						return []string{pair}, nil
					}
				}
				if sg.s.ImpliedID && len(sel) > 0 {
					return nil, fmt.Errorf("pmm bug: the tuples of %s, whose ids are implied, are not one record", sg.s.Position())
				}
				var block []string
				for _, e := range sel {
					st, err := sg.emit(rt, dest, t, e)
					if err != nil {
						return nil, err
					}
					block = append(block, st...)
				}
				return block, nil
			}
			tuples := func(dest string) ([]string, error) { return emits(dest, false) }
			if atBegin {
				begin, err := emits(rt, true)
				if err != nil {
					return err
				}
				if len(begin) > 0 && fs != nil {
					begin = append([]string{"if " + sg.postCondition(qi, fs) + " {"}, append(indent(begin), "}")...)
				}
				early = append(early, begin...)
			}
			ra := sg.aggregateAtBegin(t, qi, fs)
			if ra != nil {
				adds, err := sg.additions(qi, t, ra, fs)
				if err != nil {
					return err
				}
				early = append(early, adds...)
			}
			block, err := tuples(sg.tupleDest(qi, fs))
			if err != nil {
				return err
			}
			if fs != nil {
				if block, err = sg.filteredBlock(qi, t, fs, block, tuples); err != nil {
					return err
				}
				if len(block) > 0 && sg.passesEarly(t, qi, fs) {
					early = append(early, sg.passMethod(qi, fs, block)...)
					block = nil
				}
			} else if ra == nil {
				if ra = sg.unfilteredAggregate(t, qi); ra != nil {
					if block, err = sg.contribute(qi, t, ra, nil); err != nil {
						return err
					}
				}
			}
			stmts = append(stmts, block...)
			if len(block) > 0 && sg.waitsForEnd(t, qi, fs) {
				waits = append(waits, qi)
			}
		}
		check = append(check, sg.countOpen(t, waits)...)
		early, sg.beginMarks = append(early, sg.beginMarks...), nil
		if len(sg.s.Targets) > 1 {
			when := "if s.target == " + strconv.Itoa(ti+1) + " {"
			if len(check) > 0 {
				check = append([]string{when}, append(indent(check), "}")...)
			}
			if len(stmts) > 0 {
				stmts = append([]string{when}, append(indent(stmts), "}")...)
			}
			if len(early) > 0 {
				early = append([]string{when}, append(indent(early), "}")...)
			}
		}
		check = append(check, early...)
		sg.tmpl.Before = append(sg.tmpl.Before, check...)
		sg.tmpl.Action = append(sg.tmpl.Action, stmts...)
	}
	sg.readBeginClockLast()
	return nil
}

// readBeginClockLast moves the read of the begin clock to the end of the
// before-form, after the site's own work at entry (ids, context, the
// tuples recorded when the execution begins): a duration measures the
// execution, not its instrumentation (issue 10, class 7). The end clock is
// already the first statement of the after-form. It stays in place when
// a later statement of the before-form reads it (a begin time recorded at
// the begin).
func (sg *siteGen) readBeginClockLast() {
	read := "s.t0 = " + sg.pc.Imports[sg.g.rtPath] + ".Now()"
	at := -1
	for i, l := range sg.tmpl.Before {
		if strings.TrimSpace(l) == read {
			at = i
			break
		}
	}
	if at < 0 {
		return
	}
	for _, l := range sg.tmpl.Before[at+1:] {
		if strings.Contains(l, "s.t0") {
			return
		}
	}
	// The count of a compensated duration goes with it (compensation).
	reads, from := []string{read}, at
	if begin := "s.tc = " + sg.pc.Imports[sg.g.rtPath] + ".TimedBegin()"; at > 0 && strings.TrimSpace(sg.tmpl.Before[at-1]) == begin {
		reads, from = []string{begin, read}, at-1
	}
	before := append(append([]string(nil), sg.tmpl.Before[:from]...), sg.tmpl.Before[at+1:]...)
	if sg.filtered() {
		before = append(append([]string{}, before...), "if s.on {")
		before = append(append(before, indent(reads)...), "}")
	} else {
		before = append(before, reads...)
	}
	sg.tmpl.Before = before
}

// timedOnly reports whether the tuples of question qi at t are exactly
// an execution and its duration: then both are written at the end, in
// one record (execPair), rather than the execution's at the begin and
// the duration's at the end, each in its own. It halves the bytes of a
// timed event (issue 12) and takes the write out of the durations
// measured around it. Nothing is lost: an execution that never ends has
// no duration, so the question's answers never showed it.
func timedOnly(t *plan.Target, qi int) bool {
	exec, dur := 0, 0
	for _, e := range t.Emits {
		switch {
		case e.QIndex != qi:
		case plan.FieldCaps(e.Fields, plan.CapID, plan.CapSite):
			exec++
		case plan.FieldCaps(e.Fields, plan.CapID, plan.CapDuration):
			dur++
		default:
			return false
		}
	}
	return exec == 1 && dur == 1
}

// execPair renders, as one EmitExecPair (one record of 24 bytes instead
// of two of Emit2's), tuples that are an execution (its id and site) and
// one more int of the same id, when the runtime can pack them
// (plan.ExecPair); at a site whose ids are implied (plan's ImpliedID),
// as one EmitPoint, a record of 16 bytes without the id.
func (sg *siteGen) execPair(rt string, t *plan.Target, tuples []plan.Emit) (string, bool) {
	exec, other, ok := plan.ExecPair(tuples)
	if !ok {
		return "", false
	}
	v := sg.int64Of(other.Fields[1].Cap)
	if sg.s.ImpliedID {
		return fmt.Sprintf("%s.EmitPoint(%d, %d, %s, %s) // %s, %s",
			rt, exec.Table.ID, other.Table.ID, sg.siteID(t), v, exec.Table.Name, other.Table.Name), true
	}
	return fmt.Sprintf("%s.EmitExecPair(%d, %d, s.id, %s, %s) // %s, %s",
		rt, exec.Table.ID, other.Table.ID, sg.siteID(t), v, exec.Table.Name, other.Table.Name), true
}

func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "\t" + l
	}
	return out
}

// emit renders one tuple: the runtime's int64 fast paths when it can. A
// tuple of results exists only for an execution that returned.
func (sg *siteGen) emit(rt, dest string, t *plan.Target, e plan.Emit) ([]string, error) {
	lines, err := sg.emitTuple(rt, dest, t, e)
	if err != nil || len(lines) == 1 && strings.HasPrefix(lines[0], "//") {
		return lines, err
	}
	var guards []string
	if readsResults(e.Fields) {
		guards = append(guards, "s.ok")
	}
	for _, f := range e.Fields {
		if name, _, ok := dataCondValue(sg.vals, f); ok && f.Cap == plan.CapDataCond && sg.fieldNames[name+"ok"] {
			guards = append(guards, "s."+name+"ok") // it has a value: it did not panic
		}
	}
	if len(guards) == 0 {
		return lines, nil
	}
	return append([]string{"if " + strings.Join(guards, " && ") + " {"}, append(indent(lines), "}")...), nil
}

// atBegin reports whether the site records the tuples of question qi
// known when an execution begins (its id, parameters, caller, goroutine)
// at its begin: when no test at its end can drop them (fs, its filters,
// test only at its begin) and they go to the log. An execution that
// began is then in the answers that ask only for those, even when the
// process ends before it does (a goroutine whose deferred wg.Done lets
// main return first); what is known only at its end is absent.
func (sg *siteGen) atBegin(t *plan.Target, qi int, fs []*plan.Filters) bool {
	if fs == nil {
		return sg.unfilteredAggregate(t, qi) == nil
	}
	if sg.tupleDest(qi, fs) != sg.pc.Imports[sg.g.rtPath] {
		return false // a caller's buffer
	}
	for _, f := range fs {
		if len(f.Post) > 0 || len(sg.callees(f)) > 0 || len(f.Absences) > 0 || f.Absent != nil || f.Hold != nil || f.Probe != nil ||
			len(f.Holds) > 0 || f.Buffers || f.Aggregate != nil {
			return false
		}
	}
	return true
}

func (sg *siteGen) emitTuple(rt, dest string, t *plan.Target, e plan.Emit) ([]string, error) {
	table := strconv.Itoa(int(e.Table.ID))
	if plan.FieldCaps(e.Fields, plan.CapID, plan.CapLive) {
		return sg.trackLive(rt, table, t, e), nil
	}
	allInt := len(e.Fields) == 2 || len(e.Fields) == 3
	for _, f := range e.Fields {
		_, isInt := sg.intField(t, f)
		allInt = allInt && isInt
	}
	if allInt {
		var args []string
		for _, f := range e.Fields {
			a, _ := sg.intField(t, f)
			args = append(args, a)
		}
		return []string{fmt.Sprintf("%s.Emit%d(%s, %s) // %s", dest, len(args), table, strings.Join(args, ", "), e.Table.Name)}, nil
	}
	out := []string{"{", "\tvar r " + rt + ".Rec"}
	for _, f := range e.Fields {
		lines, err := sg.encodeField(t, f)
		if _, absent := err.(*absentError); absent {
			// The function has no such value: the tuple does not exist,
			// and the question's view joins nothing to this execution.
			return []string{"// " + err.Error() + ": no " + e.Table.Name + " tuple"}, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, indent(lines)...)
	}
	out = append(out, fmt.Sprintf("\t%s.Emit(%s, &r) // %s", dest, table, e.Table.Name), "}")
	return out, nil
}

// absentError says a tuple reads a value the function does not have: a
// parameter, result or receiver beyond its signature.
type absentError struct{ msg string }

func (e *absentError) Error() string { return e.msg }

// siteID is the site number of target t, as the code of this site's
// file writes it: the file's base in the runtime plus an offset
// (SiteBase).
func (sg *siteGen) siteID(t *plan.Target) string {
	base := SiteBase(sg.s.File)
	return fmt.Sprintf("%s.%s+%d", sg.pc.Imports[sg.g.rtPath], base, t.SiteID-sg.g.code.SiteBases[base])
}

// intField is the int64 expression of a field of target t, when it is
// one of those the runtime's fast paths take.
func (sg *siteGen) intField(t *plan.Target, f plan.Field) (string, bool) {
	switch f.Cap {
	case plan.CapSite:
		return sg.siteID(t), true
	case plan.CapConst:
		return strconv.Itoa(f.N), f.Expr == ""
	}
	expr := sg.int64Of(f.Cap)
	return expr, expr != ""
}

func (sg *siteGen) encodeField(t *plan.Target, f plan.Field) ([]string, error) {
	if v, ok := sg.intField(t, f); ok {
		return []string{"r.Int(" + v + ")"}, nil
	}
	if b := captureCodes[f.Cap].boolean; b != "" {
		return []string{"r.Bool(" + b + ")"}, nil
	}
	switch f.Cap {
	case plan.CapConst:
		return []string{"r.Str(" + strconv.Quote(f.Expr) + ")"}, nil
	case plan.CapFunction:
		return []string{"r.Str(" + strconv.Quote(t.Function) + ")"}, nil
	case plan.CapAccount:
		v, err := sg.accountValue(f.Expr)
		return []string{"r.Str(" + v + ")"}, err
	case plan.CapCallLine:
		if sg.s.Kind != spec.SiteCall && sg.s.Kind != spec.SiteAllocation {
			return nil, fmt.Errorf("%s: only a call or allocation site knows its line (sites/ records at those sites what reads it)", sg.s.Span.File)
		}
		return []string{"r.Str(" + strconv.Quote(sg.s.File+":"+strconv.Itoa(sg.s.Line)) + ")"}, nil
	case plan.CapParams, plan.CapResults:
		prefix := captureCodes[f.Cap].field
		lines := []string{"r.ListBegin()"}
		for i := 1; ; i++ {
			v, ok := sg.vals[prefix+strconv.Itoa(i)]
			if !ok {
				break
			}
			lines = append(lines, encode("r", v, "s."+v.field))
		}
		return append(lines, "r.ListEnd()"), nil
	case plan.CapParam, plan.CapResult:
		what := "parameter"
		if f.Cap == plan.CapResult {
			what = "result"
		}
		v, ok := sg.vals[valueField(f)]
		if !ok {
			return nil, &absentError{fmt.Sprintf("%s has no %s %d", t.Function, what, f.N)}
		}
		return []string{encode("r", v, "s."+v.field)}, nil
	case plan.CapReceiver:
		v, ok := sg.vals[valueField(f)]
		if !ok {
			return nil, &absentError{t.Function + " is not a method: it has no receiver"}
		}
		return []string{encode("r", v, "s."+v.field)}, nil
	case plan.CapDataCond:
		if name, v, ok := dataCondValue(sg.vals, f); ok {
			return []string{encode("r", v, "s."+name)}, nil
		}
		if sg.absentConds[f] {
			return nil, &absentError{fmt.Sprintf("data-condition %q does not compile in %s", f.Expr, t.Function)}
		}
		return nil, fmt.Errorf("data-condition %q is not captured", f.Expr)
	}
	return nil, fmt.Errorf("unknown field %s", f.Cap)
}

// stateDecl declares the site's state type.
func (sg *siteGen) stateDecl() string {
	return "type " + sg.name("state") + sg.tparam + " struct {\n\t" + strings.Join(sg.fields, "\n\t") + "\n}"
}

// exitDecl declares the function that runs the after-form, the
// post-condition and the action; extra are its parameters after s.
func (sg *siteGen) exitDecl(extra []string, reads []string) string {
	var b strings.Builder
	params := append([]string{"s *" + sg.name("state") + sg.targs}, extra...)
	fmt.Fprintf(&b, "func %s%s(%s) {\n\tif !s.on {\n\t\treturn\n\t}\n", sg.name("exit"), sg.tparam, strings.Join(params, ", "))
	for _, l := range append(append([]string(nil), sg.tmpl.After...), reads...) {
		b.WriteString("\t" + l + "\n")
	}
	if sg.tmpl.Post != "true" {
		fmt.Fprintf(&b, "\tif !(%s) {\n\t\treturn\n\t}\n", sg.tmpl.Post)
	}
	for _, l := range sg.tmpl.Action {
		b.WriteString("\t" + l + "\n")
	}
	b.WriteString("}")
	return b.String()
}

func (sg *siteGen) finish(decls ...string) error {
	if sg.conflict != nil {
		return sg.conflict
	}
	sg.tmpl.Locals = append([]string(nil), sg.fields...)
	sg.pc.Decls = append(append(sg.pc.Decls, decls...), sg.decls...)
	path := sg.fi.tf.Name()
	sg.g.code.Files[path] = append(sg.g.code.Files[path], sg.edits...)
	// The user's file imports, once, what the site's code in it names,
	// under the helpers' names: an import declaration after the package
	// clause, on its line.
	for _, p := range sg.imports {
		if sg.g.fileImports[path] == nil {
			sg.g.fileImports[path] = map[string]bool{}
		}
		if sg.g.fileImports[path][p] {
			continue
		}
		sg.g.fileImports[path][p] = true
		off := sg.fi.tf.Offset(sg.fi.file.Name.End())
		sg.g.code.Files[path] = append(sg.g.code.Files[path], Edit{Off: off, End: off, Text: "; import " + sg.pc.Imports[p] + " " + strconv.Quote(p)})
	}
	sg.g.code.Sites = append(sg.g.code.Sites, &SiteCode{Site: sg.s, Template: sg.tmpl})
	return nil
}

// typeParams sets the type parameter list of a site in a generic
// function. The helpers name the type parameters after the prefix of
// generated identifiers, so that they clash neither with the helpers'
// parameters (s, f, p1, ...) nor with the package's names.
func (sg *siteGen) typeParams(list *types.TypeParamList) error {
	if list == nil || list.Len() == 0 {
		return nil
	}
	sg.rename = map[string]string{}
	// A blank type parameter of a method's receiver (func (m *Map[_,
	// V]) ...) gets a name in the copy of the source, so that the
	// body's code can name it (uses); a type written for the helpers
	// names it only where it is the one blank (blank).
	uses := make([]string, list.Len())
	blank := ""
	for i := 0; i < list.Len(); i++ {
		name := list.At(i).Obj().Name()
		sg.tparams = append(sg.tparams, list.At(i))
		if name == "_" {
			name = sg.nameBlank(list.At(i).Obj(), i)
			sg.blankNames = append(sg.blankNames, sg.p+"T"+name)
			if blank == "" {
				blank = name
			} else {
				blank = "\x00" // two or more: a type naming one is refused (typeName)
			}
		}
		uses[i] = name
		sg.rename[name] = sg.p + "T" + name
	}
	if blank != "" {
		sg.rename["_"] = blank
		if blank != "\x00" {
			sg.rename["_"] = sg.p + "T" + blank
		}
	}
	var decl, names []string
	for i := 0; i < list.Len(); i++ {
		tp := list.At(i)
		c, err := sg.typeName(tp.Constraint())
		if err != nil {
			return err
		}
		decl = append(decl, sg.rename[uses[i]]+" "+c)
		names = append(names, sg.rename[uses[i]])
	}
	sg.tparam = "[" + strings.Join(decl, ", ") + "]"
	sg.targs = "[" + strings.Join(names, ", ") + "]"
	sg.uargs = "[" + strings.Join(uses, ", ") + "]"
	return nil
}

// nameBlank names the blank type parameter obj, the i-th of a method's
// receiver, in the copy of its file: the same name for every site of
// the method.
func (sg *siteGen) nameBlank(obj types.Object, i int) string {
	name := sg.p + "B" + strconv.Itoa(i+1)
	if sg.g.blanks == nil {
		sg.g.blanks = map[token.Pos]bool{}
	}
	if !sg.g.blanks[obj.Pos()] {
		sg.g.blanks[obj.Pos()] = true
		path := sg.fi.tf.Name()
		off := sg.fi.tf.Offset(obj.Pos())
		sg.g.code.Files[path] = append(sg.g.code.Files[path], Edit{Off: off, End: off + len("_"), Text: name})
	}
	return name
}

// typeName writes t for the helpers, with the site's type parameters
// renamed.
func (sg *siteGen) typeName(t types.Type) (string, error) {
	ts, err := sg.g.typeName(sg.pc, sg.self, t)
	if err != nil || len(sg.rename) == 0 {
		return ts, err
	}
	ts = renameTypeParams(ts, sg.rename)
	if strings.Contains(ts, "\x00") {
		// Two blanks or more: the receiver's type (or a pointer to it)
		// has them in order, as its type arguments.
		if !sg.isReceiverType(t) {
			return "", fmt.Errorf("its type %s names one of its receiver's blank type parameters: the instrumentation cannot tell which", t)
		}
		for _, b := range sg.blankNames {
			ts = strings.Replace(ts, "\x00", b, 1)
		}
	}
	return ts, nil
}

// tupleName writes the types of a call's results, as a function's
// results: (T0, T1).
func (sg *siteGen) tupleName(results *types.Tuple) (string, error) {
	var ts []string
	for i := range results.Len() {
		t, err := sg.typeName(results.At(i).Type())
		if err != nil {
			return "", err
		}
		ts = append(ts, t)
	}
	return "(" + strings.Join(ts, ", ") + ")", nil
}

// isReceiverType says whether t is the type of the receiver of the
// method whose type parameters the site has, or a pointer to it: a
// generic type whose type arguments are those parameters, in order.
func (sg *siteGen) isReceiverType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok || n.TypeArgs().Len() != len(sg.tparams) {
		return false
	}
	for i, tp := range sg.tparams {
		if n.TypeArgs().At(i) != tp {
			return false
		}
	}
	return true
}

// renameTypeParams renames the type parameters in a type written by
// types.TypeString: identifiers that are neither qualified (after '.')
// nor the names of fields or methods (after '{' or ';'). A parameter
// name of a function type may be renamed too, which changes nothing.
func renameTypeParams(ts string, names map[string]string) string {
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(ts))
	var sc scanner.Scanner
	sc.Init(f, []byte(ts), nil, 0)
	var b strings.Builder
	last, prev := 0, token.ILLEGAL
	for {
		pos, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.IDENT && prev != token.PERIOD && prev != token.LBRACE && prev != token.SEMICOLON {
			if n, ok := names[lit]; ok {
				off := f.Offset(pos)
				b.WriteString(ts[last:off] + n)
				last = off + len(lit)
			}
		}
		prev = tok
	}
	b.WriteString(ts[last:])
	return b.String()
}

// enclosingTypeParams returns the type parameters in scope at pos: those
// of the function declaration that holds it (a function literal has none
// of its own), or of its receiver's type.
func enclosingTypeParams(fi *fileInfo, pos token.Pos) *types.TypeParamList {
	for _, d := range fi.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || pos < fd.Pos() || pos >= fd.End() {
			continue
		}
		obj, ok := fi.pkg.TypesInfo.Defs[fd.Name].(*types.Func)
		if !ok {
			return nil
		}
		sig := obj.Type().(*types.Signature)
		if sig.RecvTypeParams().Len() > 0 {
			return sig.RecvTypeParams()
		}
		return sig.TypeParams()
	}
	return nil
}

// filteredBlock renders the tuples of question qi at a site with run-time
// filters: block, recorded when an event passes, or held, or added to
// cells, or replaced by marks for negated parts; tuples renders them for
// another destination.
func (sg *siteGen) filteredBlock(qi int, t *plan.Target, fs []*plan.Filters, block []string, tuples func(string) ([]string, error)) ([]string, error) {
	var direct, held, absent []*plan.Filters
	var holds []string
	var err error
	for _, f := range fs {
		if h := sg.hold(qi, f); h != "" {
			held, holds = append(held, f), append(holds, h)
		} else if sg.absent(f.Absent) {
			if !plan.NeverAt(sg.s, f) {
				// Not at a site of another function, whose state may
				// not reach the caller's (a call in a generic function).
				absent = append(absent, f)
			}
		} else {
			direct = append(direct, f)
		}
	}
	ra := sg.aggregating(fs)
	switch {
	case ra != nil:
		if block, err = sg.aggregateBlock(qi, t, ra, fs, held, holds); err != nil {
			return nil, err
		}
	case len(direct) == 0 && len(held) == 0:
		block = nil // only the events of negated parts, not recorded
	case len(block) == 0 && len(held) == 0:
		// Every tuple was recorded when the execution began.
	case len(held) == 0:
		block = append([]string{"if " + sg.postCondition(qi, direct) + " {"}, append(indent(block), "}")...)
	default:
		if block, err = sg.holding(qi, direct, held, holds, block, tuples); err != nil {
			return nil, err
		}
	}
	// An event of a negated part that passed tells its caller,
	// which is then no answer.
	for _, f := range absent {
		block = append(block, "if "+sg.passes(qi, f)+" {", "\t"+sg.markAbsent(qi, f), "}")
	}
	// A caller that kept its callees' tuples records them if it
	// passed; if not, they are forgotten with its state.
	for _, f := range fs {
		if f.Buffers && ra == nil {
			block = append(block, "if "+sg.passes(qi, f)+" {", "\ts."+bufferField(qi)+".Release()", "}")
		}
	}
	// A callee that passed tells its caller (Table 4.1); a held
	// one does when a later event finds it.
	// One whose tests are all known at its begin tells it then: the
	// relation holds from the callee's begin, whether it ends or not.
	for _, f := range direct {
		if f.Caller != "" && f.Marks && sg.callerPtr {
			mark := append(append([]string{"if " + sg.passes(qi, f) + " {"}, indent(sg.markCaller(qi, f))...), "}")
			if sg.testedAtBegin(f) {
				sg.beginMarks = append(sg.beginMarks, mark...)
			} else {
				block = append(block, mark...)
			}
		}
	}
	return block, nil
}
