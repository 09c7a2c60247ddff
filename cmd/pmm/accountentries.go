package main

import (
	"fmt"
	"maps"
	"math/bits"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// closedPackages are packages outside the module that keep no function
// or interface value of a caller beyond the call: whatever of the
// module they run, they run from what the call passes them, which the
// call graph's callback edges follow. A call of any other function
// outside the module (log.Print writing to the io.Writer log.SetOutput
// kept, flag.Parse calling what flag.Func kept) may run any of the
// module's functions.
var closedPackages = []string{
	"bytes", "cmp", "errors", "maps", "math", "math/bits", "slices", "sort",
	"strconv", "strings", "sync", "sync/atomic", "unicode", "unicode/utf16", "unicode/utf8",
}

// accountFacts are what the static call graph tells of a plan's memory
// accounts (instrument.Options.Quiet and Known).
type accountFacts struct {
	// quiet are, by account set (its index in p.Accounts), the functions
	// of the module, by span, whose executions can run no allocation
	// site that reads the set's account at run time: an accounted one
	// among them need not enter its account.
	quiet map[int]map[static.Span]bool
	// known are, by account set, the functions holding allocation sites
	// of an unaccounted package (agents) whose account is the same in
	// every execution, by id: the index of its pattern in the set, 0
	// for none. Their sites write it as a constant.
	known map[int]map[int64]int
	// untested are the known agents that a test file could call, when
	// test files were not analysed (pmm instrument without -tests): the
	// answers of pmm test say their accounts assume the analysed callers.
	untested map[int64]string
}

// accounts finds the accountFacts of p from the static database at
// dbPath. It reads the calls on the goroutine from the static call
// graph (static.CallGraph, what calls* decides statically).
//
// Quiet: every function that may run code the graph does not know
// counts as reaching a site that reads the account: a dynamic call the
// graph did not resolve or that has no callee, a call of a function
// outside the module but those of closedPackages, a function of the
// module whose body was not analysed.
//
// Known: an agent's account is that of its callers: an accounted
// caller's own, an unaccounted one's account; a goroutine, main.main
// and init functions start with none. It is known where every caller
// is in the calls table: the static database holds the whole module
// (meta whole_module) and nothing else may call the function
// (functions.hidden_callers: its value is never taken, it is no method,
// no directive or assembly calls it); a caller holding a
// range-over-func loop, whose body runs inside the iterator (which may
// be accounted), makes it unknown, and so does a caller whose own
// account is not known.
func accounts(dbPath, root string, p *plan.Plan, pkgs []*packages.Package) (*accountFacts, error) {
	sets := p.Accounts()
	if len(sets) == 0 {
		return &accountFacts{}, nil
	}
	names := map[string]string{} // package names, by path
	for _, pkg := range pkgs {
		names[pkg.PkgPath] = pkg.Name
	}
	db, g, err := openCallGraph(dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var whole, tests string
	if err := db.QueryRow(`SELECT coalesce((SELECT value FROM meta WHERE key = 'whole_module'), ''),
			coalesce((SELECT value FROM meta WHERE key = 'tests'), '')`).Scan(&whole, &tests); err != nil {
		return nil, err
	}
	type function struct {
		id       int64
		name     string
		pkg      string
		kind     string
		exported bool
		hidden   bool
		ranges   bool // holds a range-over-func loop
		span     static.Span
	}
	var defs []*function         // the module's functions with a position
	fns := map[int64]*function{} // the module's definitions, by id
	opaque := map[int64]bool{}   // functions that may run code the graph does not know
	pkgOf := map[int64]string{}
	rows, err := db.Query(`SELECT f.id, f.name, f.pkg, f.kind, f.exported, f.in_module, f.defined, coalesce(f.hidden_callers, 1),
			coalesce(f.file, ''), coalesce(f.line, 0), coalesce(f.col, 0), coalesce(f.end_line, 0), coalesce(f.end_col, 0),
			EXISTS (SELECT 1 FROM calls c WHERE c.caller_id = f.id AND c.via <> 'go'
				AND (c.external IS NULL OR NOT EXISTS (SELECT 1 FROM call_targets t WHERE t.call_id = c.id))),
			EXISTS (SELECT 1 FROM calls c WHERE c.caller_id = f.id AND c.kind = 'implicit')
		FROM functions f`)
	if err != nil {
		return nil, fmt.Errorf("reading the functions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var f function
		var inModule, defined, unknownCall bool
		if err := rows.Scan(&f.id, &f.name, &f.pkg, &f.kind, &f.exported, &inModule, &defined, &f.hidden, &f.span.File, &f.span.Line, &f.span.Col,
			&f.span.EndLine, &f.span.EndCol, &unknownCall, &f.ranges); err != nil {
			return nil, err
		}
		pkgOf[f.id] = f.pkg
		switch {
		case !inModule:
			opaque[f.id] = !slices.Contains(closedPackages, f.pkg)
		case !defined || unknownCall:
			opaque[f.id] = true
		}
		if inModule && defined {
			fns[f.id] = &f
			if f.span.File != "" {
				defs = append(defs, &f)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	pkgName := func(f *function) string {
		if n, ok := names[f.pkg]; ok {
			return n
		}
		if strings.HasPrefix(f.name, "main.") {
			return "main"
		}
		return ""
	}
	// The calls of the module's definitions on their goroutine or
	// starting one, by callee; callers outside the table make the
	// callee's account unknown (hidden, below).
	callers := map[int64][]accountCall{}
	if whole == "true" {
		crows, err := db.Query(`SELECT coalesce(c.caller_id, 0), t.callee_id, c.via = 'go' FROM calls c JOIN call_targets t ON t.call_id = c.id`)
		if err != nil {
			return nil, err
		}
		defer crows.Close()
		for crows.Next() {
			var from, to int64
			var goes bool
			if err := crows.Scan(&from, &to, &goes); err != nil {
				return nil, err
			}
			callers[to] = append(callers[to], accountCall{from, goes})
		}
		if err := crows.Err(); err != nil {
			return nil, err
		}
	}
	facts := &accountFacts{quiet: map[int]map[static.Span]bool{}, known: map[int]map[int64]int{}, untested: map[int64]string{}}
	for k, set := range sets {
		patterns, err := spec.AccountPatterns(set)
		if err != nil {
			return nil, err
		}
		// The functions holding a site that reads the set's account.
		agents := map[int64]bool{}
		for _, s := range p.Sites {
			if !readsAccount(s, set) {
				continue
			}
			for _, id := range []int64{s.FuncID, s.CallerID} {
				if id == 0 {
					continue
				}
				if pkg, ok := pkgOf[id]; !ok || spec.AccountIndex(patterns, pkg, names[pkg]) == 0 {
					agents[id] = true
				}
			}
			if s.FuncID == 0 && s.CallerID == 0 {
				return &accountFacts{}, nil // a site of no known function: every accounted function enters, every site reads
			}
		}
		nodes := map[int64]accountNode{}
		for id, f := range fns {
			nd := accountNode{ranges: f.ranges, callable: !f.hidden && (f.kind == "func" || f.kind == "init"),
				test: strings.HasSuffix(f.span.File, "_test.go")}
			if f.span.File != "" { // a body that enters its account (not a package initializer)
				nd.accounted = spec.AccountIndex(patterns, f.pkg, pkgName(f))
			}
			nd.root = f.kind == "init" || f.name == "main.main" || isInitFunc(f.name)
			nodes[id] = nd
		}
		known := map[int64]int{}
		if whole == "true" {
			known = knownAccounts(agents, nodes, callers, len(patterns))
		}
		facts.known[k] = known
		if tests != "true" && len(known) > 0 {
			// Test files were not analysed: the accounts that a test's
			// call of a function it may call (an exported one, or any of
			// a package with test files) would change are said.
			testable := maps.Clone(nodes)
			tested := map[string]bool{} // directories with test files
			for id, f := range fns {
				dir := filepath.Dir(filepath.Join(root, f.span.File))
				if _, ok := tested[dir]; !ok {
					tested[dir] = dirHasTestFiles(dir)
				}
				if nd := testable[id]; f.span.File != "" && (f.exported || tested[dir]) {
					nd.callable = false
					testable[id] = nd
				}
			}
			withTests := knownAccounts(agents, testable, callers, len(patterns))
			for id, acc := range known {
				if was, ok := withTests[id]; !ok || was != acc {
					facts.untested[id] = fns[id].name
				}
			}
		}
		bad := func(id int64) bool {
			_, constant := known[id]
			return agents[id] && !constant || opaque[id]
		}
		byspan := map[static.Span]bool{}
		for _, f := range defs {
			// An unaccounted function enters no account: not worth a walk.
			q := spec.AccountIndex(patterns, f.pkg, names[f.pkg]) > 0 && !bad(f.id) && !slices.ContainsFunc(g.Reach(f.id), bad)
			if was, ok := byspan[f.span]; ok {
				q = q && was // two functions at one span: quiet if both are
			}
			byspan[f.span] = q
		}
		facts.quiet[k] = map[static.Span]bool{}
		for span, q := range byspan {
			if q {
				facts.quiet[k][span] = true
			}
		}
	}
	return facts, nil
}

// accountNode is what knownAccounts knows of a function of the module.
type accountNode struct {
	accounted int  // the index of the account its body enters, 0 if none
	callable  bool // only the calls of the calls table can call it
	ranges    bool // it holds a range-over-func loop
	root      bool // the runtime starts it, with no account (main.main, init)
	test      bool // it is written in a test file
}

// accountCall is a call of the calls table, by its callee: its caller,
// and whether a go statement makes it (the goroutine starts with no
// account).
type accountCall struct {
	caller int64
	goes   bool
}

// knownAccounts returns, of the agents, those whose account is the same
// whenever they run, with that account (an index among n patterns, 0
// for none), as accounts describes it: the nodes are the module's
// definitions, callers the calls of each. The accounts a function may
// run under grow from its roots and callers until nothing changes.
func knownAccounts(agents map[int64]bool, nodes map[int64]accountNode, callers map[int64][]accountCall, n int) map[int64]int {
	if n >= 64 {
		return nil
	}
	type under struct {
		accounts uint64 // bit i: the account of pattern i (0: none)
		any      bool   // any account: callers the analysis does not know
	}
	in := map[int64]*under{}
	for id, nd := range nodes {
		// A test function no call of the table calls is package
		// testing's to run; another function no call calls never runs.
		u := &under{any: !nd.callable || nd.test && !nd.root && len(callers[id]) == 0}
		if nd.root {
			u.accounts = 1
		}
		in[id] = u
	}
	// An unaccounted caller passes on what it runs under: it is a
	// dependency of its callees.
	dependents := map[int64][]int64{}
	for callee, calls := range callers {
		for _, c := range calls {
			if nd, ok := nodes[c.caller]; ok && !c.goes && !nd.ranges && nd.accounted == 0 {
				dependents[c.caller] = append(dependents[c.caller], callee)
			}
		}
	}
	update := func(callee int64) bool {
		u := in[callee]
		if u == nil || u.any {
			return false
		}
		was := *u
		for _, c := range callers[callee] {
			nd, ok := nodes[c.caller]
			switch {
			case c.goes:
				u.accounts |= 1
			case !ok || nd.ranges:
				u.any = true
			case nd.accounted > 0:
				u.accounts |= 1 << nd.accounted
			default:
				from := in[c.caller]
				u.any = u.any || from.any
				u.accounts |= from.accounts
			}
		}
		return *u != was
	}
	var todo []int64
	for id := range nodes {
		todo = append(todo, id)
	}
	for len(todo) > 0 {
		id := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if update(id) {
			todo = append(todo, dependents[id]...)
		}
	}
	known := map[int64]int{}
	for id := range agents {
		u, nd := in[id], nodes[id]
		if u == nil || u.any || nd.ranges || bits.OnesCount64(u.accounts) != 1 {
			continue
		}
		known[id] = bits.TrailingZeros64(u.accounts)
	}
	return known
}

// isInitFunc reports whether name is that of an init function
// (pkg.init.0, pkg.init.1, ...).
func isInitFunc(name string) bool {
	i := strings.LastIndex(name, ".init.")
	if i < 0 {
		return false
	}
	_, err := strconv.Atoi(name[i+len(".init."):])
	return err == nil
}

// dirHasTestFiles reports whether the directory holds a _test.go file.
func dirHasTestFiles(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	return len(files) > 0
}

// readsAccount reports whether a target of s asks the account of the
// set's allocations.
func readsAccount(s *plan.Site, set string) bool {
	for _, t := range s.Targets {
		for _, e := range t.Emits {
			for _, f := range e.Fields {
				if f.Cap == plan.CapAccount && f.Expr == set {
					return true
				}
			}
		}
		for _, ac := range t.Cells {
			for _, key := range ac.Group {
				if key.Account == set {
					return true
				}
			}
		}
	}
	return false
}
