package main

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// TestCallGraphAgreesWithStatic: static.CallGraph.Reach gives, for every
// function of test programs with callbacks, goroutines, closures and
// recursion, the functions the calls* row's Static SQL gives over
// static.db: the answer nestedClocks asked static.db before it read the
// graph once.
func TestCallGraphAgreesWithStatic(t *testing.T) {
	var reach string // the Static template of the transitive calls relation
	for _, prim := range spec.Vocabulary() {
		if prim.Calls() && prim.Transitive() {
			reach = prim.Static
		}
	}
	query := "SELECT b.id FROM functions a, functions b WHERE a.id = ? AND " +
		strings.NewReplacer("{1}", "a", "{2}", "b").Replace(reach)
	for _, program := range []string{"callbacks", "cache", "e2e", "dynamic", "nested", "chain", "calendar"} {
		t.Run(program, func(t *testing.T) {
			dir := copyModule(t, filepath.Join("../../testdata", program))
			res, err := static.Build(context.Background(), static.Config{Dir: dir, Tests: true, Version: version})
			if err != nil {
				t.Fatal(err)
			}
			db, err := openStatic(res.Path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			g, err := static.ReadCallGraph(db)
			if err != nil {
				t.Fatal(err)
			}
			ids := queryColumn[int64](t, db, "SELECT id FROM functions")
			ids = append(ids, 0, -1, 1<<40) // not functions: nothing
			nonEmpty := 0
			for _, id := range ids {
				want := map[int64]bool{}
				for _, callee := range queryColumn[int64](t, db, query, id) {
					want[callee] = true
				}
				got := map[int64]bool{}
				for _, callee := range g.Reach(id) {
					if got[callee] {
						t.Errorf("function %d: callee %d twice", id, callee)
					}
					got[callee] = true
				}
				if len(got) != len(want) {
					t.Errorf("function %d: %d callees, want %d", id, len(got), len(want))
				}
				for callee := range want {
					if !got[callee] {
						t.Errorf("function %d: callee %d missing", id, callee)
					}
				}
				if len(want) > 0 {
					nonEmpty++
				}
			}
			if nonEmpty == 0 {
				t.Errorf("no function of %s calls another: the test compares nothing", program)
			}
		})
	}
}

// queryColumn returns the values of the one column query returns.
func queryColumn[T any](t testing.TB, db *sql.DB, query string, args ...any) []T {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
