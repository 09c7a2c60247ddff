package main

import "testing"

// TestBlankTypeParams runs testdata/blanktparams in every mode: methods
// whose receivers leave type parameters blank (Map[_, V], Map[_, _])
// were not instrumented ("its type parameter 1 is blank"), and their
// executions, results and receivers were missing from the answers.
func TestBlankTypeParams(t *testing.T) {
	wantInEveryMode(t, "../../testdata/blanktparams", map[string]string{
		"lens":           "SELECT count FROM per_method WHERE f = 'main.(*Map[...]).Len'",
		"vals":           "SELECT count FROM per_method WHERE f = 'main.(*Map[...]).Vals'",
		"lens_sum":       "SELECT sum(n) FROM lens",
		"vals_receivers": "SELECT count(DISTINCT r) FROM vals_receivers",
	})
}
