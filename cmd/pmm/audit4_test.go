package main

import (
	"database/sql"
	"testing"
)

// TestCallbackCallers runs testdata/callbackcallers in every mode: the
// direct caller of a closure sort.Slice calls, of a function reflection
// calls, and the spawner of a closure sync.WaitGroup.Go starts, are
// functions outside the module that no site records. pmm found those
// questions empty, refused them, and with -allow-empty answered nothing
// without a word; they must be instrumented and said incomplete, while
// the executions and calls* (which follows callbacks) stay exact.
func TestCallbackCallers(t *testing.T) {
	wantInEveryModeThen(t, "../../testdata/callbackcallers", map[string]string{
		"less_calls":    "SELECT count FROM exec_counts WHERE f = 'main.less'",
		"doubles":       "SELECT count FROM exec_counts WHERE f = 'main.Double'",
		"jobs":          "SELECT count FROM exec_counts WHERE f = 'main.fanOut.func1'",
		"closure_calls": "SELECT count FROM closure_under_sort",
	}, func(t *testing.T, mode string, want map[string]string, db *sql.DB) {
		for _, q := range []string{"closure-callers", "double-callers", "job-spawners"} {
			if got := queryStrings(t, db, "SELECT count(*) FROM pmm_incomplete WHERE question = '"+q+"' AND reason LIKE '%code outside the module may call%'"); len(got) != 1 || got[0] == "0" {
				t.Errorf("%s is not said incomplete: %v", q, queryStrings(t, db, "SELECT reason FROM pmm_incomplete WHERE question = '"+q+"'"))
			}
		}
		if got := queryStrings(t, db, "SELECT count(*) FROM pmm_incomplete WHERE question = 'closure-under-sort'"); len(got) != 1 || got[0] != "0" {
			t.Errorf("closure-under-sort is said incomplete: %v", queryStrings(t, db, "SELECT reason FROM pmm_incomplete WHERE question = 'closure-under-sort'"))
		}
	})
}

// TestFloatArgs runs testdata/floatargs in every mode: a call repeats an
// earlier one when Go's == finds their arguments equal, as a map keyed
// by them would. A NaN in a parameter list was recorded as the text
// "NaN", equal to itself, and -0 as "-0", unequal to 0.
func TestFloatArgs(t *testing.T) {
	wantInEveryMode(t, "../../testdata/floatargs", map[string]string{
		"scale_repeats":       "SELECT coalesce(sum(count), 0) FROM repeats WHERE f = 'main.scale'",
		"pair_repeats":        "SELECT coalesce(sum(count), 0) FROM repeats WHERE f = 'main.pair'",
		"scale_param_repeats": "SELECT coalesce(sum(count), 0) FROM param_repeats",
	})
}
