package main

import "testing"

// TestDeferredPanicAfterReturn runs testdata/deferpanics in every mode:
// executions whose return statement ran and whose own deferred calls
// then panicked (lateFail) or called runtime.Goexit (lateExit) did not
// return, so they have no results and panicked; one whose deferred call
// panicked and another recovered (selfCatch) returned. pmm took every
// execution whose return statement ran for one that returned.
func TestDeferredPanicAfterReturn(t *testing.T) {
	wantInEveryMode(t, "../../testdata/deferpanics", map[string]string{
		"late_returned": "SELECT count FROM end_counts WHERE f = 'main.lateFail' AND p = 0",
		"late_panicked": "SELECT count FROM end_counts WHERE f = 'main.lateFail' AND p = 1",
		"late_sum":      "SELECT sum(v) FROM results WHERE f = 'main.lateFail'",
		"exit_panicked": "SELECT count FROM end_counts WHERE f = 'main.lateExit' AND p = 1",
		"exit_results":  "SELECT count(*) FROM results WHERE f = 'main.lateExit'",
		"self_returned": "SELECT count FROM end_counts WHERE f = 'main.selfCatch' AND p = 0",
		"self_result":   "SELECT v FROM results WHERE f = 'main.selfCatch'",
	})
}
