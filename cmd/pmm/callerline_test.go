package main

import "testing"

// TestCallerLine builds and runs testdata/callerline, whose questions ask
// for the line of the call that started each execution (caller-line), in
// every mode, and compares the answers with the lines the program counted
// for itself.
func TestCallerLine(t *testing.T) {
	// The program's own runtime.Caller, in mark, stays a direct call:
	// the modes that record every function leave it out.
	wantInEveryMode(t, "../../testdata/callerline", callerLineQueries, "call of runtime.Caller not instrumented")
}

// callerLineQueries are the queries of the answers the program counts, by
// the name of its "want" lines.
var callerLineQueries = map[string]string{
	"square_lines": "SELECT group_concat(l || '=' || c, ',') FROM " +
		"(SELECT l, count(DISTINCT x) AS c FROM square_lines GROUP BY l ORDER BY l)",
	"shared_lines": "SELECT count(DISTINCT x) FROM shared_lines",
}
