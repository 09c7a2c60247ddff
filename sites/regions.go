package sites

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"pmm.dev/pmm/spec"
)

// Region executions and loop iterations (issue 14, seed 004) are
// recorded at the statements static.db's regions table lists (loops
// only, for iterations): a region variable's sites
// are the statements its function name and label select, every one of
// them when they are variables. No control relation approximates a
// region statically (contains spans goroutines), so the selection is the
// same in every mode.

// ownRegions lists the region-execution and loop-iteration variables
// that c introduces.
func ownRegions(types, outer spec.VarTypes) []string {
	var vars []string
	for v, t := range types {
		if _, inherited := outer[v]; spec.IsRegion(t) && !inherited {
			vars = append(vars, v)
		}
	}
	sort.Strings(vars)
	return vars
}

// bodyEvents says where the events of a type of a part of a body are
// listed in static.db: the table, and the columns its arguments after
// the function name compare with (the first is the site's Label, the
// second its Operand).
type bodyEvents struct {
	table   string
	columns []string
	where   string // a condition on the table's rows, if any
	// inFrame, if any, is whether the compiler keeps a row's object in
	// the frame (a map's header: Site.InFrame).
	inFrame string
	what    string // the rows, in messages
	reason  string // why a row's site is chosen, before its label
	// operandWord comes between the label and the operand in reason.
	operandWord string
	// gaps are the rows whose events the answers may miss or count
	// wrongly (those where leaves out but that an event of the type may
	// still happen at, among them), each with the reason the answer
	// gives (pmm_incomplete).
	gaps []bodyGap
}

// bodyGap is a condition on a table's rows (of static.db) and why the
// answers miss the events at them.
type bodyGap struct{ where, reason string }

// allocationGaps are the allocation sites not recorded although the
// program may allocate on the heap there, and those recorded whose
// allocations may not be those of the program without pmm
// (docs/MEMORY.md).
var allocationGaps = []bodyGap{
	{"r.kind = 'concat-assign'", "a string's s += t may allocate on the heap, but the compiler's escape analysis says nothing of it, so pmm cannot tell whether it does: it is not recorded (s = s + t is)"},
	{"r.heap IS NULL AND r.kind = 'interface'", "a value converted to an interface here may allocate on the heap, but the compiler's diagnostics do not tell it apart " +
		"from an inlined callee's conversion at the same call, or from another instantiation of a generic function: it is not recorded"},
	{"r.heap IS NULL AND r.kind = 'variable'", "a variable of a type parameter's type that a closure captures is moved to the heap only in the instantiations that make it over 128 bytes " +
		"(the closure captures it by reference there, by value elsewhere), and the compiler's diagnostics do not say which: it is not recorded"},
	{"r.heap IS NULL AND r.kind NOT IN ('interface', 'variable', 'map-assign')", "the compiler's escape analysis did not decide whether this allocation site is on the heap " +
		"(in a generic function neither the module's packages nor, with pmm instrument -tests, its tests instantiate): it is not recorded"},
	{"r.heap = 0 AND (r.kind IN ('append', 'conversion', 'concat') OR r.kind = 'make-slice' AND r.elements IS NULL)",
		"the compiler's escape analysis keeps this allocation in the frame, but only what fits a buffer of 32 bytes there: a longer string or slice, " +
			"an append that grows past it, a make of a size not constant, the runtime puts on the heap; pmm does not record it"},
	{"r.heap = 0 AND r.heap_inlined = 1", "the compiler keeps this allocation on the stack in its function's own body, where pmm records allocations, " +
		"but on the heap in a copy of the function inlined into a caller (or in some of the copies of a body Go compiles only inlined, a range over a function's or a function literal's): those are not recorded"},
	// Recorded, but of a program that differs from the plain one.
	{"r.heap = 1 AND r.inlinable = 1 AND r.kind NOT IN ('make-chan', 'map-assign')", "the compiler may inline this allocation's function into callers, where copies of it may stay on the stack: " +
		"pmm keeps a declared function from being inlined (//go:noinline), so the instrumented program allocates on the heap at every call, and pmm counts those " +
		"(a function literal it cannot keep so: pmm may count copies on the stack)"},
}

var bodyEventsOf = map[string]bodyEvents{
	spec.TypeRegionExecution: {table: "regions", columns: []string{"label"},
		what: "labeled for, range, switch, select or block statement, nor statement a //pmm:region comment marks,", reason: "the statement labeled "},
	spec.TypeIteration: {table: "regions", columns: []string{"label"}, where: "r.loop = 1",
		what: "labeled for or range loop, nor loop a //pmm:region comment marks,", reason: "the body of the loop labeled "},
	spec.TypeBlocking: {table: "blocking", columns: []string{"kind", "operand"},
		what: "blocking operation", reason: "the blocking operation ", operandWord: "on"},
	// A map kept in the frame (its header, and its first group) may
	// still have its tables on the heap: its make or literal is a site.
	spec.TypeAllocation: {table: "allocations", columns: []string{"kind", "type"},
		where: "(r.heap = 1 OR r.heap = 0 AND r.heap_inlined = 0 AND r.kind IN ('make-map', 'map-literal'))", inFrame: "r.heap = 0",
		what: "allocation site that the compiler puts on the heap", reason: "the allocation ", operandWord: "of", gaps: allocationGaps},
}

// regionVariable selects the sites of variable v, of type typ (a part of
// a body: region-execution, loop-iteration, blocking-operation), from
// its atoms among all.
func (s *selector) regionVariable(v, typ string, all []*spec.Atom) (*Var, error) {
	be := bodyEventsOf[typ]
	kind := spec.Lookup(typ).Sites[0]
	vs := &Var{Name: v, kinds: []spec.SiteKind{kind}}
	var where, described []string
	if be.where != "" {
		where = append(where, be.where)
	}
	for _, a := range all {
		if a.Prim.Name != typ || a.Args[0].Lit != nil || a.Args[0].Var != v {
			continue
		}
		vs.atoms = append(vs.atoms, a)
		if n := a.Args[1].Lit; n != nil {
			where = append(where, "f.match_name = "+sqlLiteral(n))
			described = append(described, "in "+n.String())
			vs.name = n
		}
		for i, col := range be.columns {
			if l := a.Args[2+i].Lit; l != nil {
				where = append(where, "r."+col+" = "+sqlLiteral(l))
				described = append(described, col+" "+l.String())
			}
		}
	}
	if err := s.db.QueryRowContext(s.ctx, "SELECT count(*) FROM "+be.table).Scan(&vs.Candidates); err != nil {
		return nil, fmt.Errorf("reading the static database's %s: %w", be.table, err)
	}
	vs.SQL = "SELECT r.id FROM " + be.table + " r JOIN functions f ON f.id = r.function_id"
	if len(where) > 0 {
		vs.SQL += " WHERE " + strings.Join(where, " AND ")
	}
	operand := "''"
	if len(be.columns) > 1 {
		operand = "r." + be.columns[1]
	}
	inFrame := "0"
	if be.inFrame != "" {
		inFrame = be.inFrame
	}
	rows, err := s.db.QueryContext(s.ctx, "SELECT f.id, f.name, f.in_module, r."+be.columns[0]+", "+operand+", "+inFrame+", r.file, r.line, r.col, r.end_line, r.end_col "+
		"FROM "+be.table+" r JOIN functions f ON f.id = r.function_id WHERE r.id IN ("+vs.SQL+") ORDER BY r.file, r.line, r.col")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", vs.SQL, err)
	}
	defer rows.Close()
	seen := map[int64]bool{} // the functions of vs.Functions
	for rows.Next() {
		var f Function
		site := Site{Kind: kind}
		if err := rows.Scan(&f.ID, &f.Name, &f.InModule, &site.Label, &site.Operand, &site.InFrame, &site.File, &site.Line, &site.Col, &site.EndLine, &site.EndCol); err != nil {
			return nil, err
		}
		site.Function, site.FuncID = f.Name, f.ID
		site.Reason = be.reason + site.Label
		if site.Operand != "" {
			site.Reason += " " + be.operandWord + " " + site.Operand
		}
		vs.addBodySite(site, f, seen)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := s.bodyGaps(vs, be, where); err != nil {
		return nil, err
	}
	if n := vs.Candidates - len(vs.Sites); n > 0 && (len(described) > 0 || be.where != "") {
		vs.Eliminated = append(vs.Eliminated, Elimination{Count: n, Reason: "not " + strings.TrimSuffix(be.what, ",") + " " + strings.Join(described, ", ")})
	}
	return vs, nil
}

// bodyGaps adds to vs the gaps of be among the rows that the conditions
// where (be.where first, when be has one) select, be.where aside.
func (s *selector) bodyGaps(vs *Var, be bodyEvents, where []string) error {
	if be.where != "" {
		where = where[1:]
	}
	for _, g := range be.gaps {
		query := "SELECT r.file, r.line, r.col FROM " + be.table + " r JOIN functions f ON f.id = r.function_id WHERE " +
			strings.Join(append([]string{g.where}, where...), " AND ") + " ORDER BY r.file, r.line, r.col"
		rows, err := s.db.QueryContext(s.ctx, query)
		if err != nil {
			return fmt.Errorf("%s: %w", query, err)
		}
		for rows.Next() {
			var file string
			var line, col int
			if err := rows.Scan(&file, &line, &col); err != nil {
				rows.Close()
				return err
			}
			vs.Gaps = append(vs.Gaps, Gap{Reason: g.reason, Position: fmt.Sprintf("%s:%d:%d", file, line, col)})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// regionWarning explains why a region variable matches no statement.
func (s *selector) regionWarning(vs *Var) string {
	be := bodyEventsOf[vs.atoms[0].Prim.Name]
	msg := fmt.Sprintf("event %s: no %s matches %s, so nothing will be recorded for it", vs.Name, be.what, atomList(vs.atoms))
	if vs.name != nil {
		var labels []string
		rows, err := s.db.QueryContext(s.ctx, "SELECT DISTINCT r."+be.columns[0]+" FROM "+be.table+" r JOIN functions f ON f.id = r.function_id WHERE f.match_name = ? ORDER BY 1", vs.name.Str)
		if err == nil {
			defer rows.Close()
			for rows.Next() {
				var l string
				if rows.Scan(&l) == nil {
					labels = append(labels, l)
				}
			}
		}
		if len(labels) > 0 {
			msg += fmt.Sprintf(" (%s has %s %s)", vs.name, be.columns[0], strings.Join(labels, ", "))
		}
	}
	return msg
}

// goroutineVariable selects the sites of goroutine-execution variable v:
// the go statements that may start a function of the name its atom gives
// (static.db's goroutines view), every one when the name is a variable.
// Where a relation of go statements (spawns a v: its row's Stored.Go)
// relates it to a function-execution variable a of
// vars, only the go statements in the bodies of a's functions can start
// its events: the others are not selected.
func (s *selector) goroutineVariable(v string, all []*spec.Atom, vars []*Var) (*Var, error) {
	vs := &Var{Name: v, kinds: []spec.SiteKind{spec.SiteGo}}
	var where, described, spawners []string
	for _, a := range all {
		switch {
		case a.Prim.Name == spec.TypeGoroutine && a.Args[0].Lit == nil && a.Args[0].Var == v:
			vs.atoms = append(vs.atoms, a)
			if n := a.Args[1].Lit; n != nil {
				where = append(where, "st.match_name = "+sqlLiteral(n))
				described = append(described, "starting "+n.String())
				vs.name = n
			}
		case a.Prim.Stored != nil && a.Prim.Stored.Go && a.Args[1].Lit == nil && a.Args[1].Var == v && a.Args[0].Lit == nil:
			for _, spawner := range vars {
				if spawner.Name != a.Args[0].Var {
					continue
				}
				ids := []string{"0"}
				for _, f := range spawner.Functions {
					ids = append(ids, strconv.FormatInt(f.ID, 10))
				}
				where = append(where, "g.function_id IN ("+strings.Join(ids, ", ")+")")
				spawners = append(spawners, "c.caller_id IN ("+strings.Join(ids, ", ")+")")
				described = append(described, "in the body of a function "+a.Args[0].Var+" may be")
				vs.atoms = append(vs.atoms, a)
			}
		}
	}
	if err := s.db.QueryRowContext(s.ctx, "SELECT count(*) FROM goroutines").Scan(&vs.Candidates); err != nil {
		return nil, fmt.Errorf("reading the static database's goroutines: %w", err)
	}
	from := "goroutines g JOIN functions st ON st.id = g.started_id JOIN functions f ON f.id = g.function_id"
	vs.SQL = "SELECT g.id, g.started_id FROM " + from
	if len(where) > 0 {
		vs.SQL += " WHERE " + strings.Join(where, " AND ")
	}
	// All the functions each statement may start, not only those
	// selected: a statement that may start several cannot tell its
	// goroutines apart without a test at run time (CallTargets).
	rows, err := s.db.QueryContext(s.ctx, "SELECT st.id, st.name, st.in_module, f.id, f.name, g.id, g.file, g.line, g.col, g.end_line, g.end_col, "+
		"(SELECT group_concat(g2.started, char(10)) FROM goroutines g2 WHERE g2.id = g.id) FROM "+from+
		" WHERE (g.id, g.started_id) IN ("+vs.SQL+") ORDER BY g.file, g.line, g.col, st.name")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", vs.SQL, err)
	}
	defer rows.Close()
	seen := map[int64]bool{} // the functions of vs.Functions
	for rows.Next() {
		var f Function
		var targets string
		site := Site{Kind: spec.SiteGo, Via: "go"}
		if err := rows.Scan(&f.ID, &f.Name, &f.InModule, &site.CallerID, &site.Caller, &site.CallID, &site.File, &site.Line, &site.Col, &site.EndLine, &site.EndCol, &targets); err != nil {
			return nil, err
		}
		site.CallTargets = dynamicTargets(targets)
		site.Function, site.FuncID = f.Name, f.ID
		site.Reason = "the go statement in " + site.Caller + " that starts " + f.Name
		vs.addBodySite(site, f, seen)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if n := vs.Candidates - len(vs.Sites); n > 0 && len(described) > 0 {
		vs.Eliminated = append(vs.Eliminated, Elimination{Count: n, Reason: "not a go statement " + strings.Join(described, ", ")})
	}
	return vs, s.unresolvedGoStatements(vs, spawners)
}

// unresolvedGoStatements notes, for goroutine variable vs, the go
// statements (in the bodies conds allow) whose function the call graph
// did not resolve: the goroutines they start may be its events, and no
// site records them.
func (s *selector) unresolvedGoStatements(vs *Var, conds []string) error {
	query := "SELECT c.file, c.line, c.col FROM calls c WHERE c.via = 'go' AND c.caller_id IS NOT NULL " +
		"AND NOT EXISTS (SELECT 1 FROM call_targets t WHERE t.call_id = c.id)"
	for _, c := range conds {
		query += " AND " + c
	}
	rows, err := s.db.QueryContext(s.ctx, query+" ORDER BY c.file, c.line, c.col")
	if err != nil {
		return fmt.Errorf("%s: %w", query, err)
	}
	defer rows.Close()
	var first string
	n := 0
	for rows.Next() {
		var file string
		var line, col int
		if err := rows.Scan(&file, &line, &col); err != nil {
			return err
		}
		if n == 0 {
			first = fmt.Sprintf("%s:%d:%d", file, line, col)
		}
		n++
	}
	if err := rows.Err(); err != nil || n == 0 {
		return err
	}
	vs.Gaps = append(vs.Gaps, Gap{Position: first,
		Reason: fmt.Sprintf("the call graph did not resolve the function that %s starts (the first here): its goroutines may be events, and no site records them",
			plural(n, "go statement"))})
	return nil
}

// goroutineWarning explains why a goroutine variable matches no go
// statement.
func goroutineWarning(vs *Var) string {
	return fmt.Sprintf("event %s: no go statement matches %s, so nothing will be recorded for it", vs.Name, atomList(vs.atoms))
}

// addBodySite adds a site in (or a go statement starting) function f,
// and f once: seen holds the functions added before.
func (vs *Var) addBodySite(site Site, f Function, seen map[int64]bool) {
	vs.Sites = append(vs.Sites, site)
	if !seen[f.ID] {
		seen[f.ID] = true
		vs.Functions = append(vs.Functions, f)
	}
}
