package main

import (
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"pmm.dev/pmm/plan"
)

// hotFunctions estimates, from the static database at dbPath, which of
// the functions whose every execution the plan records as tuples (a site
// of it emits tuples, and no run-time test of it can drop one:
// plan.ProjectSite.Every) may run often: one called in a loop
// (calls.loop_depth, the deepest call first), or one that calls itself.
// How often is the run's to say; the estimate is enough to warn before a
// run that may record millions of tuples (issue 12: a calls* question
// over every function of gjson wrote 2.4 GB of log in its tests).
func hotFunctions(dbPath string, pr *plan.Project) ([]plan.HotFunction, error) {
	every := map[string]bool{}
	for _, s := range pr.Sites {
		if s.Every {
			every[s.Function] = true
		}
	}
	if len(every) == 0 {
		return nil, nil
	}
	db, err := openStatic(dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	why, err := hotReasons(db)
	if err != nil {
		return nil, err
	}
	var out []plan.HotFunction
	for f := range every {
		if why[f] != "" {
			out = append(out, plan.HotFunction{Function: f, Why: why[f]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Function < out[j].Function })
	return out, nil
}

// hotReasons says, by name, why the functions of the static database db
// that may run often may: the deepest loop of a call of theirs (the
// first in source order among the deepest), else recursion. Two queries
// for them all: one per function recorded at every execution took a
// tenth of a second on expr-lang/expr.
func hotReasons(db *sql.DB) (map[string]string, error) {
	why := map[string]string{}
	rows, err := db.Query(`SELECT g.name, c.file, c.line, c.col, c.loop_depth FROM functions g
		JOIN call_targets t ON t.callee_id = g.id JOIN calls c ON c.id = t.call_id
		WHERE c.loop_depth > 0 ORDER BY g.name, c.loop_depth DESC, c.file, c.line, c.col`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name, file string
		var line, col, depth int
		if err := rows.Scan(&name, &file, &line, &col, &depth); err != nil {
			return nil, err
		}
		if why[name] != "" {
			continue // a deeper loop, or the same earlier in the source
		}
		loops := "a loop"
		if depth > 1 {
			loops = fmt.Sprintf("%d nested loops", depth)
		}
		why[name] = fmt.Sprintf("called in %s at %s:%d:%d", loops, file, line, col)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	recursive, err := db.Query(`SELECT DISTINCT g.name FROM functions g JOIN calls c ON c.caller_id = g.id
		JOIN call_targets t ON t.call_id = c.id AND t.callee_id = g.id`)
	if err != nil {
		return nil, err
	}
	defer recursive.Close()
	for recursive.Next() {
		var name string
		if err := recursive.Scan(&name); err != nil {
			return nil, err
		}
		if why[name] == "" {
			why[name] = "recursive"
		}
	}
	return why, recursive.Err()
}

// hotWarning is the warning of pmm instrument and pmm run about hot, or
// "" when there are none.
func hotWarning(hot []plan.HotFunction) string {
	if len(hot) == 0 {
		return ""
	}
	var names []string
	for i, h := range hot {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more (.pmm/plan.json lists them under \"hot\")", len(hot)-3))
			break
		}
		names = append(names, h.Function+" ("+h.Why+")")
	}
	return fmt.Sprintf("every execution of %s that may run often is recorded, a tuple each: %s; a long run may record millions of tuples, "+
		"gigabytes of log, and run several times slower\n\thint: an aggregate (count, sum, average, min, max) keeps cells instead of tuples; "+
		"a narrower question (a caller, a parameter) records only the executions it needs",
		plural(len(hot), "function"), strings.Join(names, ", "))
}
