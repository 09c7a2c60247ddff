package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/golden"
)

// TestIncompleteAnswers runs testdata/incomplete, whose questions pmm
// cannot all answer exactly, and checks that every answer that differs
// from the program's own count says it is incomplete, where and why, and
// that the one answered exactly says nothing:
//   - areas-in-total: Total's interface call may run an unexported
//     method of another package, which the site cannot name in a type
//     switch: exact, the site tells it by the dynamic type's name;
//   - safes-in-risky: the deferred call of safe, which recovers, stays
//     direct, the site's code deferred around it: exact;
//   - top-fibs: Fib's executions are recorded at its definition, the
//     calls relation of the negation at the call sites in Fib's body,
//     which publish the id the definition adopts: exact;
//   - leaves-in-apply: apply's function value may run leaf or direct:
//     exact, the site tells by the value's code pointer which one runs;
//   - tris-in-measure: measure's function value may be tri.Size's
//     method value, which the site tells apart, or the interface Sized's,
//     whose wrapper every dynamic type shares: the calls through it are
//     missing;
//   - riskies, crashes: exact.
//
// Then it runs the program so that crash ends it with os.Exit(3): the
// execution of crash is not recorded, and every answer says that
// executions running at the end are missing.
func TestIncompleteAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an instrumented program")
	}
	dir := copyModule(t, "../../testdata/incomplete")
	code, out, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm")
	if code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
	}
	containsAll(t, "pmm instrument", out, "1 of 7 answers may be incomplete")
	code, progOut, errOut := runPMM(t, dir, "run", ".")
	if code != exitOK {
		t.Fatalf("pmm run: exit %d\n%s%s", code, progOut, errOut)
	}
	// The program's own counts: lines "QUESTION N".
	own := map[string]int64{}
	sc := bufio.NewScanner(strings.NewReader(progOut))
	for sc.Scan() {
		if name, n, ok := strings.Cut(sc.Text(), " "); ok {
			if v, err := strconv.ParseInt(n, 10, 64); err == nil {
				own[name] = v
			}
		}
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	type flagged struct{ position, reason string }
	want := map[string]flagged{
		"areas-in-total":  {},
		"safes-in-risky":  {},
		"leaves-in-apply": {},
		"tris-in-measure": {"main.go:79:41", "may run main.tri.Size through the interface method value Size taken at main.go:119:19"},
		"top-fibs":        {},
		"riskies":         {},
		"crashes":         {},
	}
	for q, w := range want {
		counts := queryStrings(t, db, "SELECT count FROM "+strings.ReplaceAll(q, "-", "_"))
		got := int64(0) // a count over no tuples has no row
		if len(counts) == 1 {
			got, _ = strconv.ParseInt(counts[0], 10, 64)
		}
		mine, ok := own[q]
		if !ok {
			t.Fatalf("the program printed no count for %s:\n%s", q, progOut)
		}
		notes := queryStrings(t, db, "SELECT position || ' ' || reason FROM pmm_incomplete WHERE question = '"+q+"'")
		if w.position == "" {
			if got != mine || len(notes) > 0 {
				t.Errorf("%s: %d (the program counts %d), notes %q: want exact, without notes", q, got, mine, notes)
			}
			continue
		}
		// The answer is indeed incomplete...
		if got == mine {
			t.Errorf("%s: %d, as the program counts: the case no longer shows an incomplete answer", q, got)
		}
		// ... and says so, where and why.
		if len(notes) != 1 || !strings.HasPrefix(notes[0], w.position+" event x: ") || !strings.Contains(notes[0], w.reason) {
			t.Errorf("%s: notes %q, want one at %s saying %q", q, notes, w.position, w.reason)
		}
	}

	code, answer, errOut := runPMM(t, dir, "answer")
	if code != exitOK {
		t.Fatalf("pmm answer: exit %d\n%s", code, errOut)
	}
	golden.Check(t, "testdata/answer_incomplete.golden", answer, *update)

	code, out, errOut = runPMM(t, dir, "stats")
	if code != exitOK {
		t.Fatalf("pmm stats: exit %d\n%s", code, errOut)
	}
	containsAll(t, "pmm stats", out, "1 of 7 answers are incomplete (tris-in-measure): pmm answer says why")

	code, progOut, errOut = runPMM(t, dir, "run", ".", "--", "crash")
	if code != 3 || !strings.Contains(progOut, "crashes 1") {
		t.Fatalf("pmm run . -- crash: exit %d, want the program's 3, and its count of crash\n%s%s", code, progOut, errOut)
	}
	// crash began and never ended: it is an execution all the same (the
	// reference semantics), counted when it began, as the program counts it.
	if got := queryStrings(t, db, "SELECT count FROM crashes WHERE run = 2"); len(got) != 1 || got[0] != "1" {
		t.Errorf("the execution of crash that never ended, counted: %v, want [1]", got)
	}
	ended := queryStrings(t, db, "SELECT question FROM pmm_incomplete WHERE run = 2 AND position IS NULL AND reason LIKE 'the program ended with exit status 3: %'")
	if len(ended) != len(want) {
		t.Errorf("answers that say the program ended with executions running: %q, want all %d", ended, len(want))
	}

	code, out, errOut = runPMM(t, dir, "answer", "--run", "1", "--json", "riskies", "tris-in-measure")
	if code != exitOK {
		t.Fatalf("pmm answer --json: exit %d\n%s", code, errOut)
	}
	var doc jsonAnswers
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("pmm answer --json: %v\n%s", err, out)
	}
	if doc.Incomplete != 1 || doc.Questions != 2 || len(doc.Answers) != 2 ||
		len(doc.Answers[0].Incomplete) != 0 || len(doc.Answers[1].Incomplete) != 1 || doc.Answers[1].Incomplete[0].Position != "main.go:79:41" {
		t.Errorf("pmm answer --json:\n%s", out)
	}
	containsAll(t, "pmm answer --json's stderr", errOut, "1 of 2 answers are incomplete")
}

// TestIncompleteEveryMode checks that every mode knows the same answers
// of testdata/incomplete are incomplete, at the same sites: without static
// approximation every function is selected, but only those
// approximation would keep can be events whose loss matters (riskies
// stays exact: no function pmm cannot record may be main.risky).
func TestIncompleteEveryMode(t *testing.T) {
	want := "tris-in-measure x main.go:79:41"
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		dir := copyModule(t, "../../testdata/incomplete")
		code, out, errOut := runPMM(t, dir, "instrument", "--mode", mode, "./...", "questions.pmm")
		if code != exitOK {
			t.Fatalf("pmm instrument --mode %s: exit %d\n%s%s", mode, code, out, errOut)
		}
		p, code := readProject(&env{stdout: io.Discard, stderr: io.Discard, dir: dir}, "answer")
		if p == nil {
			t.Fatalf("reading plan.json: exit %d", code)
		}
		var got []string
		for _, r := range p.Incomplete {
			got = append(got, r.Question+" "+strings.Join(r.Vars, ",")+" "+r.Position)
		}
		if strings.Join(got, "; ") != want {
			t.Errorf("--mode %s: incomplete\n%s\nwant\n%s", mode, strings.Join(got, "; "), want)
		}
	}
}

// TestIncompleteWithoutTests runs the test of testdata/untested, which
// calls strings.Repeat twice, once from its test file: instrumented
// without --tests, pmm test records one and says the calls in test files
// are missing; with --tests it records both and says nothing of tests.
func TestIncompleteWithoutTests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented tests")
	}
	const untested = "the calls in test files are not recorded"
	for _, c := range []struct {
		flags    []string
		count    string
		untested bool
	}{
		{nil, "1", true},
		{[]string{"--tests"}, "2", false},
	} {
		dir := copyModule(t, "../../testdata/untested")
		args := append(append([]string{"instrument"}, c.flags...), "./...", "questions.pmm")
		if code, out, errOut := runPMM(t, dir, args...); code != exitOK {
			t.Fatalf("pmm %v: exit %d\n%s%s", args, code, out, errOut)
		}
		if code, out, errOut := runPMM(t, dir, "test", "./..."); code != exitOK {
			t.Fatalf("pmm test: exit %d\n%s%s", code, out, errOut)
		}
		code, out, errOut := runPMM(t, dir, "answer")
		if code != exitOK {
			t.Fatalf("pmm answer: exit %d\n%s", code, errOut)
		}
		lines := strings.Split(out, "\n")
		if len(lines) < 3 || lines[2] != c.count {
			t.Errorf("%v: count of strings.Repeat:\n%s\nwant %s", c.flags, out, c.count)
		}
		if strings.Contains(out, untested) != c.untested {
			t.Errorf("%v: says %q: %v, want %v:\n%s", c.flags, untested, !c.untested, c.untested, out)
		}
	}
}

// TestCompensatedDurations checks that the durations of a function
// inside which other instrumented executions read the clock say they are
// compensated for them (issue 10: each adds more than the 50 ns allowed,
// and pmm subtracts it), and that nothing else does: testdata/nested's
// Outer calls Leaf; its durations alone, or with a calls* question over
// Leaf, are not compensated; with Leaf's durations, Outer's are, and
// Leaf's (which call nothing) are not. Then it runs the program with
// Leaf's durations: every execution of Outer is recorded, with a
// duration never below zero (what is subtracted is never more than the
// interval), and so is every execution of Leaf. How close the
// compensated duration comes to the program's own is a benchmark's
// (BenchmarkNestedBias), not a test's: on a loaded machine the cost
// calibrated when the run starts may exceed what the nested recording
// cost in some execution, whose duration is then 0 (seen: 23 of 50
// under two test suites at once).
func TestCompensatedDurations(t *testing.T) {
	for _, c := range []struct {
		second string
		want   []string // the questions compensated
	}{{"", nil}, {"calls.pmm", nil}, {"timed.pmm", []string{"outer-durations"}}} {
		dir := copyModule(t, "../../testdata/nested")
		args := []string{"instrument", "./...", "questions.pmm"}
		if c.second != "" {
			args = append(args, c.second)
		}
		if code, out, errOut := runPMM(t, dir, args...); code != exitOK {
			t.Fatalf("pmm instrument with %q: exit %d\n%s%s", c.second, code, out, errOut)
		}
		p, code := readProject(&env{dir: dir}, "test")
		if code != exitOK {
			t.Fatalf("with %q: no plan", c.second)
		}
		var got []string
		for _, r := range p.Incomplete {
			if strings.Contains(r.Reason, "compensated") {
				got = append(got, r.Question)
				if !strings.Contains(r.Reason, "main.Outer") || !strings.Contains(r.Reason, "main.Leaf (main.go:") {
					t.Errorf("with %q: the reason names neither the duration's function nor the nested one: %s", c.second, r.Reason)
				}
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("with %q: durations compensated in %q, want %q", c.second, got, c.want)
		}
		if c.second != "timed.pmm" {
			continue
		}
		if code, out, errOut := runPMM(t, dir, "run", ".", "--", "-rounds", "50"); code != exitOK {
			t.Fatalf("pmm run: exit %d\n%s%s", code, out, errOut)
		}
		db := openDB(t, dir)
		defer db.Close()
		for _, q := range []struct{ query, want string }{
			{"SELECT count(*), count(CASE WHEN d >= 0 THEN 1 END) FROM outer_durations", "50 50"},
			{"SELECT count(*), count(CASE WHEN d >= 0 THEN 1 END) FROM leaf_durations", "5000 5000"},
		} {
			if got := strings.Join(queryStrings(t, db, q.query), "; "); got != q.want {
				t.Errorf("%s: %s, want %s", q.query, got, q.want)
			}
		}
	}
}

// TestHotFunctionsWarning checks the warning before a run that records
// every execution of functions that may run often: testdata/cache's G,
// called in a loop of F, is recorded at each execution in --mode
// straightforward (no run-time filters), and pmm instrument and pmm run
// say so, naming the loop; in the default mode its executions are held
// and tested at run time, and neither warns.
func TestHotFunctionsWarning(t *testing.T) {
	for _, c := range []struct {
		mode string
		warn bool
	}{{"combined", false}, {"straightforward", true}} {
		dir := copyModule(t, "../../testdata/cache")
		code, out, errOut := runPMM(t, dir, "instrument", "-mode", c.mode, "./...", "questions.pmm")
		if code != exitOK {
			t.Fatalf("pmm instrument -mode %s: exit %d\n%s%s", c.mode, code, out, errOut)
		}
		const g = "main.G (called in a loop at main.go:29:8)"
		if got := strings.Contains(errOut, "may run often is recorded") && strings.Contains(errOut, g); got != c.warn {
			t.Errorf("-mode %s: pmm instrument warns of %s: %v, want %v:\n%s", c.mode, g, got, c.warn, errOut)
		}
		code, out, errOut = runPMM(t, dir, "run", ".")
		if code != exitOK {
			t.Fatalf("pmm run: exit %d\n%s%s", code, out, errOut)
		}
		if got := strings.Contains(errOut, "pmm run: warning: every execution of 4 functions that may run often"); got != c.warn {
			t.Errorf("-mode %s: pmm run warns: %v, want %v:\n%s", c.mode, got, c.warn, errOut)
		}
	}
}

// TestPlacedReasons: a reason met at several positions is one line, its
// positions listed up to three, in the order the reasons come.
func TestPlacedReasons(t *testing.T) {
	got := placedReasons([]placedReason{
		{"a dynamic call", "a.go:1:1"}, {"no source", ""}, {"a dynamic call", "a.go:2:1"},
		{"a dynamic call", "b.go:3:1"}, {"a dynamic call", "b.go:4:1"}, {"a dynamic call", "b.go:5:1"},
		{"one site", "c.go:1:1"},
	})
	want := []string{
		"a dynamic call (a.go:1:1, a.go:2:1, b.go:3:1 and 2 more)",
		"no source",
		"one site (c.go:1:1)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("placedReasons:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
