package main

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// The regression tests of issue 10's failure classes: each builds and
// runs a program of testdata written for its class, in every mode, and
// compares the answers with what the program counts for itself.

var allModes = []string{modeStraightforward, modeStatic, modeRuntime, modeCombined}

// instrumentInMode copies module, instruments it with its questions.pmm in
// mode, runs it, and returns the program's standard output and the
// database. The instrumentation must leave no site out.
func instrumentInMode(t *testing.T, module, mode string, runArgs ...string) (string, *sql.DB) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	dir := copyModule(t, module)
	code, out, errOut := runPMM(t, dir, "instrument", "--mode", mode, "./...", "questions.pmm")
	if code != exitOK {
		t.Fatalf("--mode %s: pmm instrument: exit %d\n%s%s", mode, code, out, errOut)
	}
	if strings.Contains(errOut, "not instrumented") {
		t.Errorf("--mode %s: pmm instrument left sites out:\n%s", mode, errOut)
	}
	code, out, errOut = runPMM(t, dir, append([]string{"run", "."}, runArgs...)...)
	if code != exitOK {
		t.Fatalf("--mode %s: pmm run: exit %d\n%s%s", mode, code, out, errOut)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return out, db
}

// wantLines returns the "want NAME VALUE" lines a program printed.
func wantLines(out string) map[string]string {
	want := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "want" {
			want[f[1]] = f[2]
		}
	}
	return want
}

// TestCrowdedSites is class 1: a dozen questions, and the branches of
// ors that name one variable in several disjuncts, meet at every site of
// testdata/crowded; calls are made inside a generic function. The
// helpers must declare each state field once, and reach only the state
// they have, so that every mode builds every site; and every answer is
// the program's own count.
func TestCrowdedSites(t *testing.T) {
	queries := map[string]string{
		"a_or_b":             "SELECT count(DISTINCT x) FROM a_or_b",
		"a_or_c_under_main":  "SELECT count(DISTINCT x) FROM a_or_c_under_main",
		"b_called_by_a_or_c": "SELECT count(DISTINCT b) FROM b_called_by_a_or_c",
		"b_under_a_or_c":     "SELECT count(DISTINCT b) FROM b_under_a_or_c",
		"b_in_a":             "SELECT count(DISTINCT b) FROM b_in_a",
		"a_calling_c":        "SELECT count(DISTINCT a) FROM a_calling_c",
		"a_without_c":        "SELECT count(DISTINCT a) FROM a_without_c",
		"even_a":             "SELECT count(DISTINCT a) FROM even_a",
		"count_b":            "SELECT count FROM count_b",
		"sum_a":              "SELECT sum FROM sum_a",
	}
	for _, mode := range allModes {
		t.Run(mode, func(t *testing.T) {
			out, db := instrumentInMode(t, "../../testdata/crowded", mode)
			want := wantLines(out)
			if len(want) != len(queries) {
				t.Fatalf("the program printed %d want lines, the test asks %d questions:\n%s", len(want), len(queries), out)
			}
			for name, q := range queries {
				if got := queryStrings(t, db, q); len(got) != 1 || got[0] != want[name] {
					t.Errorf("%s: %v, the program counted %s", name, got, want[name])
				}
			}
		})
	}
}
