// Package sites is static approximation (seed 001, 4.2): it turns each
// normalized question into queries over the static database, one per
// event variable (SAT, 4.2.3), and chooses where each event is recorded:
// at the definition of a function or at its call sites.
//
// The static correspondence of every primitive (SMAP, 4.2.2) is data: the
// Static column of the vocabulary table in package spec. Attributes and
// comparisons have none and are dropped, with the variables only they use
// (4.2.3, "testing condition elimination"); they are tested at run time.
package sites

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// Selection is the result of static approximation for a program.
type Selection struct {
	Questions []*Question `json:"questions"`
}

// Question is the selection for one question.
type Question struct {
	Name      string      `json:"name"`
	Disjuncts []*Disjunct `json:"disjuncts"`
	Warnings  []string    `json:"warnings,omitempty"`
}

// Disjunct is the selection for one conjunction of a question's normal
// form; Negated holds those of its negated parts, whose event variables
// also need sites (seed 4.2.3, negations).
type Disjunct struct {
	Vars    []*Var      `json:"vars"`
	Negated []*Disjunct `json:"negated,omitempty"`
}

// Var is the selection for one event variable.
type Var struct {
	Name string `json:"var"`
	// SQL is the query over static.db whose rows are the functions this
	// variable's executions can be of.
	SQL        string        `json:"sql"`
	Functions  []Function    `json:"functions"`
	Sites      []Site        `json:"sites"`
	Candidates int           `json:"candidates"` // functions in the database
	Eliminated []Elimination `json:"eliminated,omitempty"`
	Lexical    bool          `json:"lexical,omitempty"` // recorded at call sites in its caller's body
	// RelationsAtCalls says the lexical relations in which it is the
	// callee are recorded at call sites (RelationOnly ones, beside its
	// definition), so that a definition site knows its caller.
	RelationsAtCalls bool           `json:"relations_at_calls,omitempty"`
	Gaps             []Gap          `json:"gaps,omitempty"`
	atoms            []*spec.Atom   // the static atoms of its query
	name             *spec.Literal  // the function name it must have, if a literal
	callers          []calleeOfAtom // the relations in which it is the callee
	caller           bool           // it is the first event of a lexical relation
	// kinds are the kinds of sites that know all it needs: those of its
	// event type's row, less those its attributes' rows exclude.
	kinds []spec.SiteKind
	// possible are, when not approximating, the functions static
	// approximation would keep (nil: all of Functions).
	possible map[int64]bool
}

// Function is a function a variable's executions can be of.
type Function struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	InModule bool   `json:"in_module"`
}

// Site is a place in the source where an event is recorded.
type Site struct {
	Kind     spec.SiteKind `json:"kind"`              // definition, call, region, iteration, blocking or go
	Function string        `json:"function"`          // for a region site, the function it lies in; for a go site, the function it starts
	Label    string        `json:"label,omitempty"`   // for a region site, its label; for a blocking one, its kind
	Operand  string        `json:"operand,omitempty"` // for a blocking site, its operand as written
	// InFrame, for an allocation site, says the compiler keeps its
	// object in the frame: a map's header (its tables may still be on
	// the heap).
	InFrame  bool   `json:"in_frame,omitempty"`
	FuncID   int64  `json:"function_id"`
	CallID   int64  `json:"call_id,omitempty"`
	Caller   string `json:"caller,omitempty"` // for a call or go site, the function it lies in
	CallerID int64  `json:"caller_id,omitempty"`
	Via      string `json:"via,omitempty"` // for a call site: call, go or defer
	File     string `json:"file"`
	Line     int    `json:"line"`
	Col      int    `json:"col"`
	EndLine  int    `json:"end_line"`
	EndCol   int    `json:"end_col"`
	Reason   string `json:"reason"`
	// CallTargets are, for a call site that may run several functions,
	// all of them (not only those the variable selects).
	CallTargets []string `json:"call_targets,omitempty"`
	// Impossible says static approximation, which this selection did not
	// apply, finds that its executions cannot be events of the variable:
	// not recording them loses nothing.
	Impossible bool `json:"impossible,omitempty"`
	// RelationOnly says a call site records only the lexical relations
	// (calls, spawns) in which the execution it runs is the callee: the
	// execution is recorded at its definition, which adopts the id the
	// call site takes (one id for one execution).
	RelationOnly bool `json:"relation_only,omitempty"`
}

// InBody reports whether the site is a part of a function's body: a
// region recording its executions or its iterations, a blocking
// operation or an allocation.
func (s Site) InBody() bool {
	return s.Kind == spec.SiteRegion || s.Kind == spec.SiteIteration || s.Kind == spec.SiteBlocking || s.Kind == spec.SiteAllocation
}

// Position is file:line:col.
func (s Site) Position() string { return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col) }

// Elimination counts candidates dropped for one reason.
type Elimination struct {
	Count  int    `json:"count"`
	Reason string `json:"reason"`
}

// Gap is a reason why the sites of a variable may not see all its
// events: the answers that use it may be incomplete.
type Gap struct {
	Reason   string `json:"reason"`
	Position string `json:"position,omitempty"` // file:line:col, when one site is to blame
	// Outside says the gap is code outside the module that may allocate
	// inside a container (outside.go): pmm run and pmm test then read the
	// run's heap profile for what it allocated (docs/MEMORY.md).
	Outside bool `json:"outside,omitempty"`
}

// calleeOfAtom is a relation such as (calls x v) that constrains where v's
// call sites may lie.
type calleeOfAtom struct {
	atom   *spec.Atom
	caller string // the variable of the first argument
}

// Select runs static approximation for every question of prog over the
// static database db.
func Select(ctx context.Context, db *sql.DB, prog *spec.Program) (*Selection, error) {
	return SelectWith(ctx, db, prog, Options{Approximate: true})
}

// Options say how to select.
type Options struct {
	// Approximate applies static approximation. Without it, every site of
	// the primitive types the questions use is selected, the baseline of
	// the straightforward and run-time modes (seed 6.1): only the choice
	// between definitions and call sites remains.
	Approximate bool
}

// SelectWith selects the sites of every question of prog as opts say.
func SelectWith(ctx context.Context, db *sql.DB, prog *spec.Program, opts Options) (*Selection, error) {
	s := &selector{ctx: ctx, db: db, approximate: opts.Approximate, stmts: map[string]*sql.Stmt{}}
	defer func() {
		for _, st := range s.stmts {
			st.Close()
		}
	}()
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM functions").Scan(&s.total); err != nil {
		return nil, fmt.Errorf("reading the static database: %w", err)
	}
	sel := &Selection{}
	for _, q := range prog.Questions {
		out := &Question{Name: q.Name}
		// The frames of calling contexts are the module's functions
		// only (spec/contexts.go): a path holds the functions pmm
		// instruments at their definitions, and recording the calls of
		// functions outside the module would add frames that skip
		// their callees.
		s.moduleOnly = q.Name == spec.FramesQuestion
		for _, c := range q.Disjuncts {
			d, err := s.disjunct(c, nil, nil, out)
			if err != nil {
				return nil, fmt.Errorf("question %s: %w", q.Name, err)
			}
			out.Disjuncts = append(out.Disjuncts, d)
		}
		sel.Questions = append(sel.Questions, out)
	}
	return sel, nil
}

type selector struct {
	ctx         context.Context
	db          *sql.DB
	total       int
	approximate bool
	moduleOnly  bool        // select the functions of the module only
	unresolved  *[]callSite // the dynamic calls the call graph did not resolve, once read
	stmts       map[string]*sql.Stmt
	// scope are the event variables of the conjunctions enclosing the
	// one being selected; graph and outside are read once, for
	// allocations contained in executions (outside.go).
	scope   []*Var
	graph   *static.CallGraph
	outside *[]outsideCall
}

// prepared is query prepared, once for all the functions it is asked
// of: parsing it each time was a third of the time of a query.
func (s *selector) prepared(query string) (*sql.Stmt, error) {
	st, ok := s.stmts[query]
	if !ok {
		var err error
		if st, err = s.db.PrepareContext(s.ctx, query); err != nil {
			return nil, err
		}
		s.stmts[query] = st
	}
	return st, nil
}

// disjunct selects sites for the event variables of c, which lies inside
// conjunctions whose positive atoms are outer and variable types outerTypes.
func (s *selector) disjunct(c *spec.Conj, outer []*spec.Atom, outerTypes spec.VarTypes, q *Question) (*Disjunct, error) {
	types, ok := c.Types(outerTypes)
	if !ok {
		return nil, fmt.Errorf("the types of the variables do not agree (run pmm check)")
	}
	atoms := append(append([]*spec.Atom(nil), outer...), c.Atoms...)
	d := &Disjunct{}
	for _, v := range s.ownEvents(c, types, outerTypes) {
		vs, err := s.variable(v, atoms, types)
		if err != nil {
			return nil, err
		}
		if len(vs.Functions) == 0 {
			q.Warnings = append(q.Warnings, s.warning(vs))
		}
		d.Vars = append(d.Vars, vs)
	}
	for _, v := range ownRegions(types, outerTypes) {
		if types[v] == spec.TypeGoroutine {
			vs, err := s.goroutineVariable(v, atoms, d.Vars)
			if err != nil {
				return nil, err
			}
			if len(vs.Sites) == 0 {
				q.Warnings = append(q.Warnings, goroutineWarning(vs))
			}
			d.Vars = append(d.Vars, vs)
			continue
		}
		vs, err := s.regionVariable(v, types[v], atoms)
		if err != nil {
			return nil, err
		}
		if len(vs.Sites) == 0 {
			q.Warnings = append(q.Warnings, s.regionWarning(vs))
		}
		d.Vars = append(d.Vars, vs)
	}
	scope := append(slices.Clone(s.scope), d.Vars...)
	if err := s.containedAllocations(d.Vars, scope, atoms, types); err != nil {
		return nil, err
	}
	outerScope := s.scope
	s.scope = scope
	defer func() { s.scope = outerScope }()
	for _, neg := range c.Not {
		nd, err := s.disjunct(neg, atoms, types, q)
		if err != nil {
			return nil, err
		}
		d.Negated = append(d.Negated, nd)
		if err := s.negatedCallers(d, neg, atoms, types); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// negatedCallers adds, for a variable of d recorded at its definition
// that is the callee of a lexical relation in the negated part neg
// (executions of x not called by an f), the call sites of its functions
// in the bodies neg allows its caller to be: they record only the
// relation, with the id the definition adopts.
func (s *selector) negatedCallers(d *Disjunct, neg *spec.Conj, outer []*spec.Atom, outerTypes spec.VarTypes) error {
	types, ok := neg.Types(outerTypes)
	if !ok {
		return fmt.Errorf("the types of the variables do not agree (run pmm check)")
	}
	atoms := append(append([]*spec.Atom(nil), outer...), neg.Atoms...)
	if !s.approximate {
		atoms = nil
	}
	for _, vs := range d.Vars {
		for _, a := range neg.Atoms {
			if a.Prim.Lexical && a.Args[1].Lit == nil && a.Args[1].Var == vs.Name && a.Args[0].Lit == nil {
				rel := &Var{Name: vs.Name, callers: []calleeOfAtom{{atom: a, caller: a.Args[0].Var}}}
				if err := s.relationSites(vs, rel, atoms, types); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// relationSites adds to vs, for each of its functions recorded at its
// definition, the call sites that rel's relations allow, recording only
// the relation.
func (s *selector) relationSites(vs, rel *Var, atoms []*spec.Atom, types spec.VarTypes) error {
	allowed, err := s.allowedCallers(rel, atoms, types)
	if err != nil {
		return err
	}
	have := map[[2]int64]bool{}
	for _, site := range vs.Sites {
		if site.Kind == spec.SiteCall {
			have[[2]int64{site.FuncID, site.CallID}] = true
		}
	}
	var added []Site
	for _, def := range vs.Sites {
		if def.Kind != spec.SiteDefinition {
			continue
		}
		calls, err := s.callSites(def.FuncID, "callgraph_edges")
		if err != nil {
			return err
		}
		for _, c := range calls {
			if !allowedCall(c, allowed) || have[[2]int64{def.FuncID, c.id}] {
				continue
			}
			have[[2]int64{def.FuncID, c.id}] = true
			site := callSiteOf(Function{ID: def.FuncID, Name: def.Function}, c, "records "+describeCallers(rel)+" only; the definition adopts its id", def.Impossible)
			site.RelationOnly = true
			added = append(added, site)
		}
	}
	vs.Sites = append(vs.Sites, added...)
	vs.RelationsAtCalls = true
	sortSites(vs.Sites)
	return s.unresolvedGaps(vs, allowed)
}

// siteKinds are the kinds of sites that can record event v of a
// conjunction with atoms all: its type's (the row's Sites), less those
// that do not know the value of one of its attributes.
func siteKinds(v string, all []*spec.Atom, types spec.VarTypes) []spec.SiteKind {
	kinds := spec.Lookup(types[v]).Sites
	for _, a := range all {
		if a.Prim.Kind != spec.Attribute || len(a.Prim.Sites) == 0 || a.Args[0].Lit != nil || a.Args[0].Var != v {
			continue
		}
		kinds = slices.DeleteFunc(slices.Clone(kinds), func(k spec.SiteKind) bool { return !slices.Contains(a.Prim.Sites, k) })
	}
	return kinds
}

// ownEvents lists the function-execution variables that c introduces:
// those not typed by an enclosing conjunction.
func (s *selector) ownEvents(c *spec.Conj, types, outer spec.VarTypes) []string {
	var vars []string
	for v, t := range types {
		if _, inherited := outer[v]; t == spec.TypeFunctionExecution && !inherited {
			vars = append(vars, v)
		}
	}
	sort.Strings(vars)
	return vars
}

// query is the SQL of a variable: one row of the functions table per
// event variable of its component, and the static conditions between them.
type query struct {
	aliases map[string]string // event variable → table alias
	values  map[string]string // value variable → SQL expression
	from    []string
	where   []string
	atoms   []*spec.Atom
}

// variable runs the SAT query of v and chooses its sites.
func (s *selector) variable(v string, all []*spec.Atom, types spec.VarTypes) (*Var, error) {
	vs := &Var{Name: v, Candidates: s.total, kinds: siteKinds(v, all, types)}
	atoms := all // the atoms that approximate
	if !s.approximate {
		atoms = nil
	}
	comp := component(v, atoms, types)
	q := buildQuery(comp, atoms, types)
	vs.SQL = "SELECT DISTINCT " + q.aliases[v] + ".id FROM " + strings.Join(q.from, ", ")
	if len(q.where) > 0 {
		vs.SQL += " WHERE " + strings.Join(q.where, " AND ")
	}
	vs.atoms = q.atoms
	for _, a := range all {
		// Seen in every mode: without static approximation too, a caller
		// needs its definition, where its id is taken for its call sites.
		if a.Prim.Lexical && a.Args[0].Lit == nil && a.Args[0].Var == v {
			vs.caller = true
		}
	}
	for _, a := range all {
		switch {
		case a.Prim.Name == spec.TypeFunctionExecution && a.Args[0].Var == v && a.Args[1].Lit != nil:
			vs.name = a.Args[1].Lit
		case a.Prim.Static != "" && len(a.Args) == 2 && a.Args[1].Var == v && a.Args[0].Lit == nil && a.Prim.Kind == spec.ControlRelation:
			vs.callers = append(vs.callers, calleeOfAtom{atom: a, caller: a.Args[0].Var})
			if a.Prim.Lexical {
				vs.Lexical = true
			}
		}
	}
	// The other components must not be empty, or no tuple exists at all.
	for _, other := range otherComponents(comp, atoms, types) {
		oq := buildQuery(other, atoms, types)
		probe := "SELECT 1 FROM " + strings.Join(oq.from, ", ")
		if len(oq.where) > 0 {
			probe += " WHERE " + strings.Join(oq.where, " AND ")
		}
		var one int
		err := s.db.QueryRowContext(s.ctx, probe+" LIMIT 1").Scan(&one)
		if err == sql.ErrNoRows {
			vs.Eliminated = append(vs.Eliminated, Elimination{Count: s.total, Reason: "nothing satisfies " + atomList(oq.atoms)})
			return vs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", probe, err)
		}
	}
	funcs, err := s.functions("SELECT f.id, f.name, f.in_module FROM functions f WHERE f.id IN (" + vs.SQL + ") ORDER BY f.name")
	if err != nil {
		return nil, err
	}
	if s.moduleOnly {
		funcs = slices.DeleteFunc(funcs, func(f Function) bool { return !f.InModule })
	}
	vs.Functions = funcs
	if s.approximate {
		if err := s.eliminations(vs); err != nil {
			return nil, err
		}
		if len(funcs) == 0 {
			if err := s.unresolvedEmpty(vs); err != nil {
				return nil, err
			}
		}
	} else {
		// Without static approximation every function is selected, but
		// only those it would keep can be events whose loss matters.
		aq := buildQuery(component(v, all, types), all, types)
		sqlText := "SELECT DISTINCT " + aq.aliases[v] + ".id FROM " + strings.Join(aq.from, ", ")
		if len(aq.where) > 0 {
			sqlText += " WHERE " + strings.Join(aq.where, " AND ")
		}
		if vs.possible, err = s.ids(sqlText); err != nil {
			return nil, err
		}
	}
	if err := s.directCallbackGaps(vs, all, types); err != nil {
		return nil, err
	}
	return vs, s.chooseSites(vs, atoms, types)
}

// component returns the event variables connected to v by static atoms.
func component(v string, atoms []*spec.Atom, types spec.VarTypes) map[string]bool {
	alias := intervalOf(atoms)
	links := map[string][]string{}
	nameVars := map[string][]string{} // name variable → the events named by it
	for _, a := range atoms {
		if a.Prim.Static == "" {
			continue
		}
		if a.Prim.Name == spec.TypeFunctionExecution {
			if t := a.Args[1]; t.Lit == nil {
				nameVars[t.Var] = append(nameVars[t.Var], a.Args[0].Var)
			}
			continue
		}
		var evs []string
		for _, t := range a.Args {
			if t.Lit == nil && isEvent(types[t.Var]) {
				evs = append(evs, resolve(alias, t.Var))
			}
		}
		for _, x := range evs {
			links[x] = append(links[x], evs...)
		}
	}
	for _, evs := range nameVars {
		for _, x := range evs {
			links[x] = append(links[x], evs...)
		}
	}
	comp := map[string]bool{}
	var visit func(x string)
	visit = func(x string) {
		if comp[x] {
			return
		}
		comp[x] = true
		for _, y := range links[x] {
			visit(y)
		}
	}
	visit(resolve(alias, v))
	return comp
}

// otherComponents returns the components of the function-execution
// variables not in comp.
func otherComponents(comp map[string]bool, atoms []*spec.Atom, types spec.VarTypes) []map[string]bool {
	seen := map[string]bool{}
	for v := range comp {
		seen[v] = true
	}
	var vars []string
	for v, t := range types {
		if t == spec.TypeFunctionExecution {
			vars = append(vars, v)
		}
	}
	sort.Strings(vars)
	var out []map[string]bool
	for _, v := range vars {
		if seen[v] {
			continue
		}
		c := component(v, atoms, types)
		for x := range c {
			seen[x] = true
		}
		out = append(out, c)
	}
	return out
}

func isEvent(t string) bool { return t == spec.TypeFunctionExecution || t == spec.TypePoint }

// goSpawner is the static condition, on the row s of the functions
// table, of (spawns s g) with g a goroutine: s's body holds a go
// statement (static.db's goroutines view) that may start a function of
// g's name, when an atom of atoms gives it one.
func goSpawner(s, g string, atoms []*spec.Atom) string {
	cond := "EXISTS (SELECT 1 FROM goroutines gs JOIN functions st ON st.id = gs.started_id WHERE gs.function_id = " + s + ".id"
	for _, a := range atoms {
		if a.Prim.Name == spec.TypeGoroutine && a.Args[0].Lit == nil && a.Args[0].Var == g && a.Args[1].Lit != nil {
			cond += " AND st.match_name = " + sqlLiteral(a.Args[1].Lit)
		}
	}
	return "(" + cond + "))"
}

// overFunctions reports whether every event argument of a is a function
// execution (or a point of one), the rows of the functions table its
// Static condition compares: (spawns a g) with g a goroutine has no
// row for g (goSpawner approximates a, goroutineVariable g).
func overFunctions(a *spec.Atom, alias map[string]string, types spec.VarTypes) bool {
	for _, t := range a.Args {
		if t.Lit == nil && types[t.Var] != "" && spec.IsInterval(types[resolve(alias, t.Var)]) && types[resolve(alias, t.Var)] != spec.TypeFunctionExecution {
			return false
		}
	}
	return true
}

// intervalOf maps the point variables of (begin p x) and (end p x) to x:
// a point's sites are those of its interval.
func intervalOf(atoms []*spec.Atom) map[string]string {
	alias := map[string]string{}
	for _, a := range atoms {
		if a.Prim.PointOf() && a.Args[0].Lit == nil && a.Args[1].Lit == nil {
			alias[a.Args[0].Var] = a.Args[1].Var
		}
	}
	return alias
}

func resolve(alias map[string]string, v string) string {
	if x, ok := alias[v]; ok {
		return x
	}
	return v
}

// buildQuery makes the query of the variables of comp from the static
// atoms among atoms, by the SMAP templates of the vocabulary.
func buildQuery(comp map[string]bool, atoms []*spec.Atom, types spec.VarTypes) *query {
	alias := intervalOf(atoms)
	q := &query{aliases: map[string]string{}, values: map[string]string{}}
	var vars []string
	for v := range comp {
		vars = append(vars, v)
	}
	sort.Strings(vars)
	for _, v := range vars {
		a := sqlAlias(v, q.aliases)
		q.aliases[v] = a
		q.from = append(q.from, "functions "+a)
	}
	arg := func(t spec.Term) (string, bool) {
		if t.Lit != nil {
			return sqlLiteral(t.Lit), true
		}
		if a, ok := q.aliases[resolve(alias, t.Var)]; ok {
			return a, true
		}
		e, ok := q.values[t.Var]
		return e, ok
	}
	// Function names first, so that a name variable is defined by the
	// first execution it names and compared at the others.
	for _, a := range atoms {
		if a.Prim.Name != spec.TypeFunctionExecution || !comp[a.Args[0].Var] {
			continue
		}
		x := q.aliases[a.Args[0].Var]
		if n := a.Args[1]; n.Lit == nil {
			if _, known := q.values[n.Var]; !known {
				q.values[n.Var] = x + ".match_name"
				continue
			}
		}
		q.where = append(q.where, substitute(a, arg))
		q.atoms = append(q.atoms, a)
	}
	for _, a := range atoms {
		if s := a.Args[0]; a.Prim.Stored != nil && a.Prim.Stored.Go && !overFunctions(a, alias, types) && s.Lit == nil && comp[resolve(alias, s.Var)] {
			q.where = append(q.where, goSpawner(q.aliases[resolve(alias, s.Var)], a.Args[1].Var, atoms))
			q.atoms = append(q.atoms, a)
			continue
		}
		if a.Prim.Static == "" || a.Prim.Name == spec.TypeFunctionExecution || !overFunctions(a, alias, types) {
			continue
		}
		in := false
		for _, t := range a.Args {
			if t.Lit == nil && comp[resolve(alias, t.Var)] {
				in = true
			}
		}
		if in {
			q.where = append(q.where, substitute(a, arg))
			q.atoms = append(q.atoms, a)
		}
	}
	return q
}

// sqlAlias makes a table alias from a variable name: the variable in
// letters, digits and underscores, after "e_", unique among taken.
func sqlAlias(v string, taken map[string]string) string {
	var b strings.Builder
	b.WriteString("e_")
	for _, r := range v {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	base := b.String()
	used := map[string]bool{}
	for _, a := range taken {
		used[a] = true
	}
	alias := base
	for k := 2; used[alias]; k++ {
		alias = base + strconv.Itoa(k)
	}
	return alias
}

// substitute fills the SMAP template of a with its arguments.
func substitute(a *spec.Atom, arg func(spec.Term) (string, bool)) string {
	out := a.Prim.Static
	for i, t := range a.Args {
		s, _ := arg(t)
		out = strings.ReplaceAll(out, "{"+strconv.Itoa(i+1)+"}", s)
	}
	return "(" + out + ")"
}

func sqlLiteral(l *spec.Literal) string {
	switch l.Kind {
	case spec.LitString:
		return "'" + strings.ReplaceAll(l.Str, "'", "''") + "'"
	case spec.LitNil:
		return "NULL"
	case spec.LitList:
		return "'" + strings.ReplaceAll(l.ListText(), "'", "''") + "'"
	}
	return l.String()
}

func atomList(atoms []*spec.Atom) string {
	var s []string
	for _, a := range atoms {
		s = append(s, a.String())
	}
	return strings.Join(s, " ")
}

func (s *selector) functions(query string, args ...any) ([]Function, error) {
	rows, err := s.db.QueryContext(s.ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", query, err)
	}
	defer rows.Close()
	var out []Function
	for rows.Next() {
		var f Function
		if err := rows.Scan(&f.ID, &f.Name, &f.InModule); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// eliminations counts the candidates the name and the relations removed.
func (s *selector) eliminations(vs *Var) error {
	named := s.total
	if vs.name != nil {
		if err := s.db.QueryRowContext(s.ctx, "SELECT count(*) FROM functions WHERE match_name = ?", vs.name.Str).Scan(&named); err != nil {
			return err
		}
		if n := s.total - named; n > 0 {
			vs.Eliminated = append(vs.Eliminated, Elimination{Count: n, Reason: "not named " + vs.name.String()})
		}
	}
	var relations []*spec.Atom
	for _, a := range vs.atoms {
		if a.Prim.Name != spec.TypeFunctionExecution || a.Args[1].Lit == nil {
			relations = append(relations, a)
		}
	}
	if n := named - len(vs.Functions); n > 0 {
		vs.Eliminated = append(vs.Eliminated, Elimination{Count: n, Reason: "cannot satisfy " + atomList(relations)})
	}
	return nil
}

// unresolvedEmpty notes, for a variable static approximation finds no
// function for, the dynamic calls the call graph did not resolve: one
// may run a function that satisfies the relations the call graph cannot
// show.
func (s *selector) unresolvedEmpty(vs *Var) error {
	if vs.name != nil {
		var named int
		if err := s.db.QueryRowContext(s.ctx, "SELECT count(*) FROM functions WHERE match_name = ?", vs.name.Str).Scan(&named); err != nil || named == 0 {
			return err // no function of that name: nothing to miss
		}
	}
	calls, err := s.unresolvedCalls()
	if err != nil || len(calls) == 0 {
		return err
	}
	vs.Gaps = append(vs.Gaps, Gap{Position: calls[0].position(),
		Reason: fmt.Sprintf("static approximation finds no function for it, but the call graph did not resolve %s (the first here): through one, a function may satisfy the relations after all, and no site records it",
			plural(len(calls), "dynamic call"))})
	return nil
}

// warning explains why a variable matches nothing.
func (s *selector) warning(vs *Var) string {
	if vs.name != nil {
		var exists int
		s.db.QueryRowContext(s.ctx, "SELECT count(*) FROM functions WHERE match_name = ?", vs.name.Str).Scan(&exists) //nolint:errcheck // a failed count only loses the hint
		if exists == 0 {
			msg := fmt.Sprintf("event %s: no function named %s in the program, so nothing will be recorded for it", vs.Name, vs.name)
			if hint := s.closestName(vs.name.Str); hint != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", hint)
			}
			return msg
		}
		return fmt.Sprintf("event %s: %s exists, but no function named so can satisfy %s, so nothing will be recorded for it", vs.Name, vs.name, atomList(vs.atoms))
	}
	return fmt.Sprintf("event %s: no function can satisfy %s, so nothing will be recorded for it", vs.Name, atomList(vs.atoms))
}

func (s *selector) closestName(name string) string {
	rows, err := s.db.QueryContext(s.ctx, "SELECT DISTINCT match_name FROM functions")
	if err != nil {
		return ""
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			names = append(names, n)
		}
	}
	return spec.Closest(name, names)
}
