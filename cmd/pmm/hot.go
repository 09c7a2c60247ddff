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
	var out []plan.HotFunction
	for f := range every {
		why, err := hotBecause(db, f)
		if err != nil {
			return nil, err
		}
		if why != "" {
			out = append(out, plan.HotFunction{Function: f, Why: why})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Function < out[j].Function })
	return out, nil
}

// hotBecause says why function f may run often, or "".
func hotBecause(db *sql.DB, f string) (string, error) {
	var file string
	var line, col, depth int
	err := db.QueryRow(`SELECT c.file, c.line, c.col, c.loop_depth FROM functions g
		JOIN call_targets t ON t.callee_id = g.id JOIN calls c ON c.id = t.call_id
		WHERE g.name = ? AND c.loop_depth > 0 ORDER BY c.loop_depth DESC, c.file, c.line, c.col LIMIT 1`, f).Scan(&file, &line, &col, &depth)
	switch {
	case err == nil:
		loops := "a loop"
		if depth > 1 {
			loops = fmt.Sprintf("%d nested loops", depth)
		}
		return fmt.Sprintf("called in %s at %s:%d:%d", loops, file, line, col), nil
	case err != sql.ErrNoRows:
		return "", err
	}
	var n int
	err = db.QueryRow(`SELECT count(*) FROM functions g JOIN calls c ON c.caller_id = g.id
		JOIN call_targets t ON t.call_id = c.id AND t.callee_id = g.id WHERE g.name = ?`, f).Scan(&n)
	if err != nil || n == 0 {
		return "", err
	}
	return "recursive", nil
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
