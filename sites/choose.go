package sites

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"pmm.dev/pmm/spec"
)

// callSite is a row of the calls table that targets a function.
type callSite struct {
	id, callerID    int64
	caller          string
	file            string
	line, col       int
	endLine, endCol int
	via             string
	targets         string // the call graph's targets of the call, newline-separated
}

// chooseSites decides where the executions of each function of vs are
// recorded (seed 4.2.4, last paragraph): at the definition when every call
// site of the function is selected and its body is in the module; else at
// the selected call sites. An event that is the callee of a lexical
// relation such as calls is recorded at the call sites in its caller's
// body, where the caller's data is in local variables (seed Table 4.1); an
// event that is the caller of one is recorded at its definition, where
// its data is captured for those call sites.
func (s *selector) chooseSites(vs *Var, atoms []*spec.Atom, types spec.VarTypes) error {
	allowed, err := s.allowedCallers(vs, atoms, types)
	if err != nil {
		return err
	}
	if !slices.Contains(vs.kinds, spec.SiteCall) {
		// Call sites are where every event can be recorded: the
		// definition alone misses the functions outside the module.
		return fmt.Errorf("no kind of site that records %s knows all that the question asks of it", vs.Name)
	}
	caller := vs.caller
	dropped, synthetic, unrecorded, unknownCallers := 0, 0, 0, 0
	var external []string // functions outside the module recorded at call sites
	for _, f := range vs.Functions {
		// Only an event can be missed: a function static approximation
		// keeps, not recorded as a callee (all of whose calls are in
		// the module).
		impossible := vs.possible != nil && !vs.possible[f.ID]
		candidate := !vs.Lexical && !impossible
		all, err := s.callSites(f.ID, "callgraph_edges")
		if err != nil {
			return err
		}
		var selected []callSite
		for _, c := range all {
			if allowedCall(c, allowed) {
				selected = append(selected, c)
			}
		}
		dropped += len(all) - len(selected)
		// Code outside the module may call f back from a call site the
		// relations allow; that call has no site in the module, so only
		// the definition sees it.
		calledBack, err := s.calledBack(f.ID, allowed)
		if err != nil {
			return err
		}
		atDefinition := slices.Contains(vs.kinds, spec.SiteDefinition)
		if caller && f.InModule && !atDefinition {
			return fmt.Errorf("%s is the caller in a relation recorded at call sites (calls, spawns), so its definition records it, "+
				"which does not know all that is asked of it: %s", vs.Name, kindsNote(vs))
		}
		if calledBack && !atDefinition {
			unknownCallers++
		}
		useDefinition := f.InModule && !vs.Lexical && atDefinition && (len(selected) == len(all) || calledBack)
		if useDefinition || caller && f.InModule {
			site, err := s.definition(f)
			if err != nil {
				return err
			}
			if site.File == "" {
				// A function the compiler synthesizes, such as a
				// package's initializer pkg.init: no source to put a
				// definition site in, and no call site in the module.
				synthetic++
				if candidate {
					unrecorded++
				}
				continue
			}
			site.Impossible = impossible
			site.Reason = "every call site is selected and the body is in the module"
			if len(selected) < len(all) {
				site.Reason = "code outside the module may call it back, and the body is in the module"
			}
			if !useDefinition {
				site.Reason = "its id is taken at entry, for the call sites in its body; it adopts the id of the call sites that record it as a callee"
			}
			vs.Sites = append(vs.Sites, site)
		}
		if useDefinition {
			continue
		}
		reason := "only these call sites are selected"
		switch {
		case vs.Lexical:
			reason = "in the body of its caller " + describeCallers(vs) + ", where the caller's data is in local variables"
		case !f.InModule:
			reason = "its body is outside the module"
			if candidate {
				external = append(external, f.Name)
			}
		}
		for _, c := range selected {
			site := callSiteOf(f, c, reason, impossible)
			if caller && f.InModule {
				// Callee and caller: recorded at its definition, where its
				// id is taken for the call sites in its body; the call
				// sites record the relation, with the id the definition
				// adopts.
				site.RelationOnly = true
				site.Reason = "records " + describeCallers(vs) + " only; the definition adopts its id"
				vs.RelationsAtCalls = true
			}
			vs.Sites = append(vs.Sites, site)
		}
	}
	if synthetic > 0 {
		vs.Eliminated = append(vs.Eliminated, Elimination{Count: synthetic, Reason: "synthesized by the compiler (package initializers): no source to instrument"})
	}
	// A frame of calling contexts is a function with source: a path
	// leaves package initializers out, as docs/LANGUAGE.md says.
	if unrecorded > 0 && !s.moduleOnly {
		vs.Gaps = append(vs.Gaps, Gap{Reason: fmt.Sprintf("%s synthesized by the compiler (package initializers) may be events, but have no source to record them in",
			plural(unrecorded, "function"))})
	}
	if unknownCallers > 0 {
		vs.Gaps = append(vs.Gaps, Gap{Reason: fmt.Sprintf("%s may be called back by code outside the module, where no site records the call: "+
			"%s, so those executions are missing", plural(unknownCallers, "function"), kindsNote(vs))})
	}
	if len(external) > 0 {
		vs.Gaps = append(vs.Gaps, Gap{Reason: fmt.Sprintf("executions of %s, outside the module, are recorded at the module's call sites: those called from outside the module are missing",
			nameList(external, 3))})
	}
	if err := s.unresolvedGaps(vs, allowed); err != nil {
		return err
	}
	if dropped > 0 {
		vs.Eliminated = append(vs.Eliminated, Elimination{Count: dropped, Reason: "call sites outside the callers allowed by " + describeCallers(vs)})
	}
	sortSites(vs.Sites)
	return nil
}

// kindsNote says why vs is recorded only at the kinds of sites it is.
func kindsNote(vs *Var) string {
	kinds := make([]string, len(vs.kinds))
	for i, k := range vs.kinds {
		kinds[i] = string(k)
	}
	return "only " + strings.Join(kinds, " and ") + " sites know what the question asks of " + vs.Name
}

// unresolvedGaps notes, for a variable recorded at call sites, the
// dynamic calls the call graph did not resolve that its relations allow:
// one may run a function of the variable, and no site records it.
func (s *selector) unresolvedGaps(vs *Var, allowed []callerRule) error {
	atCalls := vs.Lexical // recorded at call sites only, if any
	for _, site := range vs.Sites {
		atCalls = atCalls || site.Kind == spec.SiteCall && !site.Impossible
	}
	if !atCalls {
		return nil
	}
	calls, err := s.unresolvedCalls()
	if err != nil {
		return err
	}
	for _, c := range calls {
		if allowedCall(c, allowed) {
			vs.Gaps = append(vs.Gaps, Gap{Position: c.position(),
				Reason: "the call graph did not resolve this dynamic call: if it runs one of the event's functions, no site records that execution"})
		}
	}
	return nil
}

// unresolvedCalls lists the dynamic calls the call graph did not
// resolve, read once: those in code the program may run (a definition
// static.db marks not reached never runs, nor its calls).
func (s *selector) unresolvedCalls() ([]callSite, error) {
	if s.unresolved == nil {
		calls, err := s.readUnresolved()
		if err != nil {
			return nil, err
		}
		s.unresolved = &calls
	}
	return *s.unresolved, nil
}

func (s *selector) readUnresolved() ([]callSite, error) {
	rows, err := s.db.QueryContext(s.ctx, `
		SELECT c.id, coalesce(c.caller_id, 0), c.file, c.line, c.col, c.via FROM calls c
		WHERE c.external IS NULL AND c.kind <> 'static' AND NOT EXISTS (SELECT 1 FROM call_targets t WHERE t.call_id = c.id)
		AND NOT EXISTS (SELECT 1 FROM functions f WHERE f.id = c.caller_id AND f.reached = 0)
		ORDER BY c.file, c.line, c.col`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []callSite
	for rows.Next() {
		var c callSite
		if err := rows.Scan(&c.id, &c.callerID, &c.file, &c.line, &c.col, &c.via); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (c callSite) position() string { return fmt.Sprintf("%s:%d:%d", c.file, c.line, c.col) }

// nameList lists names, the first max of them by name and how many more.
func nameList(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max], ", ") + fmt.Sprintf(" and %d more", len(names)-max)
}

// plural writes n and the noun, plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// dynamicTargets returns the call graph's targets of a call, sorted, when
// it may run more than one function.
func dynamicTargets(targets string) []string {
	names := strings.Split(targets, "\n")
	if len(names) < 2 {
		return nil
	}
	sort.Strings(names)
	return names
}

func describeCallers(vs *Var) string {
	var s []string
	for _, c := range vs.callers {
		s = append(s, c.atom.String())
	}
	return strings.Join(s, " ")
}

// callerRule is what one relation in which a variable is the callee
// allows of its call sites.
type callerRule struct {
	callers map[int64]bool // functions a call site may lie in
	via     func(string) bool
}

// allowedCallers computes, for each relation in which vs is the callee,
// the functions its call sites may lie in and the kinds of call allowed.
func (s *selector) allowedCallers(vs *Var, atoms []*spec.Atom, types spec.VarTypes) ([]callerRule, error) {
	var rules []callerRule
	for _, c := range vs.callers {
		q := buildQuery(component(c.caller, atoms, types), atoms, types)
		sqlText := "SELECT DISTINCT " + q.aliases[c.caller] + ".id FROM " + strings.Join(q.from, ", ")
		if len(q.where) > 0 {
			sqlText += " WHERE " + strings.Join(q.where, " AND ")
		}
		if st := c.atom.Prim.Stored; st != nil && st.Closure != "" {
			// A transitive relation: the call sites may also lie in what
			// the callers reach, as its Static template closes.
			sqlText = "WITH RECURSIVE reach(id) AS (" + sqlText + " " + st.Closure + ") SELECT id FROM reach"
		}
		ids, err := s.ids(sqlText)
		if err != nil {
			return nil, err
		}
		rule := callerRule{callers: ids, via: func(v string) bool { return v != "go" }}
		if c.atom.Prim.Stored != nil && c.atom.Prim.Stored.Go {
			rule.via = func(v string) bool { return v == "go" }
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

func allowedCall(c callSite, rules []callerRule) bool {
	for _, r := range rules {
		if !r.callers[c.callerID] || !r.via(c.via) {
			return false
		}
	}
	return true
}

func (s *selector) ids(query string) (map[int64]bool, error) {
	rows, err := s.db.QueryContext(s.ctx, query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", query, err)
	}
	defer rows.Close()
	ids := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids[id] = true
	}
	return ids, rows.Err()
}

// callSites returns the call sites in the module whose resolved callees
// include function id (edges is callgraph_edges): a dynamic call site is a
// candidate when its callee set contains the function. With edges
// callback_edges, the call sites whose external callee may call it back.
func (s *selector) callSites(id int64, edges string) ([]callSite, error) {
	st, err := s.prepared(`
		SELECT DISTINCT c.id, coalesce(c.caller_id, 0), coalesce(p.name, ''), c.file, c.line, c.col, c.end_line, c.end_col, c.via,
			coalesce((SELECT group_concat(t.callee_name, char(10)) FROM call_targets t WHERE t.call_id = c.id), '')
		FROM calls c JOIN ` + edges + ` e ON e.call_id = c.id
		LEFT JOIN functions p ON p.id = c.caller_id
		WHERE e.callee_def_id = ? ORDER BY c.id`)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(s.ctx, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []callSite
	for rows.Next() {
		var c callSite
		if err := rows.Scan(&c.id, &c.callerID, &c.caller, &c.file, &c.line, &c.col, &c.endLine, &c.endCol, &c.via, &c.targets); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// calledBack says whether code outside the module may call function id
// back from a call site that rules allow. It asks only what the rules
// read of the call sites, each caller and way of calling once (and, with
// no rules, whether there is one): a function a callback set holds is
// called back from hundreds of call sites on a large module.
func (s *selector) calledBack(id int64, rules []callerRule) (bool, error) {
	query := `SELECT DISTINCT coalesce(c.caller_id, 0), c.via FROM calls c JOIN callback_edges e ON e.call_id = c.id WHERE e.callee_def_id = ?`
	if len(rules) == 0 {
		query += " LIMIT 1"
	}
	st, err := s.prepared(query)
	if err != nil {
		return false, err
	}
	rows, err := st.QueryContext(s.ctx, id)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	for rows.Next() {
		var c callSite
		if err := rows.Scan(&c.callerID, &c.via); err != nil {
			return false, err
		}
		if allowedCall(c, rules) {
			return true, nil
		}
	}
	return false, rows.Err()
}

func (s *selector) definition(f Function) (Site, error) {
	site := Site{Kind: spec.SiteDefinition, Function: f.Name, FuncID: f.ID}
	st, err := s.prepared("SELECT coalesce(file, ''), coalesce(line, 0), coalesce(col, 0), coalesce(end_line, 0), coalesce(end_col, 0) FROM functions WHERE id = ?")
	if err != nil {
		return site, err
	}
	err = st.QueryRowContext(s.ctx, f.ID).Scan(&site.File, &site.Line, &site.Col, &site.EndLine, &site.EndCol)
	return site, err
}

// sortSites sorts sites in source order.
func sortSites(sites []Site) {
	sort.SliceStable(sites, func(i, j int) bool {
		a, b := sites[i], sites[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// callSiteOf is call site c of function f.
func callSiteOf(f Function, c callSite, reason string, impossible bool) Site {
	return Site{Kind: spec.SiteCall, Function: f.Name, FuncID: f.ID, CallID: c.id, Caller: c.caller, CallerID: c.callerID, Via: c.via,
		File: c.file, Line: c.line, Col: c.col, EndLine: c.endLine, EndCol: c.endCol, Reason: reason, CallTargets: dynamicTargets(c.targets), Impossible: impossible}
}

// directCallbackGaps notes, for a variable on either side of a direct
// (calls x y) or a (spawns x y), the module's functions y may be that
// code outside the module may call back (a function value passed to
// sort.Slice, reflect.ValueOf or sync.WaitGroup.Go, a method fmt or
// reflection calls: callback_edges). The direct caller of such an
// execution is that code, a function outside the module called from
// outside it, which no site records, and so is the spawner of one it
// starts on a goroutine of its own (WaitGroup.Go, time.AfterFunc); the
// static tables have no edge to them: without this gap, static
// approximation found the relation empty and the answer was silently
// missing those tuples. calls* follows callbacks, so it needs none; an x
// named after functions of the module only is never such a caller.
func (s *selector) directCallbackGaps(vs *Var, all []*spec.Atom, types spec.VarTypes) error {
	names := map[string]string{}
	for _, a := range all {
		if a.Prim.Name == spec.TypeFunctionExecution && a.Args[0].Lit == nil && a.Args[1].Lit != nil {
			names[a.Args[0].Var] = a.Args[1].Lit.Str
		}
	}
	for _, a := range all {
		// A direct relation whose callee's call site lies in its
		// caller's body: calls, and spawns (Stored.Go).
		if !a.Prim.Lexical || len(a.Args) != 2 || a.Args[0].Lit != nil || a.Args[1].Lit != nil {
			continue
		}
		x, y := a.Args[0].Var, a.Args[1].Var
		if vs.Name != x && vs.Name != y || types[y] != spec.TypeFunctionExecution {
			continue
		}
		if name, ok := names[x]; ok {
			var outside int
			if err := s.db.QueryRowContext(s.ctx, "SELECT count(*) FROM functions WHERE match_name = ? AND in_module = 0", name).Scan(&outside); err != nil {
				return err
			}
			if outside == 0 {
				continue
			}
		}
		query := `SELECT DISTINCT e.callee_name, c.file, c.line, c.col FROM callback_edges e
			JOIN calls c ON c.id = e.call_id JOIN functions f ON f.id = e.callee_def_id JOIN functions r ON r.id = c.caller_id
			WHERE f.in_module = 1 AND coalesce(r.reached, 1) <> 0`
		var args []any
		if name, ok := names[y]; ok {
			query += " AND f.match_name = ?"
			args = append(args, name)
		}
		rows, err := s.db.QueryContext(s.ctx, query+" ORDER BY c.file, c.line, c.col, e.callee_name", args...)
		if err != nil {
			return fmt.Errorf("%s: %w", query, err)
		}
		var callees []string
		var first callSite
		seen := map[string]bool{}
		for rows.Next() {
			var name string
			var c callSite
			if err := rows.Scan(&name, &c.file, &c.line, &c.col); err != nil {
				rows.Close()
				return err
			}
			if len(callees) == 0 {
				first = c
			}
			if !seen[name] {
				seen[name] = true
				callees = append(callees, name)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(callees) == 0 {
			continue
		}
		sort.Strings(callees)
		vs.Gaps = append(vs.Gaps, Gap{Position: first.position(),
			Reason: fmt.Sprintf("code outside the module may call %s back (passed to it here, the first such call): the %s of those executions is then a function outside the module that no site records, so the tuples of %s with them are missing",
				nameList(callees, 3), map[bool]string{true: "spawner", false: "caller"}[a.Prim.Stored != nil && a.Prim.Stored.Go], a)})
	}
	return nil
}
