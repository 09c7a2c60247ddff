package main

import (
	"strconv"
	"strings"
	"testing"
)

// TestDynamicTargets builds and runs testdata/dynamic in every mode: calls
// through function values (functions, a closure, method values, a
// generic instantiation, a method of a function type calling its
// receiver) and interfaces whose call graph has several targets (issue
// 10, class 2). The site tells at run time which function a call runs,
// so each caller's callees, counted by name, are what the program counts
// for itself, and no answer is flagged incomplete.
func TestDynamicTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			out, db := instrumentInMode(t, "../../testdata/dynamic", mode)
			// The program's "CALLER CALLEE N" lines.
			own := map[string]map[string]int{}
			for _, l := range strings.Split(out, "\n") {
				f := strings.Fields(l)
				if len(f) != 3 || !strings.HasPrefix(f[0], "main.") {
					continue
				}
				n, err := strconv.Atoi(f[2])
				if err != nil {
					t.Fatalf("line %q: %v", l, err)
				}
				if own[f[0]] == nil {
					own[f[0]] = map[string]int{}
				}
				own[f[0]][f[1]] = n
			}
			if len(own["main.apply"]) != 6 || len(own["main.Handler.Serve"]) != 2 || len(own["main.total"]) != 2 {
				t.Fatalf("the program did not call every target:\n%s", out)
			}
			for caller, table := range map[string]string{"main.apply": "apply_callees", "main.Handler.Serve": "serve_callees", "main.total": "total_callees"} {
				var want []string
				for fn, n := range own[caller] {
					want = append(want, fn+" "+strconv.Itoa(n))
				}
				got := queryStrings(t, db, "SELECT fn || ' ' || count FROM "+table+" ORDER BY fn")
				if strings.Join(got, "; ") != strings.Join(sortedCopy(want), "; ") {
					t.Errorf("the callees of %s: %q, the program counts %q", caller, got, sortedCopy(want))
				}
			}
			// One target among those the call may run.
			for q, callee := range map[string][2]string{
				"u2_in_apply_count":      {"main.apply", "main.U2"},
				"closure_in_apply_count": {"main.apply", "main.main.func1"},
				"ptr_m_in_apply_count":   {"main.apply", "main.(*Ptr).M"},
				"twice_in_apply_count":   {"main.apply", "main.Twice[...]"},
				"u5_in_serve_count":      {"main.Handler.Serve", "main.U5"},
				"circ_in_total_count":    {"main.total", "main.Circ.Area"},
			} {
				got := queryStrings(t, db, "SELECT count FROM "+q)
				if want := strconv.Itoa(own[callee[0]][callee[1]]); len(got) != 1 || got[0] != want {
					t.Errorf("%s: %v, the program counts %s", q, got, want)
				}
			}
			if notes := queryStrings(t, db, "SELECT question || ': ' || reason FROM pmm_incomplete"); len(notes) > 0 {
				t.Errorf("answers flagged incomplete: %q", notes)
			}
		})
	}
}
