package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"pmm.dev/pmm/internal/funcname"
	"pmm.dev/pmm/spec"
)

// questionSQL is the SELECT of q's view: its relation over its tables, or
// the aggregate of that relation; for an aggregate, partials is the
// SELECT of its partial results (PartialsView).
func questionSQL(q *spec.Question) (view, partials string, err error) {
	cols := headColumns(q.Head)
	body, err := relationSQL(q, &q.Relation, cols, true)
	if err != nil || q.Aggregate == nil {
		return body, "", err
	}
	// The aggregate combines the partial results of two sources: the
	// relation over the recorded tuples, and the cells the run-time kept
	// instead when it decided the relation itself (q__cells, pmm_cells).
	// One of them is empty: which depends on how the program was
	// instrumented, and the view does not.
	agg := q.Aggregate
	group, name := aggregateColumns(q)
	arg := "NULL"
	if agg.Value >= 0 {
		arg = cols[agg.Value]
	}
	keys := strings.Join(group, ", ")
	var cellKeys []string
	for _, g := range group {
		cellKeys = append(cellKeys, "c."+g)
	}
	// The partial results' columns, named apart from the head's.
	var n, sum, lo, hi string
	for i, p := range []*string{&n, &sum, &lo, &hi} {
		*p = uniqueName([]string{"pmm_n", "pmm_sum", "pmm_min", "pmm_max"}[i], inList(cols))
	}
	fromTuples := "SELECT " + keys + ", count(*) AS " + n + ", sum(" + arg + ") AS " + sum + ", min(" + arg + ") AS " + lo + ", max(" + arg + ") AS " + hi + "\n" +
		"FROM (\n" + indent(body, "    ") + "\n)\n" +
		"GROUP BY " + keys
	fromCells := "SELECT " + strings.Join(cellKeys, ", ") + ", p.count, p.sum, p.min, p.max\n" +
		"FROM " + tableName(q.Name, kindCells) + " AS c JOIN " + CellsTable + " AS p ON p.run = c.run AND p.cell = c.cell"
	var result string
	switch agg.Op {
	case "count":
		result = "sum(" + n + ")"
	case "sum":
		result = "sum(" + sum + ")"
	case "min":
		result = "min(" + lo + ")"
	case "max":
		result = "max(" + hi + ")"
	case "average":
		result = "CAST(sum(" + sum + ") AS REAL) / sum(" + n + ")"
	default:
		return "", "", fmt.Errorf("schema: unknown aggregate %s", agg.Op)
	}
	partials = "SELECT " + keys + ", " + n + " AS pmm_n, " + sum + " AS pmm_sum, " + lo + " AS pmm_min, " + hi + " AS pmm_max\n" +
		"FROM (\n" + indent(fromTuples+"\nUNION ALL\n"+fromCells, "    ") + "\n)"
	return "SELECT " + keys + ", " + result + " AS " + name + "\n" +
		"FROM (\n" + indent(fromTuples+"\nUNION ALL\n"+fromCells, "    ") + "\n)\n" +
		"GROUP BY " + keys, partials, nil
}

// aggregateColumns are the columns of the view of aggregate question q:
// run and the group keys (group), then the number (result).
func aggregateColumns(q *spec.Question) (group []string, result string) {
	cols := headColumns(q.Head)
	group = []string{"run"}
	for i, in := range q.Aggregate.Inputs {
		if in {
			group = append(group, cols[i])
		}
	}
	return group, uniqueName(SQLName(q.Aggregate.Op), inList(group))
}

// eventSQL is the SELECT of a derived event's view: the union, over the
// questions that use it, of its relation over each question's tables.
func eventSQL(e *spec.Relation, users []*spec.Question) (string, error) {
	var parts []string
	for _, q := range users {
		part, err := relationSQL(q, e, headColumns(e.Head), false)
		if err != nil {
			return "", err
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "\nUNION\n"), nil
}

// relationSQL is the union of one SELECT DISTINCT per disjunct of r over
// the tables of question q, with the columns run and cols (one per head
// variable). With ownSites, r is q's own relation, whose variables are
// those the instrumentation records, and each event variable ranges over
// the executions recorded for it (pmm_site_vars): one execution recorded
// for two events, at its definition for one and at a call site for the
// other, has an id at each, and each id is an execution of one event.
func relationSQL(q *spec.Question, r *spec.Relation, cols []string, ownSites bool) (string, error) {
	var selects []string
	for _, c := range r.Disjuncts {
		t := &translator{question: q.Name, aliases: map[string]bool{}, ownSites: ownSites, uses: map[string]int{},
			head: map[string]bool{}, sites: map[string]*siteUse{}, rows: map[string]rowKey{}}
		for _, v := range r.Head {
			t.uses[v]++
			t.head[v] = true
		}
		countUses(c, t.uses)
		types, _ := c.Types(nil)
		s := t.newScope(nil, types)
		s.fill(c)
		if t.err == nil && s.run == "" {
			t.fail("%s reads no stored relation, so it has no runs", r.Name)
		}
		var ids []string // the ids the head determines
		list := []string{s.run + " AS run"}
		for i, v := range r.Head {
			b, ok := s.lookup(v)
			if !ok {
				t.fail("%s: head variable %s is not bound", r.Name, v)
			}
			if b.kind != valueVar {
				ids = append(ids, b.expr)
			}
			list = append(list, b.value()+" AS "+cols[i])
		}
		if t.err != nil {
			return "", fmt.Errorf("schema: %s over the tables of %s: %w", r.Name, q.Name, t.err)
		}
		// A disjunct of several is one part of a UNION, which makes the
		// rows distinct whatever each part does.
		if len(r.Disjuncts) > 1 || !s.distinctRows(ids) {
			list[0] = "DISTINCT " + list[0]
		}
		selects = append(selects, s.render(strings.Join(list, ", ")))
	}
	return strings.Join(selects, "\nUNION\n"), nil
}

// distinctRows reports whether the rows of the SELECT of s are distinct
// without DISTINCT, adding to its conditions what makes them so; ids are
// the ids of the executions the head determines (an execution's, a
// point's). They are when every row the SELECT joins is determined by
// the head: a row of executions by its id, if the head determines the
// id and its site is read only where the condition below can follow it
// (its scope's restrictions of the site, the columns of its pmm_sites
// row that head variables read); a row of a keyed stored relation (one
// row per value of its key) by its ids and its value, if the head
// determines them (or the value is a literal); a row of pmm_sites by
// its site. An execution recorded at a call site and at its definition
// has one id and a row at each: of the rows of one id that a variable
// ranges over, the view keeps the first (by site) of those whose
// function and label, all that it reads of them, are equal, unless the
// variable's sites are all of one kind (oneRowPerID).
func (s *scope) distinctRows(ids []string) bool {
	if !s.t.ownSites {
		return false
	}
	var guards []string
	for _, f := range s.from {
		if f.left && f.table == SitesTable {
			continue
		}
		if u := s.t.sites[f.alias]; u != nil {
			if u.other || !slices.Contains(ids, f.alias+".id") {
				return false
			}
			guards = append(guards, s.oneRowPerID(f, u))
			continue
		}
		k, ok := s.t.rows[f.alias]
		if !ok || !k.value {
			return false
		}
		for _, id := range k.ids {
			if !slices.Contains(ids, id) {
				return false
			}
		}
	}
	s.where = append(s.where, guards...)
	return true
}

// oneRowPerID is the condition that keeps one of the rows of one id in
// f, the rows of executions of variable f.owner whose site is read as u
// says: those differ only by their sites, so the first of those that
// pass the variable's restrictions and name the same function and label
// (the columns u reads) stands for the others. Only a call site that
// publishes an id and the definition that adopts it (pmmrt.Adopt)
// record one execution under one id, so when the variable's sites are
// all of one kind (a site missing from pmm_sites a kind of its own)
// each of its ids has one row, and the test, a constant, costs nothing
// per row.
func (s *scope) oneRowPerID(f source, u *siteUse) string {
	x := f.alias
	dup := s.t.alias(f.owner + "_dup")
	conds := []string{dup + ".run = " + x + ".run", dup + ".id = " + x + ".id", dup + ".site < " + x + ".site"}
	for _, q := range u.restrict {
		conds = append(conds, siteIn(dup+".site", q))
	}
	for _, col := range u.columns {
		conds = append(conds, "(SELECT "+col+" FROM "+SitesTable+" WHERE site = "+dup+".site) IS (SELECT "+col+" FROM "+SitesTable+" WHERE site = "+x+".site)")
	}
	oneKind := "(SELECT count(DISTINCT coalesce(" + SitesTable + ".kind, " + SiteVarsTable + ".site)) FROM " + SiteVarsTable +
		" LEFT JOIN " + SitesTable + " ON " + SitesTable + ".site = " + SiteVarsTable + ".site" +
		" WHERE question = " + quote(s.t.question) + " AND var = " + quote(f.owner) + ") <= 1"
	return "(" + oneKind + "\n  OR NOT EXISTS (\n    SELECT 1 FROM " + f.table + " AS " + dup + "\n    WHERE " + strings.Join(conds, "\n      AND ") + "\n  ))"
}

// varSites is the query of the sites that record variable x of the
// question.
func (t *translator) varSites(x string) string {
	return "SELECT site FROM " + SiteVarsTable + " WHERE question = " + quote(t.question) + " AND var = " + quote(x)
}

// countUses adds to uses the occurrences of each variable in the atoms
// of c and of its negated parts.
func countUses(c *spec.Conj, uses map[string]int) {
	for _, a := range c.Atoms {
		for _, t := range a.Args {
			if t.Lit == nil {
				uses[t.Var]++
			}
		}
	}
	for _, n := range c.Not {
		countUses(n, uses)
	}
}

// headColumns names the columns of a relation's head variables, after the
// run column.
func headColumns(head []string) []string {
	taken := []string{"run"}
	var cols []string
	for _, v := range head {
		c := uniqueName(SQLName(v), inList(taken))
		taken = append(taken, c)
		cols = append(cols, c)
	}
	return cols
}

// uniqueName returns name, or name with a numeric suffix, that taken
// does not hold.
func uniqueName(name string, taken func(string) bool) string {
	unique := name
	for k := 2; taken(unique); k++ {
		unique = name + "_" + strconv.Itoa(k)
	}
	return unique
}

func inList(list []string) func(string) bool {
	return func(s string) bool { return slices.Contains(list, s) }
}

// translator builds one SELECT over the tables of one question.
type translator struct {
	question string
	ownSites bool            // executions only from the sites that record each variable
	aliases  map[string]bool // the aliases of the statement, subqueries included
	uses     map[string]int  // the occurrences of each variable, head included
	head     map[string]bool // the head's variables
	// sites says, by the alias of each row of executions, how the
	// statement reads its site (distinctRows).
	sites map[string]*siteUse
	// rows says, by alias, what determines each row of a keyed stored
	// relation that the statement joins (distinctRows).
	rows map[string]rowKey
	err  error // the first thing that could not be translated
}

// siteUse is how a statement reads the site of a row of executions: the
// queries of the sites it is restricted to in its own scope, the columns
// of its pmm_sites row that head variables read, and whether anything
// else reads it (another scope, a variable not in the head).
type siteUse struct {
	restrict []string
	columns  []string
	other    bool
}

// rowKey is what determines a row of a keyed stored relation: the ids
// (SQL expressions) it is joined on, and whether its value is a head
// variable's or a literal (or it has none).
type rowKey struct {
	ids   []string
	value bool
}

func (t *translator) fail(format string, args ...any) {
	if t.err == nil {
		t.err = fmt.Errorf(format, args...)
	}
}

// alias returns a fresh alias based on name.
func (t *translator) alias(name string) string {
	a := uniqueName(SQLName(name), func(a string) bool { return t.aliases[a] })
	t.aliases[a] = true
	return a
}

// bindingKind says what a variable holds.
type bindingKind int

const (
	valueVar bindingKind = iota
	execVar              // a function execution
	pointVar             // the begin or end point of an execution
)

// binding is how a variable of a conjunction reads in SQL.
type binding struct {
	kind bindingKind
	name string // the variable, to name aliases after
	// expr is a value's expression, an execution's id, or the id of the
	// execution a point belongs to.
	expr  string
	row   string // an execution's alias of the question's executions
	site  string // an execution's site column
	point string // a point: "0" for the begin, "1" for the end
	// instant says the execution is an event at one point (an
	// allocation): its id is its begin and its end.
	instant bool
}

// value is the variable's column value: an execution is its id; a point
// is 2·id for its execution's begin and 2·id+1 for its end, so points
// compare by equality and the value says which point it is.
func (b binding) value() string {
	if b.kind == pointVar {
		return "(" + b.expr + " * 2 + " + b.point + ")"
	}
	return b.expr
}

// scope is one SELECT: the conjunction's own FROM items and conditions,
// inside the SELECTs of the conjunctions that enclose it (a negated
// conjunction is a correlated NOT EXISTS subquery).
type scope struct {
	t      *translator
	parent *scope
	types  spec.VarTypes
	vars   map[string]binding
	from   []source
	where  []string
	run    string            // the run every FROM item joins on
	attrs  map[string]string // the alias of each attribute row read, by table and key
	// nested are the pairs (outer, inner) of execution variables that a
	// contains or calls* atom nests, and drivers the alias of each inner
	// execution's row that ranges over the outer's interval: render puts
	// the outer's rows first (see render).
	nested  [][2]string
	drivers map[string]bool
}

// source is a FROM item joined on its key conditions.
type source struct {
	table, alias string
	on           []string
	owner        string // the execution variable whose row it is, if any
	left         bool   // a LEFT JOIN: the row may be missing, looked up last
	optional     bool   // a LEFT JOIN in its place: the row may be missing
}

func (t *translator) newScope(parent *scope, types spec.VarTypes) *scope {
	s := &scope{t: t, parent: parent, types: types, vars: map[string]binding{}, attrs: map[string]string{}, drivers: map[string]bool{}}
	if parent != nil {
		s.run = parent.run
	}
	return s
}

func (s *scope) lookup(v string) (binding, bool) {
	for sc := s; sc != nil; sc = sc.parent {
		if b, ok := sc.vars[v]; ok {
			return b, true
		}
	}
	return binding{}, false
}

// join adds the table of kind to the FROM items, joined on the run and on
// keys (column, expression); it returns the alias. owner is the execution
// variable whose row it is, or "".
func (s *scope) join(kind, name, owner string, keys [][2]string) string {
	alias := s.t.alias(name)
	var on []string
	if s.run == "" {
		s.run = alias + ".run"
	} else {
		on = append(on, alias+".run = "+s.run)
	}
	for _, k := range keys {
		on = append(on, alias+"."+k[0]+" = "+k[1])
	}
	s.from = append(s.from, source{table: tableName(s.t.question, kind), alias: alias, on: on, owner: owner})
	return alias
}

// attr returns the alias of the row of a functional stored relation (an
// attribute, end or goroutine) with the given key, joining it in unless
// this scope or an enclosing one already reads it.
func (s *scope) attr(kind, name string, keys [][2]string) string {
	return s.row(kind, name, keys, false)
}

// row is attr, and with optional a row that may be missing: a LEFT
// JOIN of its own, kept in its place among the FROM items (before the
// rows an interval reads by it), so that the atoms that need the row
// still require it.
func (s *scope) row(kind, name string, keys [][2]string, optional bool) string {
	key := kind
	for _, k := range keys {
		key += "|" + k[0] + "=" + k[1]
	}
	if optional {
		key += "|optional"
	}
	for sc := s; sc != nil; sc = sc.parent {
		if a, ok := sc.attrs[key]; ok {
			return a
		}
	}
	a := s.join(kind, name+"_"+kind, name, keys)
	s.from[len(s.from)-1].optional = optional
	s.attrs[key] = a
	if keyed(kind) {
		s.t.rows[a] = rowKey{ids: []string{keys[0][1]}}
	}
	return a
}

// fill translates conjunction c into s: event declarations first, so
// that every event variable is bound before it is used, then attributes
// and control relations, then comparisons, then negations.
func (s *scope) fill(c *spec.Conj) {
	for _, a := range c.Atoms {
		switch {
		case a.Pred() == spec.TypeFunctionExecution:
			s.declareExecution(a)
		case spec.IsRegion(a.Pred()):
			s.declareRegion(a)
		}
	}
	for _, a := range c.Atoms {
		if a.Prim.PointOf() {
			s.declarePoint(c, a)
		}
	}
	var comparisons []*spec.Atom
	for _, a := range c.Atoms {
		switch a.Prim.Kind {
		case spec.Attribute:
			s.attribute(a)
		case spec.ControlRelation:
			s.control(a)
		case spec.ValueRelation:
			comparisons = append(comparisons, a)
		case spec.AggregateRelation:
			s.aggregate(a)
		}
	}
	s.compare(comparisons)
	for _, n := range c.Not {
		types, _ := n.Types(s.types)
		inner := s.t.newScope(s, types)
		inner.fill(n)
		s.where = append(s.where, "NOT EXISTS (\n"+indent(inner.render("1"), "    ")+"\n)")
	}
}

// declareExecution translates (function-execution x name).
func (s *scope) declareExecution(a *spec.Atom) {
	x := a.Args[0].Var
	b, ok := s.lookup(x)
	if !ok {
		b = s.newExecution(x)
	}
	name := a.Args[1]
	if name.Lit != nil {
		// spec gave the name its key: compare it with the functions' keys.
		s.restrictSite(b, "SELECT site FROM "+SitesTable+" WHERE "+funcname.SQLKey("function")+" = "+literal(name.Lit))
		return
	}
	s.bindOrEqual(name, s.siteColumn(b, "function", name.Var))
}

// declareRegion translates (region-execution r name label),
// (loop-iteration r name label), (blocking-operation r name kind
// operand) and (goroutine-execution r name): r is a row of the
// question's region executions, iterations, blocking operations or
// goroutines, whose site is one of that function (for a goroutine, the
// function its go statement starts) with that label (or kind) and
// operand (pmm_sites).
func (s *scope) declareRegion(a *spec.Atom) {
	r := a.Args[0].Var
	b, ok := s.lookup(r)
	if !ok {
		tables, _ := StoredRelations(a.Prim)
		b = s.newEvent(tables[0], r)
	}
	// The columns of pmm_sites its arguments are, after the event.
	columns := []string{"function", "label", "operand"}[:len(a.Args)-1]
	var conds []string
	for i, col := range columns {
		if t := a.Args[1+i]; t.Lit != nil {
			if col == "function" {
				col = funcname.SQLKey(col)
			}
			conds = append(conds, col+" = "+literal(t.Lit))
		}
	}
	if len(conds) > 0 {
		s.restrictSite(b, "SELECT site FROM "+SitesTable+" WHERE "+strings.Join(conds, " AND "))
	}
	for i, col := range columns {
		if t := a.Args[1+i]; t.Lit == nil {
			s.bindOrEqual(t, s.siteColumn(b, col, t.Var))
		}
	}
}

// siteColumn is column col of the site of execution b in pmm_sites: its
// function's name (pprof's), or a region's label, read by variable v.
// Where b's row is read in this scope and the value is read (v occurs
// more than once), its site's row of pmm_sites is joined to it (LEFT
// JOIN: a site without a row names no function, NULL, as the scalar
// subquery of other scopes does); a correlated scalar subquery per row
// cost SQLite about a fifth more CPU.
func (s *scope) siteColumn(b binding, col, v string) string {
	used := s.t.uses[v]
	own := s.owns(b)
	if used > 1 {
		if u := s.t.sites[b.row]; u == nil || !own || s.parent != nil || !s.t.head[v] {
			s.t.readSite(b)
		} else if !slices.Contains(u.columns, col) {
			u.columns = append(u.columns, col)
		}
	}
	if !own || used <= 1 {
		return "(SELECT " + col + " FROM " + SitesTable + " WHERE site = " + b.site + ")"
	}
	key := SitesTable + "|site=" + b.site
	a, ok := s.attrs[key]
	if !ok {
		a = s.t.alias(b.name + "_site")
		s.from = append(s.from, source{table: SitesTable, alias: a, on: []string{a + ".site = " + b.site}, owner: b.name, left: true})
		s.attrs[key] = a
	}
	return a + "." + col
}

// owns reports whether the row of execution b is one of this scope's.
func (s *scope) owns(b binding) bool {
	return slices.ContainsFunc(s.from, func(f source) bool { return f.alias == b.row })
}

// restrictSite restricts the site of execution b to the sites query
// selects.
func (s *scope) restrictSite(b binding, query string) {
	s.where = append(s.where, siteIn(b.site, query))
	if u := s.t.sites[b.row]; u != nil && s.owns(b) {
		u.restrict = append(u.restrict, query)
	} else {
		s.t.readSite(b)
	}
}

// readSite notes that the statement reads the site of execution b other
// than by restricting it in b's scope or naming it in the head.
func (t *translator) readSite(b binding) {
	if u := t.sites[b.row]; u != nil {
		u.other = true
	}
}

// newExecution binds x to a fresh row of the question's function
// executions.
func (s *scope) newExecution(x string) binding { return s.newEvent(kindExec, x) }

// newEvent binds x to a fresh row of the question's stored relation of
// executions kind (of functions or of regions).
func (s *scope) newEvent(kind, x string) binding {
	alias := s.join(kind, x, x, nil)
	b := binding{kind: execVar, name: x, expr: alias + ".id", row: alias, site: alias + ".site", instant: kind == kindAllocation}
	s.t.sites[alias] = &siteUse{}
	if s.t.ownSites {
		s.restrictSite(b, s.t.varSites(x))
	}
	s.vars[x] = b
	return b
}

// siteIn restricts the site column site to the sites query selects. The
// unary + keeps SQLite from looking executions up by site: with the
// index on (run, id, site) it would seek once per site of the list for
// each id instead of once.
func siteIn(site, query string) string {
	return "+" + site + " IN (" + query + ")"
}

// EndAlone reports whether (end p x), atom a of conjunction c, is the
// only atom of c that reads its point p but comparisons: no attribute
// of p nor control relation with p, which read p's rows recorded at
// x's end, so that only x's end row says that x ended. An interval
// that never ended has no end point (docs/LANGUAGE.md, "Events and
// points"), so (exists (q) (end q x)) holds only of one that ended.
func EndAlone(c *spec.Conj, a *spec.Atom) bool {
	if !a.Prim.PointOf() || a.Prim.Denotes != spec.Finish || a.Args[0].Lit != nil {
		return false
	}
	p := a.Args[0].Var
	for _, b := range c.Atoms {
		if b.Prim.Kind != spec.Attribute && b.Prim.Kind != spec.ControlRelation {
			continue
		}
		for _, t := range b.Args {
			if t.Lit == nil && t.Var == p {
				return false
			}
		}
	}
	return true
}

// anyEndAlone reports whether c, or a negation in it, has an atom
// EndAlone says the end rows decide.
func anyEndAlone(c *spec.Conj) bool {
	for _, a := range c.Atoms {
		if EndAlone(c, a) {
			return true
		}
	}
	for _, n := range c.Not {
		if anyEndAlone(n) {
			return true
		}
	}
	return false
}

// declarePoint translates (begin p x) and (end p x), an atom of c.
func (s *scope) declarePoint(c *spec.Conj, a *spec.Atom) {
	x := s.event(a.Args[1], a.Prim.Args[1])
	p := binding{kind: pointVar, name: a.Args[0].Var, expr: x.expr, site: x.site, point: "0"}
	if a.Prim.Denotes == spec.Finish {
		p.point = "1"
		if x.kind != pointVar && !x.instant && EndAlone(c, a) {
			// Nothing else reads p: require x's end row.
			s.attr(kindEnd, p.name, [][2]string{{"id", x.expr}})
		}
	}
	if old, ok := s.lookup(p.name); ok {
		s.where = append(s.where, old.value()+" = "+p.value())
		return
	}
	s.vars[p.name] = p
}

// event returns the binding of the event variable at an argument of type
// arg. A variable nothing declares is a head variable of a derived event,
// typed where the event is used; it ranges over the question's executions.
func (s *scope) event(t spec.Term, arg spec.Arg) binding {
	if b, ok := s.lookup(t.Var); ok {
		return b
	}
	if !acceptsExecutions(arg) {
		s.t.fail("the point %s is declared only where the event is used: its execution is not known here", t.Var)
		return binding{kind: pointVar, name: t.Var, expr: "NULL", point: "0"}
	}
	return s.newExecution(t.Var)
}

func acceptsExecutions(a spec.Arg) bool {
	for _, e := range a.Events {
		if e == spec.TypeFunctionExecution {
			return true
		}
	}
	return false
}

// attribute translates an attribute atom: the row of the attribute's table
// for the event (and point, position or expression), and its value.
func (s *scope) attribute(a *spec.Atom) {
	p := a.Prim
	ev := s.event(a.Args[0], p.Args[0])
	keys := [][2]string{{"id", ev.expr}}
	if p.OfPoints() {
		point := "0" // an execution's attributes are read at its begin point
		if ev.kind == pointVar {
			point = ev.point
		}
		keys = append(keys, [2]string{"point", point})
	}
	last := len(a.Args) - 1
	for i := 1; i < last; i++ {
		if a.Args[i].Lit == nil {
			s.t.fail("%s: argument %d must be a literal", a, i+1)
			continue
		}
		keys = append(keys, [2]string{keyColumn(p.Args[i]).Name, literal(a.Args[i].Lit)})
	}
	alias := s.attr(p.Name, ev.name, keys)
	if k, ok := s.t.rows[alias]; ok && s.parent == nil && (a.Args[last].Lit != nil || s.t.head[a.Args[last].Var]) {
		k.value = true // the value is the head's, or a literal
		s.t.rows[alias] = k
	}
	s.bindOrEqual(a.Args[last], alias+"."+valueColumn(p.Name))
}

// aggregate translates an atom of an aggregate used as a relation: a row
// of the aggregate's view in the same run, each argument bound to its
// column or compared with it. The view is the aggregate's answer over
// the whole run: its condition is applied here, by SQL.
func (s *scope) aggregate(a *spec.Atom) {
	group, result := aggregateColumns(a.Prim.Aggregated)
	cols := append(group[1:], result)
	alias := s.t.alias(a.Pred())
	if s.run == "" {
		s.run = alias + ".run"
		s.from = append(s.from, source{table: SQLName(a.Pred()), alias: alias})
	} else {
		s.from = append(s.from, source{table: SQLName(a.Pred()), alias: alias, on: []string{alias + ".run = " + s.run}})
	}
	for i, t := range a.Args {
		s.bindOrEqual(t, alias+"."+cols[i])
	}
}

// bindOrEqual binds the variable t to expr where t is not bound yet, and
// otherwise requires t to equal expr.
func (s *scope) bindOrEqual(t spec.Term, expr string) {
	if t.Lit == nil {
		if _, ok := s.lookup(t.Var); !ok {
			s.vars[t.Var] = binding{kind: valueVar, name: t.Var, expr: expr}
			return
		}
	}
	rhs, _ := s.term(t)
	s.where = append(s.where, comparison(spec.Equality(), expr, rhs))
}

// control translates a control relation: calls and spawns are stored
// pairs; the others, derived, compare sequence numbers as the row's
// temporal meaning orders its points, and goroutines when the row says
// its events share one (Stored.Derived names the goroutine relation).
func (s *scope) control(a *spec.Atom) {
	x := s.event(a.Args[0], a.Prim.Args[0])
	y := s.event(a.Args[1], a.Prim.Args[1])
	if pair, ok := storedPair(a.Pred()); ok {
		alias := s.join(a.Pred(), x.name+"_"+a.Pred()+"_"+y.name, "", [][2]string{{pair[0], x.expr}, {pair[1], y.expr}})
		if keyed(a.Pred()) {
			s.t.rows[alias] = rowKey{ids: []string{x.expr, y.expr}, value: true}
		}
		return
	}
	if a.Prim.Stored == nil || len(a.Prim.Stored.Derived) == 0 {
		s.t.fail("no translation for the control relation %s", a.Pred())
		return
	}
	events := []binding{x, y}
	oneGoroutine := slices.Contains(a.Prim.Stored.Derived, kindGoroutine)
	if a.Prim.Nests() {
		s.contains(x, y, oneGoroutine)
	} else {
		for _, e := range a.Prim.Temporal {
			s.where = append(s.where, s.seq(events[e.From.Arg], e.From.End == spec.Finish)+" < "+s.seq(events[e.To.Arg], e.To.End == spec.Finish))
		}
	}
	if oneGoroutine {
		// On one goroutine executions nest like a stack, so nesting in
		// time there is exactly calling, directly or not (calls*).
		s.where = append(s.where, s.goroutine(x)+" = "+s.goroutine(y))
	}
	if a.Prim.Nests() && y.kind == execVar {
		driver := y.row
		if oneGoroutine {
			// The inner's executions are found on the outer's goroutine,
			// in the outer's interval: a range of the copy of the
			// goroutine table keyed by (run, g, id).
			driver = s.attr(kindGoroutine, y.name, [][2]string{{"id", y.expr}})
			s.readFrom(driver, goroutineCopy(s.t.question))
		}
		s.nest(x, y, driver)
	}
}

// readFrom makes the row of alias be read from table, which holds the
// same rows as the alias's (a copy of it in another order).
func (s *scope) readFrom(alias, table string) {
	for sc := s; sc != nil; sc = sc.parent {
		for i := range sc.from {
			if sc.from[i].alias == alias {
				sc.from[i].table = table
			}
		}
	}
}

// contains requires inner to nest in outer: it began after outer began,
// and ended before outer ended or outer never ended, which contains
// what began after it and ended (docs/LANGUAGE.md, "Control
// relations"). onStack: the two are on one goroutine, where executions
// nest like a stack, so an inner that began in outer's interval is in
// it, ended or not (calls*: known at the inner's begin).
func (s *scope) contains(outer, inner binding, onStack bool) {
	end := s.endOrLast(outer)
	s.where = append(s.where, s.seq(outer, false)+" < "+s.seq(inner, false))
	if inner.kind == execVar {
		// Implied (an execution begins before it ends), and what bounds
		// the range of the inner's rows to read by their ids.
		s.where = append(s.where, s.seq(inner, false)+" < "+end)
	}
	if onStack {
		return
	}
	if ended := s.seq(inner, true) + " < " + end; !slices.Contains(s.where, ended) {
		s.where = append(s.where, ended)
	}
}

// endOrLast is the sequence number of the end of interval b, or the
// largest there is if b never ended.
func (s *scope) endOrLast(b binding) string {
	if b.kind == pointVar || b.instant {
		return s.seq(b, true)
	}
	a := s.row(kindEnd, b.name, [][2]string{{"id", b.expr}}, true)
	if i := slices.IndexFunc(s.from, func(f source) bool { return f.alias == a }); i >= 0 && b.row != "" && strings.HasPrefix(s.from[i].on[0], a+".run = ") {
		// A LEFT JOIN's ON may read only the tables before it: the run
		// of b's own row rather than the scope's, whose row may come
		// after it.
		s.from[i].on[0] = a + ".run = " + b.row + ".run"
	}
	return "COALESCE(" + a + ".seq, 9223372036854775807)"
}

// nest records that inner is nested in outer, its rows read from the
// row of alias driver on: render orders the FROM items by it.
func (s *scope) nest(outer, inner binding, driver string) {
	s.nested = append(s.nested, [2]string{outer.name, inner.name})
	s.drivers[driver] = true
}

// seq is the sequence number of the begin (or end) of event b: an
// execution begins at its id and ends at its end row's seq; a point and
// an allocation are their own begin and end.
func (s *scope) seq(b binding, end bool) string {
	if b.kind == pointVar {
		end = b.point == "1"
	}
	if !end || b.instant {
		return b.expr
	}
	return s.attr(kindEnd, b.name, [][2]string{{"id", b.expr}}) + ".seq"
}

// goroutine is the goroutine of event b (of its execution, for a point).
func (s *scope) goroutine(b binding) string {
	return s.attr(kindGoroutine, b.name, [][2]string{{"id", b.expr}}) + "." + valueColumn(kindGoroutine)
}

// compare translates comparisons. (= v e) binds v when v is not bound
// otherwise, so they are taken in rounds until none binds a variable.
func (s *scope) compare(pending []*spec.Atom) {
	for progress := true; progress && len(pending) > 0; {
		progress = false
		var rest []*spec.Atom
		for _, a := range pending {
			l, lok := s.term(a.Args[0])
			r, rok := s.term(a.Args[1])
			switch {
			case lok && rok:
				s.where = append(s.where, comparison(a.Prim, l, r))
			case a.Prim.Compares.Binds && lok:
				s.bindOrEqual(a.Args[1], l)
			case a.Prim.Compares.Binds && rok:
				s.bindOrEqual(a.Args[0], r)
			default:
				rest = append(rest, a)
				continue
			}
			progress = true
		}
		pending = rest
	}
	for _, a := range pending {
		s.t.fail("%s: no atom binds its variables", a)
	}
}

// term is the SQL of a literal or a bound variable; ok is false for a
// variable not bound yet.
func (s *scope) term(t spec.Term) (sql string, ok bool) {
	if t.Lit != nil {
		return literal(t.Lit), true
	}
	b, ok := s.lookup(t.Var)
	return b.value(), ok
}

// comparison is l op r in SQL, op a value relation; nil compares with
// IS.
func comparison(op *spec.Primitive, l, r string) string {
	if c := op.Compares; (l == "NULL" || r == "NULL") && c.NullSQL != "" {
		return l + " " + c.NullSQL + " " + r
	}
	return l + " " + op.Compares.SQL + " " + r
}

// literal is the SQL of a PMM literal.
func literal(l *spec.Literal) string {
	switch l.Kind {
	case spec.LitString:
		return quote(l.Str)
	case spec.LitInt:
		return strconv.FormatInt(l.Int, 10)
	case spec.LitFloat:
		return l.String()
	case spec.LitBool:
		if l.Bool {
			return "1"
		}
		return "0"
	case spec.LitList:
		// Lists are stored as their canonical text, and compare so.
		return quote(l.ListText())
	}
	return "NULL"
}

// quote is the SQL string literal of s.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// render is the SELECT of s with the select list list: the first FROM
// item's key conditions join the WHERE clause.
func (s *scope) render(list string) string {
	lines := []string{"SELECT " + list}
	var where []string
	from, cross := s.order()
	for i, f := range from {
		join := "JOIN "
		switch {
		case f.left || f.optional:
			join = "LEFT JOIN " // SQLite keeps it after the rows its ON reads
		case i >= cross:
			join = "CROSS JOIN "
		}
		switch {
		case i == 0:
			lines = append(lines, "FROM "+f.table+" AS "+f.alias)
			where = append(where, f.on...)
		case len(f.on) == 0:
			lines = append(lines, join+f.table+" AS "+f.alias)
		default:
			lines = append(lines, join+f.table+" AS "+f.alias+" ON "+strings.Join(f.on, " AND "))
		}
	}
	where = append(where, s.where...)
	for i, w := range where {
		kw := "  AND "
		if i == 0 {
			kw = "WHERE "
		}
		lines = append(lines, kw+strings.ReplaceAll(w, "\n", "\n  "))
	}
	return strings.Join(lines, "\n")
}

// order returns the FROM items in the order to join them, and the index
// of the first one from which that order is fixed (CROSS JOIN). Without
// nested executions it is the order of the translation, and SQLite's
// planner chooses. With them (contains, calls*), without statistics on
// how short an interval is, the planner reads the inner's rows by one
// bound of the interval (the outer's begin), all the executions after
// it: quadratic. So the rows of each outer execution come first, then
// the inner's driver (its rows in the outer's interval, by an index),
// then its other rows, the order fixed from the first driver on; stored
// pairs come last, then the names of functions (lookupsLast).
func (s *scope) order() ([]source, int) {
	if len(s.nested) == 0 {
		return lookupsLast(s.from), len(s.from)
	}
	// rank: the depth of each variable in the nesting (cycles end after
	// as many rounds as there are items).
	rank := map[string]int{}
	for range s.from {
		for _, n := range s.nested {
			if rank[n[1]] <= rank[n[0]] {
				rank[n[1]] = rank[n[0]] + 1
			}
		}
	}
	last := 0
	for _, r := range rank {
		last = max(last, r)
	}
	key := func(f source) (int, int) {
		driver := 1
		if s.drivers[f.alias] {
			driver = 0
		}
		if f.owner == "" {
			return last + 1, driver
		}
		return rank[f.owner], driver
	}
	from := slices.Clone(s.from)
	slices.SortStableFunc(from, func(a, b source) int {
		ra, da := key(a)
		rb, db := key(b)
		if ra != rb {
			return ra - rb
		}
		return da - db
	})
	from = lookupsLast(from)
	for i, f := range from {
		if s.drivers[f.alias] {
			return from, i
		}
	}
	return from, len(from)
}

// lookupsLast moves the LEFT JOINs (names of functions, looked up by
// their key) after the other FROM items, so that they are read only for
// the rows the joins keep.
func lookupsLast(from []source) []source {
	out := make([]source, 0, len(from))
	for _, left := range []bool{false, true} {
		for _, f := range from {
			if f.left == left {
				out = append(out, f)
			}
		}
	}
	return out
}

// indent prefixes every line of text with prefix.
func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}
