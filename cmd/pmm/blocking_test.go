package main

import (
	"database/sql"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestBlocking builds and runs testdata/blocking, whose goroutines block
// on a contended mutex, a channel of one slot, a select and a wait
// group, and range over channels, in plain and in generic code (a
// generic function in two instantiations, a method of a generic type),
// in every mode. pmm's count of each kind of operation, of the waits for
// the mutex by the caller of the function that waits, the case by which
// the select proceeded, and which operations are on one mutex or channel
// (by their addresses), must be the program's own; pmm's time blocked,
// measured inside the program's own measure of each operation with the
// same clock, must be at most the program's (how close it comes is
// logged, -v: it depends on the machine's load).
func TestBlocking(t *testing.T) {
	ops := map[string]string{"lock": "main.(*Server).Handle", "recv": "main.Consume", "select": "main.Pick", "send": "main.Produce", "wait": "main.main"}
	kinds := []string{"lock", "recv", "select", "send", "wait"}
	var counts []string
	for _, k := range kinds {
		counts = append(counts, fmt.Sprintf("'%s=' || (SELECT count(DISTINCT b) FROM block_times WHERE f = '%s' AND k = '%s')", k, ops[k], k))
	}
	queries := map[string]string{
		"counts":           "SELECT " + strings.Join(counts, " || ',' || "),
		"lock_by_caller":   "SELECT group_concat(c || '=' || n, ',') FROM (SELECT c, count(DISTINCT b) AS n FROM handle_waits GROUP BY c ORDER BY c)",
		"lock_under_serve": "SELECT count(DISTINCT b) FROM lock_under_serve",
		"range_receives":   "SELECT group_concat(substr(f, 6) || '=' || n, ',') FROM (SELECT f, count(DISTINCT b) AS n FROM range_receives GROUP BY f ORDER BY f)",
		"cases":            "SELECT group_concat(k || '=' || n, ',') FROM (SELECT DISTINCT k, n FROM cases ORDER BY k)",
		"mutex_objects":    "SELECT count(DISTINCT addr) || ':' || count(DISTINCT f) FROM mutex_objects WHERE addr <> 0",
		"ch_objects":       "SELECT count(DISTINCT addr) || ':' || count(DISTINCT f) FROM ch_objects WHERE addr <> 0",
		// Generic code: every instantiation's operations under the
		// generic function's name.
		"generic_counts":  "SELECT group_concat(f || ':' || k || '=' || n, ',') FROM (SELECT f, k, count(DISTINCT b) AS n FROM block_times WHERE f IN ('main.Relay[...]', 'main.(*Box[...]).Put') GROUP BY f, k ORDER BY f, k)",
		"generic_objects": "SELECT group_concat(f || '=' || n, ',') FROM (SELECT f, count(DISTINCT a) AS n FROM generic_objects WHERE a <> 0 GROUP BY f ORDER BY f)",
		"generic_cases":   "SELECT group_concat(k || '=' || n, ',') FROM (SELECT DISTINCT k, n FROM generic_cases ORDER BY k, n)",
	}
	wantInEveryModeThen(t, "../../testdata/blocking", queries, func(t *testing.T, mode string, want map[string]string, db *sql.DB) {
		for _, k := range []string{"lock", "recv", "select", "send"} {
			program, err := strconv.ParseInt(want["waited_"+k], 10, 64)
			if err != nil {
				t.Fatalf("waited_%s: %v", k, err)
			}
			got := queryStrings(t, db, fmt.Sprintf("SELECT coalesce(sum(d), 0) FROM (SELECT DISTINCT b, d FROM block_times WHERE f = '%s' AND k = '%s')", ops[k], k))
			pmm, err := strconv.ParseInt(got[0], 10, 64)
			if err != nil {
				t.Fatalf("waited_%s: pmm's %v: %v", k, got, err)
			}
			// Only the bound is sure: how much of the program's
			// measure is its own cost, or a preemption before pmm's
			// clock, depends on the machine (a figure: -v).
			if pmm > program {
				t.Errorf("%s: pmm's time blocked %d ns, more than the program's own measure around the operations, %d ns", k, pmm, program)
			}
			t.Logf("%s: pmm's time blocked %d ns, %.3f of the program's own measure around the operations", k, pmm, float64(pmm)/float64(program))
		}
	})
}

// TestBlocked builds and runs testdata/blockedops, whose operations block
// or not by construction (a Lock of a mutex main holds while goroutines
// wait for it, and of one no one else holds; sends on a buffered channel
// with room and on a full one; receives from a channel with a value and
// from an empty one), in every mode: operation-blocked must say which
// blocked as the program counts them, the duration of one that did not
// block is 0 and of one that did more; the question that asks only for
// those that blocked ((blocked b)) answers the program's count, and in
// the modes with run-time filters its sites record nothing of the
// operations that did not block (its stored relation has only the
// others). Of a select with a ready case and one that waits, the first
// did not block and the second did, and so of a range's receives of
// values and of its close, later; a WaitGroup.Wait is timed whole, and
// the answer that asks whether it blocked says it is incomplete.
func TestBlocked(t *testing.T) {
	queries := map[string]string{
		"ops":     "SELECT group_concat(k || '=' || n, ',') FROM (SELECT f || ':' || (CASE w WHEN 1 THEN 'true' ELSE 'false' END) AS k, count(DISTINCT b) AS n FROM ops GROUP BY k ORDER BY k)",
		"guarded": "SELECT group_concat(f || '=' || n, ',') FROM (SELECT f, count(DISTINCT b) AS n FROM guarded GROUP BY f ORDER BY f)",
		"picks":   "SELECT group_concat(k || '=' || n, ',') FROM (SELECT (CASE w WHEN 1 THEN 'true' ELSE 'false' END) AS k, count(DISTINCT b) AS n FROM whole WHERE f = 'main.Pick' GROUP BY k ORDER BY k)",
		"drains":  "SELECT group_concat(k || '=' || n, ',') FROM (SELECT (CASE w WHEN 1 THEN 'true' ELSE 'false' END) AS k, count(DISTINCT b) AS n FROM whole WHERE f = 'main.Drain' GROUP BY k ORDER BY k)",
	}
	wantInEveryModeThen(t, "../../testdata/blockedops", queries, func(t *testing.T, mode string, want map[string]string, db *sql.DB) {
		// Durations: 0 exactly where it did not block.
		for _, q := range []string{
			"SELECT count(*) FROM ops WHERE w = 0 AND d <> 0",
			"SELECT count(*) FROM ops WHERE w = 1 AND d <= 0",
			"SELECT count(*) FROM guarded WHERE d <= 0",
		} {
			if got := queryStrings(t, db, q); len(got) != 1 || got[0] != "0" {
				t.Errorf("%s: %v, want 0", q, got)
			}
		}
		// What the guarded question's sites recorded: only those
		// that blocked where run-time filters are on, all of them
		// elsewhere.
		recorded := 0
		for _, l := range []string{want["guarded"], want["unguarded"]} {
			for _, fn := range strings.Split(l, ",") {
				_, n, _ := strings.Cut(fn, "=")
				k, err := strconv.Atoi(n)
				if err != nil {
					t.Fatalf("want line %q: %v", l, err)
				}
				recorded += k
			}
			if mode == modeRuntime || mode == modeCombined {
				break
			}
		}
		if got := queryStrings(t, db, "SELECT count(*) FROM guarded__blocking"); len(got) != 1 || got[0] != strconv.Itoa(recorded) {
			t.Errorf("the guarded question's sites recorded %v operations, want %d", got, recorded)
		}
		// The waits are flagged, and only they.
		if got := queryStrings(t, db, "SELECT count(DISTINCT question || reason) || ' ' || min(question) || ' ' || min(reason) FROM pmm_incomplete"); len(got) != 1 ||
			!strings.HasPrefix(got[0], "1 whole ") || !strings.Contains(got[0], "WaitGroup).Wait") {
			t.Errorf("questions flagged incomplete: %v, want whole, at its Wait", got)
		}
	})
}

// TestSelectTerminating builds and runs testdata/selectreturn, whose
// functions end in a select that is a terminating statement (every case
// returns or panics; select {}), in every mode: the instrumented program
// must compile and print what the plain one prints, and the cases and
// results must be the ones the program takes.
func TestSelectTerminating(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	plain := exec.Command("go", "run", ".")
	plain.Dir = "../../testdata/selectreturn"
	want, err := plain.Output()
	if err != nil {
		t.Fatalf("go run: %v", err)
	}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			dir := copyModule(t, "../../testdata/selectreturn")
			if code, out, errOut := runPMM(t, dir, "instrument", "-mode", mode, "./...", "questions.pmm"); code != exitOK {
				t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut := runPMM(t, dir, "run", ".")
			if code != exitOK {
				t.Fatalf("pmm run: exit %d\n%s%s", code, out, errOut)
			}
			if !strings.Contains(out, string(want)) {
				t.Errorf("the instrumented program printed\n%s\nthe plain one\n%s", out, want)
			}
			db := openDB(t, dir)
			defer db.Close()
			if got := queryStrings(t, db, "SELECT group_concat(f || ':' || n || '=' || count, ',') FROM (SELECT * FROM case_counts ORDER BY f, n)"); got[0] != "main.Recv:1=1,main.Send:0=1" {
				t.Errorf("case-counts: %s, want main.Recv:1=1,main.Send:0=1", got[0])
			}
			if got := queryStrings(t, db, "SELECT group_concat(f || '=' || v, ',') FROM (SELECT DISTINCT f, v FROM results ORDER BY f)"); got[0] != "main.Forever=2,main.Recv=-1,main.Send=1" {
				t.Errorf("results: %s, want main.Forever=2,main.Recv=-1,main.Send=1", got[0])
			}
		})
	}
}
