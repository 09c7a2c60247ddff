package sites

import (
	"fmt"
	"slices"
	"strings"

	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// Allocations outside the module (docs/MEMORY.md): pmm records the
// allocation sites of the module's own code, so an answer that relates
// an execution to the allocations it contains (contains x a) leaves out
// what code outside the module (the standard library, dependencies, the
// runtime starting a goroutine) allocates inside it. Where such code may
// run inside x (the static call graph, on x's goroutine when the question
// says same-goroutine, anywhere in the program when it does not), the
// allocation variable gets a gap that says so, with the calls that may
// run it. The same reachability narrows the allocation sites' own gaps
// (a map's make, not recorded) to those x may run, with same-goroutine.

// nonAllocating are the packages outside the module whose every function
// and method never allocates on the heap: a call of them runs no
// allocation the answer misses. TestNonAllocatingPackages calls each
// exported function and method of each with testing.AllocsPerRun.
var nonAllocating = []string{"sync/atomic"}

// outsideCall is a call site in the module that may run code outside it.
type outsideCall struct {
	callerID       int64
	position, what string
	unresolved     bool // a dynamic call the call graph did not resolve
}

// containedAllocations adds, for each (contains x a) of atoms whose a is
// an allocation variable of own, the gaps of code outside the module
// that may run inside x, and narrows a's gaps to the allocation sites x
// may run on its goroutine where the question says same-goroutine.
// scope holds the event variables a question's enclosing conjunctions
// select, own's among them.
func (s *selector) containedAllocations(own, scope []*Var, atoms []*spec.Atom, types spec.VarTypes) error {
	for _, a := range atoms {
		if a.Prim.Name != spec.RelContains || a.Args[0].Lit != nil || a.Args[1].Lit != nil || types[a.Args[1].Var] != spec.TypeAllocation {
			continue
		}
		x, al := a.Args[0].Var, a.Args[1].Var
		av := varNamed(own, al)
		if av == nil {
			continue // introduced by an enclosing conjunction, and seen there
		}
		same := slices.ContainsFunc(atoms, func(b *spec.Atom) bool {
			return b.Prim.Name == spec.RelSameGoroutine && b.Args[0].Lit == nil && b.Args[1].Lit == nil &&
				(b.Args[0].Var == x && b.Args[1].Var == al || b.Args[0].Var == al && b.Args[1].Var == x)
		})
		roots, outsiders, known := containerRoots(varNamed(scope, x))
		inModule := known && len(outsiders) == 0
		// inside are the functions that may run inside x where its
		// allocations count: on its goroutine, or, without
		// same-goroutine, anywhere (nil).
		var inside map[int64]bool
		if same && known {
			g, err := s.callGraph()
			if err != nil {
				return err
			}
			inside = map[int64]bool{}
			for _, f := range g.ReachFrom(roots) {
				inside[f] = true
			}
		}
		calls, err := s.outsideCalls()
		if err != nil {
			return err
		}
		var found []outsideCall
		unresolved := false
		for _, c := range calls {
			if inside == nil || inside[c.callerID] {
				found = append(found, c)
				unresolved = unresolved || c.unresolved
			}
		}
		if same && inModule && !unresolved {
			if err := s.narrowAllocations(av, x, inside); err != nil {
				return err
			}
		}
		only, err := s.allocationsInModule(al, scope, atoms)
		if err != nil {
			return err
		}
		if only {
			continue // outside the module are no allocations of a's functions
		}
		var what []string
		switch {
		case !known:
			what = append(what, x+" itself may be code outside the module")
		case len(outsiders) > 0:
			what = append(what, x+" itself may be an execution of "+nameList(outsiders, 2))
		}
		for i, c := range found {
			if i == 3 {
				what = append(what, fmt.Sprintf("and %d more", len(found)-3))
				break
			}
			what = append(what, c.what+" at "+c.position)
		}
		if len(what) == 0 {
			continue
		}
		where := "while " + x + " runs"
		if same && known {
			where = "in " + x + " on its goroutine"
		}
		gap := Gap{Outside: true, Reason: fmt.Sprintf("allocations outside the module are not counted: code outside it may run %s (%s), "+
			"and what it allocates is no allocation event", where, strings.Join(what, ", "))}
		if len(found) == 1 && inModule {
			gap.Position = found[0].position
		}
		av.Gaps = append(av.Gaps, gap)
	}
	return nil
}

// varNamed is the variable of vars named v, or nil.
func varNamed(vars []*Var, v string) *Var {
	for _, vs := range vars {
		if vs.Name == v {
			return vs
		}
	}
	return nil
}

// containerRoots returns the functions whose code runs x's events on
// their goroutine (a function-execution's functions, those a goroutine
// starts, the function holding a part of a body: all of it may run
// inside x), those of them outside the module, and whether they are
// known.
func containerRoots(xv *Var) (roots []int64, outside []string, known bool) {
	if xv == nil {
		return nil, nil, false
	}
	for _, f := range xv.Functions {
		if xv.possible == nil || xv.possible[f.ID] {
			roots = append(roots, f.ID)
			if !f.InModule {
				outside = append(outside, f.Name)
			}
		}
	}
	return roots, outside, true
}

// callGraph is the static call graph, read once.
func (s *selector) callGraph() (*static.CallGraph, error) {
	if s.graph == nil {
		g, err := static.ReadCallGraph(s.db)
		if err != nil {
			return nil, fmt.Errorf("reading the call graph: %w", err)
		}
		s.graph = g
	}
	return s.graph, nil
}

// outsideCalls lists, read once, the call sites of the module that may
// run code outside it: a call of a function outside it (but those of
// nonAllocating), a dynamic call the call graph did not resolve or
// resolved to such a function, and a go statement (the runtime may
// allocate the goroutine).
func (s *selector) outsideCalls() ([]outsideCall, error) {
	if s.outside != nil {
		return *s.outside, nil
	}
	allowed := "'" + strings.Join(nonAllocating, "', '") + "'"
	rows, err := s.db.QueryContext(s.ctx, `
		SELECT coalesce(c.caller_id, 0), c.file, c.line, c.col, c.via, c.kind, coalesce(c.callee, ''), coalesce(c.external, -1),
			coalesce((SELECT group_concat(f.name, char(10)) FROM call_targets t JOIN functions f ON f.id = t.callee_id
				WHERE t.call_id = c.id AND f.in_module = 0 AND f.pkg NOT IN (`+allowed+`)), ''),
			EXISTS (SELECT 1 FROM call_targets t WHERE t.call_id = c.id)
		FROM calls c
		WHERE NOT EXISTS (SELECT 1 FROM functions f WHERE f.id = c.caller_id AND f.reached = 0) AND coalesce(c.allocates, 1) <> 0
		ORDER BY c.file, c.line, c.col, c.id`)
	if err != nil {
		return nil, fmt.Errorf("reading the calls outside the module: %w", err)
	}
	defer rows.Close()
	var out []outsideCall
	for rows.Next() {
		var c outsideCall
		var file, via, kind, callee, targets string
		var line, col, external int
		var resolved bool
		if err := rows.Scan(&c.callerID, &file, &line, &col, &via, &kind, &callee, &external, &targets, &resolved); err != nil {
			return nil, err
		}
		c.position = fmt.Sprintf("%s:%d:%d", file, line, col)
		names := strings.Split(targets, "\n")
		switch {
		case via == "go":
			c.what = "a go statement"
		case external < 0:
			c.what, c.unresolved = "a dynamic call the call graph did not resolve", true
		case targets != "":
			c.what = nameList(names, 2)
		case external == 1 && !resolved:
			c.what = "a call of " + callee + " outside the module"
		default:
			continue // every callee in the module, or non-allocating
		}
		if via == "defer" {
			c.what = "a deferred " + strings.TrimPrefix(c.what, "a ")
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s.outside = &out
	return out, nil
}

// allocationsInModule reports whether allocation variable a's function
// is only ever in the module: a literal name of functions all in it, or
// the name of executions of functions all in it. Then what code outside
// the module allocates is none of a's events, and no gap is needed.
func (s *selector) allocationsInModule(a string, scope []*Var, atoms []*spec.Atom) (bool, error) {
	for _, at := range atoms {
		if at.Prim.Name != spec.TypeAllocation || at.Args[0].Lit != nil || at.Args[0].Var != a {
			continue
		}
		if n := at.Args[1].Lit; n != nil {
			var in, out int
			err := s.db.QueryRowContext(s.ctx, "SELECT count(*) FILTER (WHERE in_module = 1), count(*) FILTER (WHERE in_module = 0) FROM functions WHERE match_name = ?",
				n.Str).Scan(&in, &out)
			if err != nil {
				return false, err
			}
			if in > 0 && out == 0 {
				return true, nil
			}
			continue
		}
		for _, e := range atoms {
			if e.Prim.Name != spec.TypeFunctionExecution || e.Args[0].Lit != nil || e.Args[1].Lit != nil || e.Args[1].Var != at.Args[1].Var {
				continue
			}
			if _, outside, known := containerRoots(varNamed(scope, e.Args[0].Var)); known && len(outside) == 0 {
				return true, nil
			}
		}
	}
	return false, nil
}

// narrowAllocations keeps of av's sites and gaps those in the functions
// inside (its container's on its goroutine; gaps without a position
// too): an allocation elsewhere is never contained in it there. Without
// static approximation the sites stay, as sites whose events cannot
// matter (Impossible), so that their loss says nothing.
func (s *selector) narrowAllocations(av *Var, x string, inside map[int64]bool) error {
	rows, err := s.db.QueryContext(s.ctx, "SELECT file, line, col, coalesce(function_id, 0) FROM allocations")
	if err != nil {
		return err
	}
	defer rows.Close()
	keep := map[string]bool{}
	for rows.Next() {
		var file string
		var line, col int
		var f int64
		if err := rows.Scan(&file, &line, &col, &f); err != nil {
			return err
		}
		if inside[f] {
			keep[fmt.Sprintf("%s:%d:%d", file, line, col)] = true
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	av.Gaps = slices.DeleteFunc(av.Gaps, func(g Gap) bool { return g.Position != "" && !keep[g.Position] })
	if !s.approximate {
		for i := range av.Sites {
			av.Sites[i].Impossible = av.Sites[i].Impossible || !inside[av.Sites[i].FuncID]
		}
		return nil
	}
	n := len(av.Sites)
	av.Sites = slices.DeleteFunc(av.Sites, func(site Site) bool { return !inside[site.FuncID] })
	av.Functions = slices.DeleteFunc(av.Functions, func(f Function) bool { return !inside[f.ID] })
	if n > len(av.Sites) {
		av.Eliminated = append(av.Eliminated, Elimination{Count: n - len(av.Sites),
			Reason: "in no function that may run inside " + x + " on its goroutine (the call graph)"})
	}
	return nil
}
