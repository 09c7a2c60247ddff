package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/spec"
)

// Calling contexts (docs/LANGUAGE.md, "Calling contexts"): after a run
// is loaded, each event whose calling context a question asks for has
// its goroutine in its calling-context table (the site recorded it
// there); storeContexts replaces it with the event's path, read from the
// executions the frames question recorded on that goroutine, and fills
// pmm_contexts with the tree of the paths.

// ctxFrame is an execution the frames question recorded: a function
// that may be on an event's path.
type ctxFrame struct {
	id, end  int64 // end is 0 when the execution did not end
	g        int64
	function string
}

// ctxEvent is an event whose calling context is asked.
type ctxEvent struct {
	id       int64
	g        int64
	function string // the function of its site
	instant  bool   // an allocation, inside its function's execution
}

// contextPaths returns the path of each event, by id: the functions of
// the frames that contain it on its goroutine, outermost first (on one
// goroutine executions nest like a stack, so they are the frames begun
// before it and not ended before it). An execution's own function ends
// its path, whether or not its own execution is a frame (it is one,
// with its id, when its definition recorded both; at a call site it has
// an id of its own, taken before its frame's). An allocation's function
// ends its path too: its execution is the innermost frame, unless it
// was not recorded (a function pmm could not instrument).
func contextPaths(frames []ctxFrame, events []ctxEvent) map[int64]string {
	byG := map[int64][]ctxFrame{}
	for _, f := range frames {
		byG[f.g] = append(byG[f.g], f)
	}
	evByG := map[int64][]ctxEvent{}
	for _, e := range events {
		evByG[e.g] = append(evByG[e.g], e)
	}
	paths := make(map[int64]string, len(events))
	for g, evs := range evByG {
		fs := byG[g]
		slices.SortFunc(fs, func(a, b ctxFrame) int { return cmpInt64(a.id, b.id) })
		slices.SortFunc(evs, func(a, b ctxEvent) int { return cmpInt64(a.id, b.id) })
		var stack []ctxFrame
		popEnded := func(at int64) {
			for len(stack) > 0 && stack[len(stack)-1].end != 0 && stack[len(stack)-1].end < at {
				stack = stack[:len(stack)-1]
			}
		}
		next := 0
		for _, e := range evs {
			for next < len(fs) && fs[next].id < e.id {
				popEnded(fs[next].id)
				stack = append(stack, fs[next])
				next++
			}
			popEnded(e.id)
			names := make([]string, 0, len(stack)+1)
			for _, f := range stack {
				names = append(names, f.function)
			}
			if !e.instant || len(names) == 0 || names[len(names)-1] != e.function {
				names = append(names, e.function)
			}
			paths[e.id] = strings.Join(names, ";")
		}
	}
	return paths
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// storeContexts computes the calling contexts of run's events in the
// database at dbPath, when a question of p asks for them.
func storeContexts(p *plan.Project, dbPath string, run int64) error {
	var ctxTables []schema.Table
	tablesOf := map[string][]schema.Table{} // by question
	for _, t := range p.Tables {
		tablesOf[t.Question] = append(tablesOf[t.Question], t)
		if t.Prim == spec.AttrCallingContext {
			ctxTables = append(ctxTables, t)
		}
	}
	if len(ctxTables) == 0 {
		return nil
	}
	db, err := openAnswers(dbPath, false)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS "+schema.ContextsTable+" ("+schema.ContextsColumns+")"); err != nil {
		return err
	}
	// Once per run: the run's contexts are stored in one transaction
	// with its paths, so a run with contexts has been done.
	var done int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM "+schema.ContextsTable+" WHERE run = ? LIMIT 1)", run).Scan(&done); err != nil || done > 0 {
		return err
	}
	frames, err := readFrames(ctx, tx, tablesOf[spec.FramesQuestion], run)
	if err != nil {
		return err
	}
	for _, t := range ctxTables {
		events, err := readContextEvents(ctx, tx, t, tablesOf[t.Question], run)
		if err != nil {
			return err
		}
		column := t.Columns[len(t.Columns)-1].Name
		for id, path := range contextPaths(frames, events) {
			if _, err := tx.ExecContext(ctx, "UPDATE "+t.Name+" SET "+column+" = ? WHERE run = ? AND id = ?", path, run, id); err != nil {
				return err
			}
			if err := storeContext(ctx, tx, run, path); err != nil {
				return err
			}
		}
		// The frames' reasons are this question's too: a frame missing
		// is a function missing from its events' paths.
		if _, err := tx.ExecContext(ctx, "INSERT INTO pmm_incomplete (run, question, reason, position) "+
			"SELECT run, ?, 'calling contexts: ' || reason, position FROM pmm_incomplete WHERE run = ? AND question = ? "+
			"AND NOT EXISTS (SELECT 1 FROM pmm_incomplete i WHERE i.run = ? AND i.question = ? AND i.reason = 'calling contexts: ' || pmm_incomplete.reason)",
			t.Question, run, spec.FramesQuestion, run, t.Question); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// storeContext inserts path and its ancestors into the tree of run.
func storeContext(ctx context.Context, tx *sql.Tx, run int64, path string) error {
	names := strings.Split(path, ";")
	for i := range names {
		var parent any
		if i > 0 {
			parent = strings.Join(names[:i], ";")
		}
		if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO "+schema.ContextsTable+" (run, context, parent, function, depth) VALUES (?, ?, ?, ?, ?)",
			run, strings.Join(names[:i+1], ";"), parent, names[i], i+1); err != nil {
			return err
		}
	}
	return nil
}

// tableOf returns the table of kind prim among tables, or nil.
func tableOf(tables []schema.Table, prim string) *schema.Table {
	for i := range tables {
		if tables[i].Prim == prim {
			return &tables[i]
		}
	}
	return nil
}

// readFrames reads the executions the frames question recorded in run,
// with their ends, goroutines and functions.
func readFrames(ctx context.Context, tx *sql.Tx, tables []schema.Table, run int64) ([]ctxFrame, error) {
	exec, end, g := tableOf(tables, spec.Lookup(spec.TypeFunctionExecution).Table), tableOf(tables, schema.KindEnd), tableOf(tables, spec.AttrGoroutine)
	if exec == nil || end == nil || g == nil {
		return nil, fmt.Errorf("the frames question %s lacks its executions, ends or goroutines", spec.FramesQuestion)
	}
	rows, err := tx.QueryContext(ctx, "SELECT DISTINCT x.id, coalesce(e.seq, 0), g.g, s.function FROM "+exec.Name+" x "+
		"JOIN "+schema.SiteVarsTable+" v ON v.site = x.site AND v.question = ? AND v.var = ? "+
		"JOIN "+schema.SitesTable+" s ON s.site = x.site "+
		"JOIN "+g.Name+" g ON g.run = x.run AND g.id = x.id "+
		"LEFT JOIN "+end.Name+" e ON e.run = x.run AND e.id = x.id WHERE x.run = ?", spec.FramesQuestion, spec.FramesVar, run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ctxFrame
	for rows.Next() {
		var f ctxFrame
		if err := rows.Scan(&f.id, &f.end, &f.g, &f.function); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// readContextEvents reads the events of calling-context table t of run,
// with the goroutine its column holds and their sites' functions, from
// the question's tables of events.
func readContextEvents(ctx context.Context, tx *sql.Tx, t schema.Table, tables []schema.Table, run int64) ([]ctxEvent, error) {
	var parts []string
	for _, et := range tables {
		if !schema.IsExecutions(et.Prim) {
			continue
		}
		instant := 0
		for _, p := range spec.Vocabulary() {
			if p.Table == et.Prim && spec.IsInstant(p.Name) {
				instant = 1
			}
		}
		parts = append(parts, fmt.Sprintf("SELECT run, id, site, %d AS instant FROM %s", instant, et.Name))
	}
	if len(parts) == 0 {
		return nil, nil
	}
	column := t.Columns[len(t.Columns)-1].Name
	rows, err := tx.QueryContext(ctx, "SELECT DISTINCT c.id, c."+column+", s.function, e.instant FROM "+t.Name+" c "+
		"JOIN ("+strings.Join(parts, " UNION ALL ")+") e ON e.run = c.run AND e.id = c.id "+
		"JOIN "+schema.SitesTable+" s ON s.site = e.site WHERE c.run = ?", run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ctxEvent
	for rows.Next() {
		var e ctxEvent
		if err := rows.Scan(&e.id, &e.g, &e.function, &e.instant); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// userQuestions are the questions of p but the frames question, which
// pmm adds and answers only when named: its answer is every frame.
func userQuestions(p *plan.Project) []string {
	return slices.DeleteFunc(slices.Clone(p.Questions), func(q string) bool { return q == spec.FramesQuestion })
}
