package main

import (
	"strconv"
	"testing"
)

// TestCallbacksEndToEnd answers calls* questions whose callee only code
// outside the module calls (testdata/callbacks): the callbacks are
// recorded at their definitions, and the run-time test of calls* (same
// goroutine, nested begin and end) keeps the executions under the caller
// and drops the direct calls made elsewhere.
func TestCallbacksEndToEnd(t *testing.T) {
	_, db := instrumentAndRun(t, "../../testdata/callbacks")
	for _, c := range []struct {
		answer string
		want   int // -1: at least one
	}{
		{"slice_less", -1},   // sort.Slice's calls of the closure
		{"once_config", 1},   // setup runs twice, Do calls once; reload's call is not under setup
		{"map_shift", 5},     // one per rune of "hello"; direct's call is not under encode
		{"sprint_string", 2}, // show runs twice; direct's call is not under show
		{"logf_string", 1},
		{"sort_less", -1},
		{"not_reached", 0},
	} {
		got := queryStrings(t, db, "SELECT count(*) FROM "+c.answer)
		n, _ := strconv.Atoi(got[0])
		if c.want < 0 && n < 1 || c.want >= 0 && n != c.want {
			t.Errorf("%s: %d rows, want %d (-1: at least one)", c.answer, n, c.want)
		}
	}
}
