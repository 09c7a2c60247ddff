package main

import (
	"database/sql"
)

// callGraph is the static call graph of static.db as the transitive
// calls relation reads it (the calls* row's Static: reach from a
// function's calls on its goroutine, through call_targets,
// callback_targets and callback_sets, a set entering as a node of its own,
// its id negated, that leads to its members). Asking static.db that
// recursive query once per function whose durations are recorded took
// 1.3 ms each, 3.8 s of the 5.3 s of pmm instrument over every function
// of expr-lang/expr; the graph is read in five queries and walked here.
// TestCallGraphAgreesWithStatic checks that it gives what the row's SQL
// gives, for every function of the test programs.
type callGraph struct {
	calls     map[int64][]int64 // a function's calls: its callees and callback sets
	members   map[int64][]int64 // a callback set's members (the set's node is its id negated)
	functions map[int64]bool
}

// readCallGraph reads the call graph of the static database db.
func readCallGraph(db *sql.DB) (*callGraph, error) {
	g := &callGraph{calls: map[int64][]int64{}, members: map[int64][]int64{}, functions: map[int64]bool{}}
	functions := map[int64][]int64{}
	edges := func(edges map[int64][]int64, query string) error {
		rows, err := db.Query(query)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var from, to sql.NullInt64
			if err := rows.Scan(&from, &to); err != nil {
				return err
			}
			if from.Valid && to.Valid { // SQL's = never holds for NULL
				edges[from.Int64] = append(edges[from.Int64], to.Int64)
			}
		}
		return rows.Err()
	}
	for _, q := range []struct {
		edges map[int64][]int64
		query string
	}{
		{g.calls, "SELECT c.caller_id, t.callee_id FROM calls c JOIN call_targets t ON t.call_id = c.id WHERE c.via <> 'go'"},
		{g.calls, "SELECT c.caller_id, t.callee_id FROM calls c JOIN callback_targets t ON t.call_id = c.id WHERE c.via <> 'go'"},
		{g.calls, "SELECT c.caller_id, -s.set_id FROM calls c JOIN callback_sets s ON s.call_id = c.id WHERE c.via <> 'go'"},
		{g.members, "SELECT -m.set_id, m.callee_id FROM callback_set_members m"},
		{functions, "SELECT id, id FROM functions"},
	} {
		if err := edges(q.edges, q.query); err != nil {
			return nil, err
		}
	}
	for id := range functions {
		g.functions[id] = true
	}
	return g, nil
}

// reach returns the functions an execution of caller may call, directly
// or not, on its goroutine.
func (g *callGraph) reach(caller int64) map[int64]bool {
	out := map[int64]bool{}
	if !g.functions[caller] {
		return out
	}
	seen := map[int64]bool{}
	var todo []int64
	add := func(ids []int64) {
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				todo = append(todo, id)
			}
		}
	}
	add(g.calls[caller])
	for len(todo) > 0 {
		id := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if g.functions[id] {
			out[id] = true
		}
		add(g.calls[id])
		add(g.members[id])
	}
	return out
}
