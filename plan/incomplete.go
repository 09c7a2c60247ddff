package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// Incomplete is a reason why the answer of a question may miss
// executions, or hold some it should not, or values its own recording
// inflates: a site pmm could not instrument, a relation it cannot record
// somewhere, a call it cannot tell the target of, durations with timed
// executions inside. The answer is then not guaranteed exact, and says
// so (pmm answer, the table pmm_incomplete).
type Incomplete struct {
	Question string   `json:"question"`
	Vars     []string `json:"vars"` // the event variables it affects
	Reason   string   `json:"reason"`
	// Position is the site's file:line:col, the file relative to the
	// module root; "" when no one site is to blame.
	Position string `json:"position,omitempty"`
	// Skip says a site was not instrumented (Code.Skipped).
	Skip bool `json:"skip,omitempty"`
	// Outside says the reason is code outside the module that may
	// allocate inside a container (sites.Gap.Outside): the run's heap
	// profile says what it allocated, in tables of its own.
	Outside bool `json:"outside,omitempty"`
	qindex  int
}

// incompleteness collects the reasons of a plan, one per question,
// reason and position, with the variables each affects.
type incompleteness struct {
	byKey map[[3]string]*Incomplete
	order []*Incomplete
}

// add records that variable v of question q (index qi) may be
// incomplete for reason, at position.
func (in *incompleteness) add(q string, qi int, v, reason, position string) *Incomplete {
	if in.byKey == nil {
		in.byKey = map[[3]string]*Incomplete{}
	}
	k := [3]string{q, reason, position}
	r := in.byKey[k]
	if r == nil {
		r = &Incomplete{Question: q, Reason: reason, Position: position, qindex: qi}
		in.byKey[k] = r
		in.order = append(in.order, r)
	}
	if !slices.Contains(r.Vars, v) {
		r.Vars = append(r.Vars, v)
	}
	return r
}

// addSite records reason for every event site s records, for every
// question.
func (in *incompleteness) addSite(s *Site, qindex map[string]int, reason string, skip bool) {
	for _, t := range s.Targets {
		in.addTarget(s, t, qindex, reason, skip)
	}
}

// addTarget records reason for every event site s records of target t.
func (in *incompleteness) addTarget(s *Site, t *Target, qindex map[string]int, reason string, skip bool) {
	for _, qv := range t.Vars {
		if t.impossible[qv] {
			continue
		}
		q, v, _ := strings.Cut(qv, "/")
		in.add(q, qindex[q], v, reason, s.Position()).Skip = skip
	}
}

// OutsideQuestions are the questions whose answers leave out what code
// outside the module may allocate inside a container (Incomplete.Outside),
// in order: the runtime writes the heap profile for them (rt.Sources).
func (p *Plan) OutsideQuestions() []string { return outsideQuestions(p.gaps) }

// OutsideQuestions are the questions whose answers leave out what code
// outside the module may allocate inside a container, in order: pmm run
// and pmm test read the run's heap profile for them.
func (pr *Project) OutsideQuestions() []string { return outsideQuestions(pr.Incomplete) }

// outsideQuestions are the questions of reasons marked Outside, once
// each, in order.
func outsideQuestions(reasons []Incomplete) []string {
	var out []string
	for _, r := range reasons {
		if r.Outside && !slices.Contains(out, r.Question) {
			out = append(out, r.Question)
		}
	}
	return out
}

// list returns the reasons by question, in program order, then by
// position and reason.
func (in *incompleteness) list() []Incomplete {
	out := make([]Incomplete, 0, len(in.order))
	for _, r := range in.order {
		sort.Strings(r.Vars)
		out = append(out, *r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.qindex != b.qindex {
			return a.qindex < b.qindex
		}
		if a.Position != b.Position {
			return a.Position < b.Position
		}
		return a.Reason < b.Reason
	})
	return out
}

// Position is the site's file:line:col.
func (s *Site) Position() string { return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col) }

// Functions lists the functions of the site's targets.
func (s *Site) Functions() []string {
	var out []string
	for _, t := range s.Targets {
		out = append(out, t.Function)
	}
	return out
}

// Incomplete lists the reasons why the answers may be incomplete: those
// the plan knows, and those of code generation: the sites it skipped
// and the targets it instruments inexactly (none, before it).
func (p *Plan) Incomplete(skipped []Skip, inexact []Inexact) []Incomplete {
	in := &incompleteness{}
	for _, r := range p.gaps {
		for _, v := range r.Vars {
			in.add(r.Question, r.qindex, v, r.Reason, r.Position).Outside = r.Outside
		}
	}
	skip := map[*Site]bool{}
	for _, s := range skipped {
		skip[s.Site] = true
		what := "the call of " + strings.Join(s.Site.Functions(), ", ")
		events := "its executions there are"
		switch {
		case s.Site.Kind == spec.SiteDefinition:
			what = "the body of " + s.Site.Function
		case s.Site.InBody() || s.Site.Kind == spec.SiteGo:
			what, events = s.Site.regionName(), "its events are"
		}
		in.addSite(s.Site, p.qindices, fmt.Sprintf("%s is not instrumented, so %s not recorded: %s", what, events, s.Reason), true)
	}
	for _, s := range inexact {
		if !skip[s.Site] {
			in.addTarget(s.Site, s.Target, p.qindices, s.Reason, false)
		}
	}
	return in.list()
}

// Inexact is a target whose executions a site may miss, and why.
type Inexact struct {
	Site   *Site
	Target *Target
	Reason string
}

// Skip is a site that code generation could not instrument, and why.
type Skip struct {
	Site   *Site
	Reason string
}

// NestedClocks says which sites that read the clock may run inside the
// executions whose durations a site records, in the same goroutine: each
// such nested execution adds its own two clock reads, its id and its
// record to the duration, more than the 50 ns per nested execution that
// issue 10 allows (docs/PERFORMANCE.md, "The bias of a duration"). The
// generated code subtracts that cost: a compensated site takes, around
// its interval, the count of the timed executions that ended inside it
// in its goroutine, which the counted sites keep (docs/RUNTIME.md,
// "Durations with timed executions inside"); and the answer says so. A
// nil NestedClocks compensates nothing.
type NestedClocks struct {
	inside  map[*Site]bool // the sites that have clocks inside their durations
	counted map[*Site]bool
	notes   []Incomplete
}

// Compensated reports whether s records durations inside which sites that
// read the clock may run.
func (n *NestedClocks) Compensated(s *Site) bool { return n != nil && n.inside[s] }

// Counted reports whether s reads the clock and may run inside the
// durations of a compensated site.
func (n *NestedClocks) Counted(s *Site) bool { return n != nil && n.counted[s] }

// Notes are what the answers whose durations are compensated say of it.
func (n *NestedClocks) Notes() []Incomplete {
	if n == nil {
		return nil
	}
	return n.notes
}

// InBody reports whether s records a part of a body: a region's
// executions or iterations, a blocking operation or an allocation.
func (s *Site) InBody() bool {
	return s.Kind == spec.SiteRegion || s.Kind == spec.SiteIteration || s.Kind == spec.SiteBlocking || s.Kind == spec.SiteAllocation
}

// holds reports whether site c, in the same function as region site s,
// runs within s's events: within its statement, and, for an iteration,
// not the loop's own region site, whose execution holds the iterations.
func (s *Site) holds(c *Site) bool {
	return s.Span.Contains(c.Span) && !(s.Kind == spec.SiteIteration && c.Span == s.Span)
}

// NestedClocks finds the sites that read the clock and may run inside
// the durations each site records. calls returns the functions an
// execution of caller may call, directly or not, in its goroutine (the
// static call graph), each once, by the calls within the span within when
// it is not nil; it is asked once per function (and part of a body) whose
// durations are recorded. A site's own clock reads are outside its
// interval, so it counts only if its function recurses into it.
func (p *Plan) NestedClocks(calls func(caller int64, within *static.Span) ([]int64, error)) (*NestedClocks, error) {
	var clocks []*Site
	for _, s := range p.Sites {
		// A goroutine's clocks are read on two goroutines, at its go
		// statement and after its function returned: it neither counts
		// in the durations of the executions around its go statement nor
		// subtracts anything from its own (pmm's cost is in both).
		if caps := s.Captures(); (caps[CapBegin] || caps[CapFinish]) && s.Kind != spec.SiteGo {
			clocks = append(clocks, s)
		}
	}
	// The clocks by the function whose body runs their instrumentation.
	byHost := map[int64][]int{}
	for i, c := range clocks {
		h := c.FuncID
		if c.Kind == spec.SiteCall {
			h = c.CallerID
		}
		byHost[h] = append(byHost[h], i)
	}
	// what names a clock's site in a reason.
	what := func(c *Site) string {
		switch {
		case c.Kind == spec.SiteCall:
			return "the call of " + strings.Join(c.Functions(), ", ")
		case c.InBody():
			return c.regionName()
		}
		return c.Function
	}
	timed := func(e Emit) bool {
		return slices.ContainsFunc(e.Fields, func(f Field) bool { return f.Cap == CapDuration })
	}
	n := &NestedClocks{inside: map[*Site]bool{}, counted: map[*Site]bool{}}
	// compensated are, by question, the durations compensated: each
	// function's with the nested sites, where, and the variables.
	type duration struct {
		function, nested, position string
		vars                       []string
		qindex                     int
		inBody                     bool // a region, iterations, a blocking operation
	}
	compensated := map[string][]duration{}
	var questions []string
	for _, s := range p.Sites {
		for _, t := range s.Targets {
			if !slices.ContainsFunc(t.Emits, timed) || s.Kind == spec.SiteBlocking && s.Label != "select" || s.Kind == spec.SiteGo {
				// A send, receive or call of sync times the operation
				// alone: its operands are evaluated before it begins;
				// a goroutine is timed on two goroutines.
				continue
			}
			// A part of a body runs only the calls within it.
			var within *static.Span
			if s.InBody() {
				within = &s.Span
			}
			callees, err := calls(t.FuncID, within)
			if err != nil {
				return nil, err
			}
			// The clocks inside, in the order of the plan: those of
			// its own function's body at other sites (all of them,
			// when it calls itself), and those of its callees' bodies.
			var in []int
			recursive := slices.Contains(callees, t.FuncID)
			for _, i := range byHost[t.FuncID] {
				// In its own function, a part of a body holds only the
				// sites within it.
				if clocks[i] != s && !recursive && (!s.InBody() || s.holds(clocks[i])) {
					in = append(in, i)
				}
			}
			for _, h := range callees {
				in = append(in, byHost[h]...)
			}
			slices.Sort(in)
			var nested []string // the first three, then how many more
			count := len(in)
			for _, i := range in {
				c := clocks[i]
				if len(nested) < 3 {
					nested = append(nested, fmt.Sprintf("%s (%s)", what(c), c.Position()))
				}
				n.inside[s] = true
				n.counted[c] = true
			}
			if count == 0 {
				continue
			}
			if count > 3 {
				nested = append(nested, fmt.Sprintf("and %d more", count-3))
			}
			for _, e := range t.Emits {
				if !timed(e) {
					continue
				}
				function := t.Function
				if s.InBody() {
					function = s.regionName()
				}
				d := duration{function: function, inBody: s.InBody(), nested: strings.Join(nested, ", "), position: s.Position(), qindex: e.QIndex}
				for _, qv := range t.Vars {
					if q, v, _ := strings.Cut(qv, "/"); q == e.Question && !t.impossible[qv] {
						d.vars = append(d.vars, v)
					}
				}
				if _, ok := compensated[e.Question]; !ok {
					questions = append(questions, e.Question)
				}
				compensated[e.Question] = append(compensated[e.Question], d)
			}
		}
	}
	// A reason per function and site, or, for a question with more than
	// three, one for them all: a question over every function's
	// durations would otherwise print one for nearly every function.
	const how = "and pmm subtracts its recording of each that did (two clock reads and a record, measured when the run starts); " +
		"what remains of it is the error of that measure, a few nanoseconds each"
	in := &incompleteness{}
	for _, q := range questions {
		ds := compensated[q]
		var functions []string // a function's durations may be recorded at several sites
		seen := map[string]bool{}
		for _, d := range ds {
			if !seen[d.function] {
				seen[d.function] = true
				functions = append(functions, d.function)
			}
		}
		if len(functions) <= 3 {
			for _, d := range ds {
				reason := fmt.Sprintf("the durations of %s are compensated: instrumented executions that read the clock may run inside them (%s), %s",
					d.function, d.nested, how)
				for _, v := range d.vars {
					in.add(q, d.qindex, v, reason, d.position)
				}
			}
			continue
		}
		what := "functions"
		if slices.ContainsFunc(ds, func(d duration) bool { return d.inBody }) {
			what = "functions and parts of bodies"
		}
		reason := fmt.Sprintf("the durations of %d %s (%s and %d more) are compensated: instrumented executions that read the clock "+
			"may run inside them, %s", len(functions), what, strings.Join(functions[:3], ", "), len(functions)-3, how)
		for _, d := range ds {
			for _, v := range d.vars {
				in.add(q, d.qindex, v, reason, "")
			}
		}
	}
	n.notes = in.list()
	return n, nil
}
