package static

import (
	"database/sql"
)

// CallGraph is the static call graph of static.db as the transitive
// calls relation reads it (the calls* row's Static: reach from a
// function's calls on its goroutine, through call_targets,
// callback_targets and callback_sets, a set entering as a node of its own,
// its id negated, that leads to its members). Asking static.db that
// recursive query once per function whose durations are recorded took
// 1.3 ms each, 3.8 s of the 5.3 s of pmm instrument over every function
// of expr-lang/expr; the graph is read in five queries and walked here,
// its nodes numbered from 0. cmd/pmm's TestCallGraphAgreesWithStatic checks that
// it gives what the row's SQL gives, for every function of the test
// programs.
type CallGraph struct {
	index    map[int64]int32 // a node's number, by id
	ids      []int64         // a node's id, by number
	calls    [][]int32       // a function's calls: its callees and callback sets
	members  [][]int32       // a callback set's members
	function []bool          // whether a node is a row of functions
}

// ReadCallGraph reads the call graph of the static database db.
func ReadCallGraph(db *sql.DB) (*CallGraph, error) {
	g := &CallGraph{index: map[int64]int32{}}
	node := func(id int64) int32 {
		n, ok := g.index[id]
		if !ok {
			n = int32(len(g.ids))
			g.index[id] = n
			g.ids = append(g.ids, id)
			g.calls, g.members, g.function = append(g.calls, nil), append(g.members, nil), append(g.function, false)
		}
		return n
	}
	read := func(query string, add func(from, to int64)) error {
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
				add(from.Int64, to.Int64)
			}
		}
		return rows.Err()
	}
	call := func(from, to int64) { f := node(from); g.calls[f] = append(g.calls[f], node(to)) }
	for _, q := range []struct {
		query string
		add   func(from, to int64)
	}{
		{"SELECT id, id FROM functions", func(id, _ int64) { g.function[node(id)] = true }},
		{"SELECT c.caller_id, t.callee_id FROM calls c JOIN call_targets t ON t.call_id = c.id WHERE c.via <> 'go'", call},
		{"SELECT c.caller_id, t.callee_id FROM calls c JOIN callback_targets t ON t.call_id = c.id WHERE c.via <> 'go'", call},
		{"SELECT c.caller_id, -s.set_id FROM calls c JOIN callback_sets s ON s.call_id = c.id WHERE c.via <> 'go'", call},
		{"SELECT -m.set_id, m.callee_id FROM callback_set_members m", func(from, to int64) {
			f := node(from)
			g.members[f] = append(g.members[f], node(to))
		}},
	} {
		if err := read(q.query, q.add); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Reach returns the functions an execution of caller may call, directly
// or not, on its goroutine, each once.
func (g *CallGraph) Reach(caller int64) []int64 {
	start, ok := g.index[caller]
	if !ok || !g.function[start] {
		return nil
	}
	return g.walk(g.calls[start])
}

// ReachFrom returns the functions that calls whose targets are targets
// (functions, and callback sets by their negated ids) may run, directly
// or not, on their goroutine, each once: the calls within a part of a
// body.
func (g *CallGraph) ReachFrom(targets []int64) []int64 {
	var start []int32
	for _, t := range targets {
		if n, ok := g.index[t]; ok {
			start = append(start, n)
		}
	}
	return g.walk(start)
}

// walk returns the functions among the nodes start and those they reach.
func (g *CallGraph) walk(start []int32) []int64 {
	seen := make([]bool, len(g.ids))
	var todo []int32
	add := func(ns []int32) {
		for _, n := range ns {
			if !seen[n] {
				seen[n] = true
				todo = append(todo, n)
			}
		}
	}
	add(start)
	var out []int64
	for len(todo) > 0 {
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if g.function[n] {
			out = append(out, g.ids[n])
		}
		add(g.calls[n])
		add(g.members[n])
	}
	return out
}
