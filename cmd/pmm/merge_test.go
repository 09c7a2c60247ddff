package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// manyRunsWorkload is what testdata/manyruns calls Get with, by the name
// of the workload: (key, size) pairs.
func manyRunsWorkload(names ...string) [][2]any {
	var calls [][2]any
	for _, w := range names {
		switch w {
		case "a":
			for i := 0; i < 10; i++ {
				calls = append(calls, [2]any{"x", i}, [2]any{"y", 2 * i})
			}
		case "b":
			for i := 0; i < 5; i++ {
				calls = append(calls, [2]any{"x", 100 + i}, [2]any{"z", 7})
			}
		}
	}
	return calls
}

// manyRunsWant is each aggregate of testdata/manyruns over calls, as
// pmm answer -format json prints its rows (a map by key, as text).
func manyRunsWant(calls [][2]any) map[string]string {
	type acc struct{ n, sum, lo, hi int }
	by := map[string]*acc{}
	all := &acc{}
	for _, c := range calls {
		k, v := c[0].(string), c[1].(int)
		a := by[k]
		if a == nil {
			a = &acc{lo: v, hi: v}
			by[k] = a
		}
		a.n, a.sum, a.lo, a.hi = a.n+1, a.sum+v, min(a.lo, v), max(a.hi, v)
		all.n, all.sum = all.n+1, all.sum+v
	}
	want := map[string]string{}
	keyed := func(f func(a *acc) string) string {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(by)) {
			parts = append(parts, k+"="+f(by[k]))
		}
		return strings.Join(parts, " ")
	}
	want["count-per-key"] = keyed(func(a *acc) string { return fmt.Sprint(a.n) })
	want["sum-per-key"] = keyed(func(a *acc) string { return fmt.Sprint(a.sum) })
	want["min-per-key"] = keyed(func(a *acc) string { return fmt.Sprint(a.lo) })
	want["max-per-key"] = keyed(func(a *acc) string { return fmt.Sprint(a.hi) })
	want["mean-per-key"] = keyed(func(a *acc) string { return fmt.Sprint(float64(a.sum) / float64(a.n)) })
	want["mean-size"] = fmt.Sprint(float64(all.sum) / float64(all.n))
	want["gets"] = fmt.Sprint(len(calls))
	return want
}

// manyRunsAnswers are the answers of testdata/manyruns in dir over every
// run, in manyRunsWant's form.
func manyRunsAnswers(t *testing.T, dir string) map[string]string {
	t.Helper()
	code, out, errOut := runPMM(t, dir, "answer", "-all-runs", "-format", "json")
	if code != exitOK {
		t.Fatalf("pmm answer -all-runs: exit %d\n%s", code, errOut)
	}
	var doc struct {
		Answers []struct {
			Question string
			Rows     []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]string{}
	for _, a := range doc.Answers {
		if a.Question == "gets" {
			got[a.Question] = fmt.Sprint(len(a.Rows))
			continue
		}
		var parts []string
		for _, r := range a.Rows {
			if _, ok := r["run"]; ok {
				t.Errorf("%s: an aggregate over every run has a run column: %v", a.Question, r)
			}
			var value any
			key := ""
			for col, v := range r {
				if col == "key_" {
					key = fmt.Sprint(v) + "="
				} else {
					value = v
				}
			}
			parts = append(parts, key+fmt.Sprint(value))
		}
		slices.Sort(parts)
		got[a.Question] = strings.Join(parts, " ")
	}
	return got
}

// TestManyRuns checks pmm answer -all-runs and pmm merge against the
// fixed workloads of testdata/manyruns: the aggregates over a run of a
// and a run of b, in one database or merged from two, are those of the
// calls of both (counts and sums add, minima and maxima combine, an
// average weighs each run by its calls, not each run alike).
func TestManyRuns(t *testing.T) {
	want := manyRunsWant(manyRunsWorkload("a", "b"))
	// The per-run averages of x are 4.5 and 102; their mean is not the answer.
	if !strings.Contains(want["mean-per-key"], "x=37") {
		t.Fatalf("the workload changed: %v", want)
	}

	// Two runs in one database.
	both, _ := instrumentAndRun(t, "../../testdata/manyruns", "--", "a")
	if code, out, errOut := runPMM(t, both, "run", ".", "--", "b"); code != exitOK {
		t.Fatalf("pmm run: exit %d\n%s%s", code, out, errOut)
	}
	if got := manyRunsAnswers(t, both); !maps.Equal(got, want) {
		t.Errorf("-all-runs over runs a and b:\n got %v\nwant %v", got, want)
	}

	// Two machines: a and b in two copies, merged into the first.
	first, _ := instrumentAndRun(t, "../../testdata/manyruns", "--", "a")
	if got, wantA := manyRunsAnswers(t, first), manyRunsWant(manyRunsWorkload("a")); !maps.Equal(got, wantA) {
		t.Errorf("run a:\n got %v\nwant %v", got, wantA)
	}
	second, _ := instrumentAndRun(t, "../../testdata/manyruns", "--", "b")
	other := filepath.Join(second, ".pmm", "pmm.db")
	for i, added := range []string{"1 run added", "0 runs added"} { // the second time, nothing new
		code, out, errOut := runPMM(t, first, "merge", other)
		if code != exitOK || !strings.Contains(out, added) {
			t.Fatalf("pmm merge (%d): exit %d, want %q\n%s%s", i+1, code, added, out, errOut)
		}
		if got := manyRunsAnswers(t, first); !maps.Equal(got, want) {
			t.Errorf("merged (%d):\n got %v\nwant %v", i+1, got, want)
		}
	}
	// Into a new file, from both: the same views, the same answers.
	merged := filepath.Join(t.TempDir(), "merged.db")
	if code, out, errOut := runPMM(t, first, "merge", "-o", merged, filepath.Join(first, ".pmm", "pmm.db")); code != exitOK {
		t.Fatalf("pmm merge -o: exit %d\n%s%s", code, out, errOut)
	}
	db, err := sql.Open("sqlite", merged)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := queryStrings(t, db, "SELECT group_concat(key_ || '=' || n, ' ') FROM (SELECT key_, sum(count) AS n FROM count_per_key GROUP BY key_ ORDER BY key_)"); got[0] != want["count-per-key"] {
		t.Errorf("count_per_key of the new file, summed over its runs: %v, want %s", got, want["count-per-key"])
	}

	// A database of another instrumentation: refused, nothing merged.
	alien, _ := instrumentAndRun(t, "../../testdata/fig41")
	code, _, errOut := runPMM(t, first, "merge", filepath.Join(alien, ".pmm", "pmm.db"))
	if code != exitUsage || !strings.Contains(errOut, "different instrumentations") {
		t.Errorf("merging another instrumentation's database: exit %d, want %d with why:\n%s", code, exitUsage, errOut)
	}
	if got := manyRunsAnswers(t, first); !maps.Equal(got, want) {
		t.Errorf("after a refused merge:\n got %v\nwant %v", got, want)
	}
}

// TestMergeFillsCopies: the runs merged from a database without the copy
// of a calls* question's goroutine table (a pmm before the copies) get
// their copy, so that the views, which read it, answer them: before, the
// merged runs had no rows until the next load into the target.
func TestMergeFillsCopies(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	dirs := [2]string{copyModule(t, "../../testdata/chain"), copyModule(t, "../../testdata/chain")}
	for _, dir := range dirs {
		if code, out, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
			t.Fatalf("pmm instrument: %s%s", out, errOut)
		}
		if code, out, errOut := runPMM(t, dir, "run", "."); code != exitOK {
			t.Fatalf("pmm run: %s%s", out, errOut)
		}
	}
	old, err := sql.Open("sqlite", filepath.Join(dirs[1], ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	copies := queryStrings(t, old, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%\\_by\\_g' ESCAPE '\\'")
	if len(copies) != 1 {
		t.Fatalf("copies of goroutine tables: %v, want one (the calls* question's)", copies)
	}
	if _, err := old.Exec("DROP TABLE " + quoteIdent(copies[0])); err != nil {
		t.Fatal(err)
	}
	old.Close()
	if code, out, errOut := runPMM(t, dirs[0], "merge", filepath.Join(dirs[1], ".pmm", "pmm.db")); code != exitOK {
		t.Fatalf("pmm merge: %s%s", out, errOut)
	}
	db, err := sql.Open("sqlite", filepath.Join(dirs[0], ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := queryStrings(t, db, "SELECT run || ':' || count(*) FROM chain GROUP BY run ORDER BY run")
	if len(got) != 2 || strings.TrimPrefix(got[0], "1:") != strings.TrimPrefix(got[1], "2:") || got[0] == "1:0" {
		t.Errorf("rows of chain by run: %v, want the same count for runs 1 and 2 (one program, run twice)", got)
	}
}
