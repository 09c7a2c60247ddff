package main

import (
	"fmt"
	"slices"

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

// quietAccounts finds, for each account set of p (by its index in
// p.Accounts), the functions of the module, by span, whose executions
// can run no allocation site that reads the account set (a site of a
// package the set does not account): an accounted one among them need
// not enter its account (instrument.Options.Quiet). It reads the calls
// on the goroutine from the static call graph (static.CallGraph, what
// calls* decides statically), and takes as reaching such a site every
// function that may run code the graph does not know: a dynamic call
// the graph did not resolve or that has no callee, a call of a
// function outside the module but those of closedPackages, a function
// of the module whose body was not analysed. Nil: every accounted
// function enters.
func quietAccounts(dbPath string, p *plan.Plan, pkgs []*packages.Package) (map[int]map[static.Span]bool, error) {
	sets := p.Accounts()
	if len(sets) == 0 {
		return nil, nil
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
	type function struct {
		id   int64
		pkg  string
		span static.Span
	}
	var defs []function        // the module's functions with a position
	opaque := map[int64]bool{} // functions that may run code the graph does not know
	pkgOf := map[int64]string{}
	rows, err := db.Query(`SELECT f.id, f.pkg, f.in_module, f.defined, coalesce(f.file, ''), coalesce(f.line, 0), coalesce(f.col, 0),
			coalesce(f.end_line, 0), coalesce(f.end_col, 0),
			EXISTS (SELECT 1 FROM calls c WHERE c.caller_id = f.id AND c.via <> 'go'
				AND (c.external IS NULL OR NOT EXISTS (SELECT 1 FROM call_targets t WHERE t.call_id = c.id)))
		FROM functions f`)
	if err != nil {
		return nil, fmt.Errorf("reading the functions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var f function
		var inModule, defined, unknownCall bool
		if err := rows.Scan(&f.id, &f.pkg, &inModule, &defined, &f.span.File, &f.span.Line, &f.span.Col,
			&f.span.EndLine, &f.span.EndCol, &unknownCall); err != nil {
			return nil, err
		}
		pkgOf[f.id] = f.pkg
		switch {
		case !inModule:
			opaque[f.id] = !slices.Contains(closedPackages, f.pkg)
		case !defined || unknownCall:
			opaque[f.id] = true
		}
		if inModule && f.span.File != "" {
			defs = append(defs, f)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	quiet := map[int]map[static.Span]bool{}
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
				return nil, nil // a site of no known function: every accounted function enters
			}
		}
		bad := func(id int64) bool { return agents[id] || opaque[id] }
		byspan := map[static.Span]bool{}
		for _, f := range defs {
			// An unaccounted function enters no account: not worth a walk.
			q := spec.AccountIndex(patterns, f.pkg, names[f.pkg]) > 0 && !bad(f.id) && !slices.ContainsFunc(g.Reach(f.id), bad)
			if was, ok := byspan[f.span]; ok {
				q = q && was // two functions at one span: quiet if both are
			}
			byspan[f.span] = q
		}
		quiet[k] = map[static.Span]bool{}
		for span, q := range byspan {
			if q {
				quiet[k][span] = true
			}
		}
	}
	return quiet, nil
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
