// Package plan is the planning stage of pmm (seed 001, 4.3.2 and
// chapter 5). From the checked questions, the sites static approximation
// selected and the schema's stored relations, Build decides for every
// site what it captures and which tuples it emits (the IGM, as data in
// igm.go), merged over all questions (the IGA), and the tests it runs at
// run time: filters, equal values held in a caller (pairs), absences of
// negated callees, calls* through the goroutine-local context, and
// aggregates kept in cells. Where each test can run follows from the
// temporal reasoning of incremental.go. A Plan is immutable once built:
// Without turns tests off in a new one. Package instrument generates its
// code.
package plan

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"pmm.dev/pmm/internal/funcname"
	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/sites"
	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// Plan is the instrumentation of a program: its sites, in source order.
// It is immutable once built: Without makes a new plan.
type Plan struct {
	Sites []*Site
	// gaps are the reasons, known when planning, why answers may be
	// incomplete (see Incomplete); qindices the questions' indices.
	gaps     []Incomplete
	qindices map[string]int
	// off are the tests decided at run time that are left to the
	// answer, because some site cannot take part.
	off map[RunTimeTest]bool
}

// A RunTimeTest is a test that run time decides when every site of it
// takes part: a *Pair, an *Absence, a *Context or a *RunAggregate. A
// test off is left to the answer, whose views decide it from what is
// recorded.
type RunTimeTest interface{ runTimeTest() }

func (*Pair) runTimeTest()         {}
func (*Absence) runTimeTest()      {}
func (*Context) runTimeTest()      {}
func (*RunAggregate) runTimeTest() {}

// On reports whether run time decides test t.
func (p *Plan) On(t RunTimeTest) bool { return !p.off[t] }

// Without returns the plan with tests ts left to the answer, for when
// some site cannot generate its part of them; p is unchanged.
func (p *Plan) Without(ts ...RunTimeTest) *Plan {
	q := *p
	q.off = maps.Clone(p.off)
	if q.off == nil {
		q.off = map[RunTimeTest]bool{}
	}
	for _, t := range ts {
		q.off[t] = true
	}
	return &q
}

// Site is one place in the source that is rewritten: a function's body
// (a definition site) or a call expression (a call site). A dynamic call
// site may record executions of several functions: its Targets.
type Site struct {
	Kind        spec.SiteKind
	static.Span        // where, the file relative to the module root
	Via         string // call sites: call, go or defer
	CallerID    int64  // call and go sites: the function whose body holds the call
	Function    string // definition and region sites: the function; call sites: the first target; go sites: the function started
	Label       string // region sites: the label of the statement; blocking sites: the kind of operation
	Operand     string // blocking sites: the operand as written
	InFrame     bool   // allocation sites: the compiler keeps the object in the frame (a map's header)
	FuncID      int64
	Targets     []*Target
	// CallTargets are, for a call that may run several functions, all
	// of them, recorded or not.
	CallTargets []string
	// Caller says the site's execution id is needed by call sites in its
	// body (it is the first event of a lexical relation such as calls).
	Caller bool
	// Index numbers the site among all rewritten sites; generated names
	// carry it.
	Index int
	// BlockedOnly, at a blocking site, says that no question records an
	// operation of it that did not block: each conjunction that records
	// one has (blocked b) of it (onlyBlocked), and run-time filters are
	// on (Options.Filters: the runtime and combined modes; the others
	// record every event of their sites). Such an operation then costs
	// its fast attempt and a branch; otherwise the site records it
	// without reading the clock (its duration is 0).
	BlockedOnly bool
	// mayNotBlock says some conjunction records an operation of the
	// site whether or not it blocked.
	mayNotBlock bool
	// ImpliedID says the site's events take no id from NextID: their
	// one record's position in the log implies it (an allocation whose
	// id nothing orders nor joins but that record: impliedID).
	ImpliedID bool
}

// regionName names a region site's statement in messages: "the region
// outer of main.F".
func (s *Site) regionName() string {
	switch s.Kind {
	case spec.SiteIteration:
		return "the iterations of the loop " + s.Label + " of " + s.Function
	case spec.SiteBlocking:
		return strings.TrimSpace("the "+s.Label+" "+s.Operand) + " in " + s.Function
	case spec.SiteGo:
		return "the go statement that starts " + strings.Join(s.Functions(), ", ")
	case spec.SiteAllocation:
		return "the allocation (" + s.Label + ", " + s.Operand + ") in " + s.Function
	}
	return "the region " + s.Label + " of " + s.Function
}

// Target is one function a site records executions of.
type Target struct {
	FuncID   int64
	Function string
	SiteID   int // the number of (site, function) in pmm_sites
	Emits    []Emit
	// Filters are the run-time filters of its executions for each
	// question (by index in the program), one per variable of the
	// question the site records, when the plan has filters.
	Filters map[int][]*Filters
	// Vars are the events it records, as QUESTION/VARIABLE.
	Vars []string
	// Publish says the site publishes the id of an execution of it, which
	// the function's definition adopts (a RelationOnly call site).
	Publish bool
	// Cells are the aggregate questions over allocations that the site
	// adds up in cells instead of emitting tuples (allocation sites).
	Cells []*AllocCells
	// impossible are those of Vars static approximation finds it cannot
	// be an event of: not recording it loses nothing.
	impossible map[string]bool
}

// Emit is one tuple the site emits for an execution of the target.
type Emit struct {
	Question string
	QIndex   int // the question's index in the program
	Table    *schema.Table
	Fields   []Field
	// CallerSite is, for a tuple with CapCaller, the definition site whose
	// execution id is the caller's.
	CallerSite *Site
	callerFunc int64 // the function whose definition site that is
}

// Captures returns what the site must capture to emit its tuples.
func (s *Site) Captures() map[Capture]bool {
	caps := map[Capture]bool{}
	if s.Caller {
		caps[CapID] = true
	}
	add := func(f Field) {
		for _, c := range f.Takes() {
			caps[c] = true
		}
	}
	for _, t := range s.Targets {
		for _, e := range t.Emits {
			for _, f := range e.Fields {
				add(f)
			}
		}
		for _, ac := range t.Cells {
			if ac.Value != nil {
				add(*ac.Value)
			}
		}
		for _, fs := range t.Filters {
			for _, f := range fs {
				for _, c := range append(append([]Cond(nil), f.Pre...), f.Post...) {
					for _, v := range c.Values {
						add(v)
					}
				}
				for _, v := range f.Exports {
					add(v)
				}
				if f.Hold != nil {
					for _, v := range f.Hold.EarlierKey {
						add(v)
					}
				}
				if f.Probe != nil {
					for _, v := range f.Probe.LaterKey {
						add(v)
					}
				}
				if ra := f.Aggregate; ra != nil && ra.Event == f.Var {
					for _, v := range ra.Group {
						add(v)
					}
					if ra.Value != nil {
						add(*ra.Value)
					}
				}
			}
		}
	}
	return caps
}

// Dynamic reports whether the site's call may run functions other than
// its one target.
func (s *Site) Dynamic() bool {
	if len(s.Targets) > 1 {
		return true
	}
	for _, c := range s.CallTargets {
		if c != s.Targets[0].Function {
			return true
		}
	}
	return false
}

// siteKey identifies a site across questions and variables.
type siteKey struct {
	kind  spec.SiteKind
	span  static.Span
	label string // two regions may be the same statements
}

// Build plans the instrumentation of every site of sel for the questions
// of prog, whose stored relations are sch's.
func Build(prog *spec.Program, sel *sites.Selection, sch *schema.Schema, opts Options) (*Plan, error) {
	b := &builder{sites: map[siteKey]*Site{}, opts: opts, qindices: map[string]int{}, off: map[RunTimeTest]bool{}}
	for qi, q := range prog.Questions {
		b.qindices[q.Name] = qi
	}
	for qi, q := range prog.Questions {
		b.qindex = qi
		qs := sel.Questions[qi]
		if qs.Name != q.Name {
			return nil, fmt.Errorf("the selection does not match the program: %s, %s", qs.Name, q.Name)
		}
		for di, c := range q.Disjuncts {
			b.dindex = di
			if err := b.disjunct(q, c, qs.Disjuncts[di], c, sch); err != nil {
				return nil, fmt.Errorf("question %s: %w", q.Name, err)
			}
		}
	}
	if err := b.resolveCallers(); err != nil {
		return nil, err
	}
	b.dropUnmarkableCallees()
	b.checkPairs()
	b.bufferCallees()
	b.unfilteredQuestions()
	p := b.plan()
	markImpliedIDs(prog, p.Sites)
	p.gaps, p.qindices, p.off = b.gaps.list(), b.qindices, b.off
	return p, nil
}

// dropUnmarkableCallees removes, from post-conditions, the callees that
// cannot tell their caller they ran at some of their sites (a call site
// that may run several functions has no filters; a callee of two callers
// marks neither): a caller waiting for them would drop executions that
// are answers.
func (b *builder) dropUnmarkableCallees() {
	type key struct {
		q int
		v string
	}
	unmarkable := map[key]bool{}
	for _, s := range b.sites {
		for _, t := range s.Targets {
			for qi, fs := range t.Filters {
				for _, f := range fs {
					if len(s.Targets) > 1 || s.Kind != spec.SiteCall || !f.Marks {
						unmarkable[key{qi, f.Var}] = true
					}
				}
			}
		}
	}
	for _, s := range b.sites {
		for _, t := range s.Targets {
			for qi, fs := range t.Filters {
				for _, f := range fs {
					var kept []string
					for _, c := range f.Callees {
						if !unmarkable[key{qi, c}] {
							kept = append(kept, c)
						}
					}
					f.Callees = kept
					if unmarkable[key{qi, f.Var}] {
						f.Marks = false // its caller does not wait for it
					}
				}
			}
		}
	}
}

// checkPairs turns off the inter-event tests and negated parts some of
// whose sites cannot take part: the earlier and later events, and the
// event of the negated part, must be recorded at call sites of one
// function each that mark their caller, and the caller at its
// definition, whose state holds the earlier executions or the absence.
func (b *builder) checkPairs() {
	for _, s := range b.sites {
		for _, t := range s.Targets {
			for _, fs := range t.Filters {
				for _, f := range fs {
					if NeverAt(s, f) {
						continue // no execution there is an event of f.Var
					}
					for _, p := range []*Pair{f.Hold, f.Probe} {
						if p != nil && (s.Kind != spec.SiteCall || len(s.Targets) > 1 || !f.Marks || f.Caller != p.Caller) {
							b.off[p] = true
						}
					}
					for _, p := range f.Holds {
						if s.Kind != spec.SiteDefinition || len(s.Targets) > 1 {
							b.off[p] = true
						}
					}
					// A lexical absence links call sites in the caller's body
					// to its definition; a dynamic one any sites.
					if a := f.Absent; a != nil && (!a.Dynamic && s.Kind != spec.SiteCall || len(s.Targets) > 1) {
						b.off[a] = true
					}
					for _, a := range f.Absences {
						if !a.Dynamic && s.Kind != spec.SiteDefinition || len(s.Targets) > 1 {
							b.off[a] = true
						}
					}
					if ra := f.Aggregate; ra != nil && !aggregatable(s, f, ra) {
						b.off[ra] = true
					}
					for _, c := range f.Contexts {
						if f.Var == c.Ancestor && len(s.Targets) > 1 {
							b.off[c] = true
						}
					}
				}
			}
		}
	}
}

// NeverAt reports whether no execution a site records is an event of
// the variable of f: the question names a function the site does not
// run (its pre-condition is false when it is generated).
func NeverAt(s *Site, f *Filters) bool {
	if f.Name == "" {
		return false
	}
	for _, t := range s.Targets {
		if t.Named(f.Name) {
			return false
		}
	}
	return true
}

// named reports whether t's function is the one a question's filters
// name (spec gave the name its key; empty names any function).
func (t *Target) Named(name string) bool {
	return name == "" || funcname.Key(t.Function) == name
}

// bufferCallees makes the callers whose post-condition can fail after a
// callee passed keep their callees' tuples until they end: a caller with
// tests at its end, negated parts, or a callee it waits for that a
// callee passing does not imply (a pair's later event implies the
// earlier one).
func (b *builder) bufferCallees() {
	type key struct {
		q int
		v string
	}
	callees := map[key][]string{} // the callee variables of each caller
	b.eachFilters(func(qi int, f *Filters) {
		if f.Caller != "" && !slices.Contains(callees[key{qi, f.Caller}], f.Var) {
			callees[key{qi, f.Caller}] = append(callees[key{qi, f.Caller}], f.Var)
		}
	})
	buffers := map[key]bool{}
	b.eachFilters(func(qi int, f *Filters) {
		mayFail := len(f.Post) > 0 || len(f.Absences) > 0
		for _, x := range callees[key{qi, f.Var}] {
			held := false
			for _, p := range f.Holds {
				held = held || p.Earlier == x
			}
			if held {
				continue // recorded only when a later event finds it, which implies it
			}
			for _, c := range f.Callees {
				implied := c == x
				for _, p := range f.Holds {
					implied = implied || p.Later == x && p.Earlier == c
				}
				mayFail = mayFail || !implied
			}
		}
		if mayFail && len(callees[key{qi, f.Var}]) > 0 {
			f.Buffers = true
			buffers[key{qi, f.Var}] = true
		}
	})
	b.eachFilters(func(qi int, f *Filters) {
		f.Buffered = f.Caller != "" && buffers[key{qi, f.Caller}]
	})
}

// unfilteredQuestions gives a site with filters, for each question it
// records tuples for without filters of its own, filters that test
// nothing: its executions are recorded whatever it tests for other
// questions.
func (b *builder) unfilteredQuestions() {
	for _, s := range b.sites {
		if len(s.Targets) != 1 || s.Targets[0].Filters == nil {
			continue
		}
		t := s.Targets[0]
		for _, qi := range t.Questions() {
			if len(t.Filters[qi]) == 0 {
				t.Filters[qi] = []*Filters{{Var: "all"}}
			}
		}
	}
}

// eachFilters calls fn with the filters of every variable at every site.
func (b *builder) eachFilters(fn func(qi int, f *Filters)) {
	for _, s := range b.sites {
		for _, t := range s.Targets {
			for qi, fs := range t.Filters {
				for _, f := range fs {
					fn(qi, f)
				}
			}
		}
	}
}

// aggregatable reports whether a site of an event of a run-time
// aggregate decides its part exactly: one function, the caller at its
// definition, and callees at call sites that tell it they ran.
func aggregatable(s *Site, f *Filters, ra *RunAggregate) bool {
	switch {
	case len(s.Targets) > 1:
		// A site that may run several functions has no filters: it can
		// add only an event that tests nothing but its function's name,
		// which it knows once it knows which one ran.
		return f.Var == ra.Event && ra.Caller == "" && Untested(f)
	case ra.Caller != "" && f.Var == ra.Caller:
		return s.Kind == spec.SiteDefinition
	case f.Absent != nil:
		return true // the absence checks its own sites
	case ra.Caller != "":
		return s.Kind == spec.SiteCall && f.Caller == ra.Caller && (f.Marks || f.Var == ra.Event)
	}
	return true
}

// Untested reports whether the event of f has no test but its function's
// name.
func Untested(f *Filters) bool {
	return len(f.Pre) == 0 && len(f.Post) == 0 && f.Caller == "" && len(f.Callees) == 0 && len(f.Absences) == 0 &&
		f.Absent == nil && f.Hold == nil && f.Probe == nil && len(f.Contexts) == 0 && len(f.Holds) == 0
}

type builder struct {
	sites  map[siteKey]*Site
	opts   Options
	off    map[RunTimeTest]bool // the tests some site cannot take part in
	qindex int                  // of the question being planned
	dindex int                  // of its disjunct being planned
	// qindices are the questions' indices by name; gaps the reasons why
	// their answers may be incomplete.
	qindices map[string]int
	gaps     incompleteness
	// absences are the negated parts of the disjunct being planned that
	// run time decides; aggregate its run-time aggregate.
	absences  map[*spec.Conj]*Absence
	aggregate *RunAggregate
	// contexts are its calls* relations decided through the goroutine-
	// local context; slots counts the slots of all questions.
	contexts []*Context
	slots    int
}

// disjunct plans the variables of d, the selection of conjunction c of
// question q; root is the disjunct c lies in, whose atoms (negated ones
// included) say what each variable needs.
//
// The analyses of a disjunct run once, each given the results it requires
// (as go/analysis Analyzers declare Requires):
//
//	analysis                          requires
//	Analyze (temporal: tests placed)  -
//	pairsOf                           temporal
//	absencesOf                        -
//	runAggregateOf                    temporal, pairs, absences
//	contextsOf                        the variables' types
//	filtersOf (each variable)         temporal, pairs, absences
func (b *builder) disjunct(q *spec.Question, c *spec.Conj, d *sites.Disjunct, root *spec.Conj, sch *schema.Schema) error {
	var pairs []*Pair
	var temporal *Conj
	var temporalErr error
	// Region sites record every execution, untested (regionsUntested):
	// the disjunct's tests are all SQL's, and the other sites record
	// every execution of theirs too.
	filtering := b.opts.Filters && !hasRegions(root)
	if !filtering && c == root {
		b.absences, b.aggregate, b.contexts = nil, nil, nil
	}
	if filtering && c == root {
		temporal, temporalErr = Analyze(root)
		pairs = pairsOf(root, temporal)
		b.absences = absencesOf(root)
		b.aggregate = runAggregateOf(q, root, temporal, pairs, b.absences, sch)
		types, _ := root.Types(nil)
		b.contexts = contextsOf(root, types, b.slots)
		b.slots += len(b.contexts)
		for _, n := range root.Not {
			if a := b.absences[n]; a != nil && a.Dynamic {
				a.Slot = b.slots
				b.slots++
			}
		}
	}
	// An aggregate of allocations run time can add up itself: its
	// allocation sites add to cells, and record no tuples for it.
	var cells *AllocCells
	if b.opts.Filters && c == root {
		cells = allocCellsOf(q, b.qindex, sch)
	}
	for _, v := range d.Vars {
		for _, g := range v.Gaps {
			b.gaps.add(q.Name, b.qindex, v.Name, g.Reason, g.Position).Outside = g.Outside
		}
		needs, callees := needsOf(v.Name, root, v.Sites)
		if cells != nil {
			needs, callees = nil, nil
		}
		var filters *Filters
		switch {
		case b.opts.Filters && !filtering:
			if len(v.Sites) == 0 || !v.Sites[0].InBody() && v.Sites[0].Kind != spec.SiteGo {
				filters = &Filters{Var: v.Name} // every execution, untested
			}
		case b.opts.Filters && c == root:
			if temporalErr != nil {
				return temporalErr
			}
			f := filtersOf(v.Name, root, temporal, pairs, b.absences)
			f.Aggregate = b.aggregate
			for _, c := range b.contexts {
				if v.Name == c.Ancestor || v.Name == c.Descendant {
					f.Contexts = append(f.Contexts, c)
				}
			}
			filters = f
		case b.opts.Filters:
			// A negated part is decided at answer time, from every event
			// of its own: a site that records one for this question must
			// record it whatever the other events there test, or the
			// negation would hold where it does not.
			filters = &Filters{Var: v.Name, Aggregate: b.aggregate}
			if a := b.absences[c]; a != nil && a.Var == v.Name {
				// Its own tests are sound filters whether or not run
				// time decides the negation.
				filters.Absent, filters.Name = a, a.Name
				for _, cond := range a.Conds {
					if onlyBegin(cond) {
						filters.Pre = append(filters.Pre, cond)
					} else {
						filters.Post = append(filters.Post, cond)
					}
				}
			}
		}
		if filters != nil {
			filters.Disjunct = b.dindex
		}
		for _, s := range v.Sites {
			site := b.site(s)
			if s.Kind == spec.SiteBlocking && (!b.opts.Filters || !onlyBlocked(c, v.Name)) {
				site.mayNotBlock = true
			}
			target := site.target(s)
			if qv := q.Name + "/" + v.Name; !slices.Contains(target.Vars, qv) {
				target.Vars = append(target.Vars, qv)
				if s.Impossible {
					if target.impossible == nil {
						target.impossible = map[string]bool{}
					}
					target.impossible[qv] = true
				}
			}
			if cells != nil && s.Kind == spec.SiteAllocation && !slices.Contains(target.Cells, cells) {
				target.Cells = append(target.Cells, cells)
			}
			own := needs
			if s.RelationOnly {
				// The definition records them, with the id it adopts.
				own, target.Publish = nil, true
			}
			if s.Impossible {
				own = withoutExpressions(own)
			}
			for _, n := range own {
				if err := target.add(q.Name, b.qindex, n, nil, sch); err != nil {
					return err
				}
			}
			for _, r := range callees {
				if s.Kind != spec.SiteCall && s.Kind != spec.SiteGo {
					// The relation is recorded at call and go sites
					// only: at a definition the caller is unknown.
					if !s.Impossible && !v.RelationsAtCalls {
						b.gaps.add(q.Name, b.qindex, v.Name, fmt.Sprintf("recorded at the definition of %s, where the caller is not known, "+
							"so no %s relation with it as the callee is recorded", s.Function, r.prim), site.Position())
					}
					continue
				}
				if err := target.add(q.Name, b.qindex, need{prim: r.prim}, &callerRef{callerFunc: s.CallerID}, sch); err != nil {
					return err
				}
			}
			if filters != nil {
				if target.Filters == nil {
					target.Filters = map[int][]*Filters{}
				}
				f := *filters
				if s.RelationOnly {
					// No test: the definition tests the execution.
					f = Filters{Var: v.Name, Disjunct: b.dindex}
					if b.aggregate != nil {
						b.off[b.aggregate] = true
					}
				}
				if s.Kind != spec.SiteCall {
					f.Caller = "" // a callee recorded at its definition knows no caller
				}
				target.Filters[b.qindex] = append(target.Filters[b.qindex], &f)
			}
		}
		for _, s := range v.Sites {
			if s.Kind == spec.SiteDefinition && isCaller(v.Name, root) {
				b.site(s).Caller = true
			}
		}
	}
	for i, neg := range c.Not {
		if i < len(d.Negated) {
			if err := b.disjunct(q, neg, d.Negated[i], root, sch); err != nil {
				return err
			}
		}
	}
	return nil
}

// withoutExpressions is needs without those that evaluate a Go
// expression of the question in the site's scope (data-condition, heap
// walks), for a site whose executions static approximation finds cannot
// be the variable's events (the modes without it record them all): the
// answer reads none of their values, and evaluating them there reads
// memory the program may not read at that point, such as a structure
// other goroutines write under a lock the program takes only where the
// question asks (a data race pmm would add, or a fatal concurrent map
// read while a heap walk iterates a map).
func withoutExpressions(needs []need) []need {
	var out []need
	for _, n := range needs {
		if p := spec.Lookup(n.prim); p != nil && slices.ContainsFunc(p.Args, func(a spec.Arg) bool { return a.Kind == spec.ArgGoExpr }) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// onlyBlocked reports whether conjunction c holds only of blocking
// operations v that blocked: one of its atoms is (operation-blocked v
// true), what (blocked v) normalizes to.
func onlyBlocked(c *spec.Conj, v string) bool {
	return slices.ContainsFunc(c.Atoms, func(a *spec.Atom) bool {
		return a.Prim.Recorded != nil && Capture(a.Prim.Recorded.Capture) == CapBlocked && len(a.Args) == 2 &&
			a.Args[0].Var == v && a.Args[1].Lit != nil && a.Args[1].Lit.Kind == spec.LitBool && a.Args[1].Lit.Bool
	})
}

// hasRegions reports whether the disjunct root, its negated parts
// included, has a region-execution variable. Run-time tests (filters,
// pairs, absences, contexts, run-time aggregates) are generated for
// function executions only, so such a disjunct has none: SQL decides
// it from every execution its sites record.
func hasRegions(root *spec.Conj) bool {
	found := false
	root.EachAtom(func(a *spec.Atom) { found = found || spec.IsRegion(a.Prim.Name) })
	return found
}

// callerRef marks a tuple whose first field is the caller's id.
type callerRef struct{ callerFunc int64 }

func (b *builder) site(s sites.Site) *Site {
	span := static.Span{File: s.File, Line: s.Line, Col: s.Col, EndLine: s.EndLine, EndCol: s.EndCol}
	k := siteKey{s.Kind, span, s.Label}
	site, ok := b.sites[k]
	if !ok {
		site = &Site{Kind: s.Kind, Span: span, Label: s.Label, Operand: s.Operand, InFrame: s.InFrame,
			Via: s.Via, CallerID: s.CallerID, Function: s.Function, FuncID: s.FuncID, CallTargets: s.CallTargets}
		b.sites[k] = site
	}
	return site
}

func (s *Site) target(ss sites.Site) *Target {
	for _, t := range s.Targets {
		if t.FuncID == ss.FuncID {
			return t
		}
	}
	t := &Target{FuncID: ss.FuncID, Function: ss.Function}
	s.Targets = append(s.Targets, t)
	return t
}

// add makes the target emit the tuple of need n of question q, once.
func (t *Target) add(q string, qindex int, n need, caller *callerRef, sch *schema.Schema) error {
	table := sch.Table(q, n.prim)
	if table == nil {
		return fmt.Errorf("the schema has no stored relation %s for question %s", n.prim, q)
	}
	fields, ok := igmFields(n)
	if !ok {
		return fmt.Errorf("no instrumentation for stored relation %s", n.prim)
	}
	e := Emit{Question: q, QIndex: qindex, Table: table, Fields: fields}
	for _, old := range t.Emits {
		if old.Table == table && fmt.Sprint(old.Fields) == fmt.Sprint(e.Fields) {
			return nil
		}
	}
	if caller != nil {
		e.callerFunc = caller.callerFunc // resolved once all sites are known
	}
	t.Emits = append(t.Emits, e)
	return nil
}

// resolveCallers points every tuple with a caller field at the definition
// site of the function whose body holds the call.
func (b *builder) resolveCallers() error {
	defs := map[int64]*Site{}
	for _, s := range b.sites {
		if s.Kind == spec.SiteDefinition {
			defs[s.FuncID] = s
		}
	}
	for _, s := range b.sites {
		for _, t := range s.Targets {
			for i, e := range t.Emits {
				if e.callerFunc == 0 {
					continue
				}
				// A caller without a definition site (a package's
				// initializer, for a call in a package-level variable's
				// initializer) leaves CallerSite nil: Generate skips the
				// site and says why, and instruments the others.
				t.Emits[i].CallerSite = defs[e.callerFunc]
			}
		}
	}
	return nil
}

// plan numbers the sites in source order and their targets.
func (b *builder) plan() *Plan {
	p := &Plan{}
	for _, s := range b.sites {
		p.Sites = append(p.Sites, s)
	}
	// Source order; sites of one span (a loop's executions and its
	// iterations, two names of one statement) by kind and label.
	sort.Slice(p.Sites, func(i, j int) bool {
		a, b := p.Sites[i], p.Sites[j]
		switch {
		case a.Span != b.Span:
			return a.Span.Less(b.Span)
		case a.Kind != b.Kind:
			return a.Kind < b.Kind
		}
		return a.Label < b.Label
	})
	id := 0
	for i, s := range p.Sites {
		s.Index = i + 1
		s.BlockedOnly = s.Kind == spec.SiteBlocking && !s.mayNotBlock
		sort.Slice(s.Targets, func(i, j int) bool { return s.Targets[i].Function < s.Targets[j].Function })
		for _, t := range s.Targets {
			id++
			t.SiteID = id
		}
	}
	return p
}

// needsOf lists the stored relations that variable v, recorded at sites
// at, fills in the disjunct root: its execution (of a function or a region), its attributes, the order and goroutine
// data of relations derived from them; callees lists the lexical
// relations (calls, spawns) in which v is the second event.
func needsOf(v string, root *spec.Conj, at []sites.Site) (needs []need, callees []need) {
	points := map[string]int{} // point variable of v → 0 begin, 1 end
	root.EachAtom(func(a *spec.Atom) {
		if a.Prim.PointOf() && a.Args[1].Var == v && a.Args[1].Lit == nil {
			points[a.Args[0].Var] = int(a.Prim.Denotes)
		}
	})
	isV := func(t spec.Term) (bool, int) {
		if t.Lit != nil {
			return false, 0
		}
		if t.Var == v {
			return true, 0
		}
		end, ok := points[t.Var]
		return ok, end
	}
	// The variable's sites record one event type (a region variable's
	// sites are all regions, ...): the need of its stored relation.
	exec, instant := need{prim: "exec"}, false
	if len(at) > 0 {
		if t := spec.RecordedAt(at[0].Kind); t != nil {
			// An instant (an allocation): its id is its begin and its end.
			exec, instant = need{prim: t.Table}, spec.IsInstant(t.Name)
		}
	}
	needs = append(needs, exec)
	if !instant && endAlone(v, root) {
		// (end p v) that nothing else reads: v's end row says v ended.
		needs = append(needs, need{prim: "end"})
	}
	root.EachAtom(func(a *spec.Atom) {
		if a.Prim.Kind != spec.Attribute && a.Prim.Kind != spec.ControlRelation {
			return
		}
		tables, err := schema.StoredRelations(a.Prim)
		if err != nil || len(tables) == 0 {
			return
		}
		switch a.Prim.Kind {
		case spec.Attribute:
			if ok, end := isV(a.Args[0]); ok {
				needs = append(needs, needOf(a, end))
			}
		case spec.ControlRelation:
			first, _ := isV(a.Args[0])
			second, _ := isV(a.Args[1])
			if a.Prim.Lexical {
				if second {
					callees = append(callees, need{prim: tables[0]})
				}
				return
			}
			if first || second {
				for _, t := range tables {
					if t != "end" || !instant {
						needs = append(needs, need{prim: t})
					}
				}
			}
		}
	})
	return dedupNeeds(needs), dedupNeeds(callees)
}

// endAlone reports whether a conjunction of root, or of a negation in
// it, has an end point of v that no other atom of it reads
// (schema.EndAlone): the view then reads v's end row.
func endAlone(v string, c *spec.Conj) bool {
	for _, a := range c.Atoms {
		if a.Args[len(a.Args)-1].Lit == nil && a.Args[len(a.Args)-1].Var == v && schema.EndAlone(c, a) {
			return true
		}
	}
	for _, n := range c.Not {
		if endAlone(v, n) {
			return true
		}
	}
	return false
}

// isCaller reports whether v is the first event of a lexical relation.
func isCaller(v string, root *spec.Conj) bool {
	found := false
	root.EachAtom(func(a *spec.Atom) {
		if a.Prim.Lexical && a.Args[0].Lit == nil && a.Args[0].Var == v {
			found = true
		}
	})
	return found
}

func dedupNeeds(ns []need) []need {
	seen := map[need]bool{}
	var out []need
	for _, n := range ns {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Questions returns the indexes of the questions the target emits
// tuples for, in order.
func (t *Target) Questions() []int {
	seen := map[int]bool{}
	var qs []int
	for _, e := range t.Emits {
		if !seen[e.QIndex] {
			seen[e.QIndex] = true
			qs = append(qs, e.QIndex)
		}
	}
	for _, ac := range t.Cells {
		if !seen[ac.QIndex] {
			seen[ac.QIndex] = true
			qs = append(qs, ac.QIndex)
		}
	}
	sort.Ints(qs)
	return qs
}

// Accounts are the memory accounts the plan's allocation sites read
// (allocation-account), by set: each set is the patterns string of the
// question, as written, once, in the order of the sites. A set's index
// is its number in the runtime's goroutine-local accounts, which the
// functions of its accounted packages enter (docs/MEMORY.md).
func (p *Plan) Accounts() []string {
	var sets []string
	for _, s := range p.Sites {
		for _, t := range s.Targets {
			var in []string
			for _, e := range t.Emits {
				for _, f := range e.Fields {
					if f.Cap == CapAccount {
						in = append(in, f.Expr)
					}
				}
			}
			for _, ac := range t.Cells {
				in = append(in, ac.accounts()...)
			}
			for _, set := range in {
				if !slices.Contains(sets, set) {
					sets = append(sets, set)
				}
			}
		}
	}
	return sets
}
