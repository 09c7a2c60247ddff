package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"pmm.dev/pmm/schema"
)

// treeHashes hashes every file of the module outside .pmm/.
func treeHashes(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".pmm" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		out[path] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// instrumentAndRun copies a test module, instruments it for its
// questions.pmm, runs it, and returns the module directory and pmm.db.
// It checks that nothing outside .pmm/ was written.
func instrumentAndRun(t *testing.T, module string, runArgs ...string) (string, *sql.DB) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs an instrumented program")
	}
	dir := copyModule(t, module)
	before := treeHashes(t, dir)
	// -allow-empty: some example questions can have no answer on purpose
	// (testdata/callbacks's not-reached), and their empty answer is checked.
	code, out, errOut := runPMM(t, dir, "instrument", "-allow-empty", "./...", "questions.pmm")
	if code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(errOut, "not instrumented") {
		t.Errorf("pmm instrument skipped sites:\n%s", errOut)
	}
	code, out, errOut = runPMM(t, dir, append([]string{"run", "."}, runArgs...)...)
	if code != exitOK {
		t.Fatalf("pmm run: exit %d\n%s%s", code, out, errOut)
	}
	after := treeHashes(t, dir)
	for path, h := range before {
		if after[path] != h {
			t.Errorf("%s was changed", path)
		}
		delete(after, path)
	}
	for path := range after {
		t.Errorf("%s was created outside .pmm/", path)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return dir, db
}

func queryStrings(t testing.TB, db *sql.DB, query string) []string {
	t.Helper()
	_, rows, err := queryRows(context.Background(), db, query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var out []string
	for _, r := range rows {
		var cells []string
		for _, v := range r {
			cells = append(cells, toString(v))
		}
		out = append(out, strings.Join(cells, " "))
	}
	sort.Strings(out)
	return out
}

func toString(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(v)
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return "?"
}

// TestFigure42EndToEnd runs the seed's example: in the Figure 4.1 program
// main calls BOTH(i) for i from -2 to 4; BOTH calls FOO only when i > 0,
// so the executions of BOTH with a non-zero parameter that call both FOO
// and BAR are those with i = 1, 2, 3, 4.
func TestFigure42EndToEnd(t *testing.T) {
	dir, db := instrumentAndRun(t, "../../testdata/fig41")
	got := queryStrings(t, db, "SELECT y FROM monitor_fns_dura_params")
	want := []string{"[1]", "[2]", "[3]", "[4]"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("parameters of the answers: %v, want %v", got, want)
	}
	if n := queryStrings(t, db, "SELECT count(*) FROM monitor_fns_dura_params WHERE x <= 0"); n[0] != "0" {
		t.Errorf("%s answers have a duration that is not positive", n[0])
	}
	// The sites' counters, with the run-time filters of the default mode
	// (seed Table 4.1): BOTH runs 7 times (i = -2..4) and is recorded when
	// its parameter is not 0 and it called FOO and BAR: 4 times (i > 0).
	// FOO runs 4 times, all in executions of BOTH that passed; BAR runs 7
	// times, 6 of them in executions of BOTH whose parameter is not 0 (the
	// pre-condition), 4 in executions that passed: BAR's tuples wait in
	// BOTH's state until BOTH ends, and only those of the 4 are recorded
	// (Algorithm 3, the release of data at the end of the outermost
	// interval).
	var counters []string
	for _, s := range stats(t, dir).Sites {
		counters = append(counters, fmt.Sprintf("%s %d %d", s.Function, s.Checked, s.Recorded))
	}
	sort.Strings(counters)
	wantCounters := []string{"main.BAR 7 4", "main.BOTH 7 4", "main.FOO 4 4"}
	if strings.Join(counters, "; ") != strings.Join(wantCounters, "; ") {
		t.Errorf("site counters %v, want %v", counters, wantCounters)
	}
}

// TestCacheScenario is the seed's 1.3.2: the number of calls of G from F
// that repeat the arguments of an earlier call in the same execution of F
// must equal the count of a hand-instrumented version of the program.
func TestCacheScenario(t *testing.T) {
	dir, db := instrumentAndRun(t, "../../testdata/cache")
	cmd := exec.Command("go", "run", ".", "-hand")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run . -hand: %v\n%s", err, out)
	}
	var want string
	var takingPart []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "repeats ") {
			want = strings.TrimPrefix(line, "repeats ")
		}
		if f := strings.Fields(line); len(f) == 10 && f[0] == "taking" {
			takingPart = []string{f[9], f[5]} // F, then G, as the sites
		}
	}
	if want == "" || want == "0" {
		t.Fatalf("the hand-instrumented run counted no repeats:\n%s", out)
	}
	rows := queryStrings(t, db, "SELECT count(*) FROM cacheable_calls")
	if rows[0] != want {
		t.Errorf("cacheable_calls has %s rows, the hand count is %s", rows[0], want)
	}
	if got := queryStrings(t, db, "SELECT count FROM cacheable_count"); len(got) != 1 || got[0] != want {
		t.Errorf("cacheable_count = %v, want %s", got, want)
	}
	sum := queryStrings(t, db, "SELECT (SELECT sum FROM cacheable_time) = (SELECT sum(d) FROM cacheable_calls), (SELECT min(d) FROM cacheable_calls) > 0")
	if sum[0] != "1 1" {
		t.Errorf("cacheable_time is not the sum of positive durations of cacheable_calls: %v", sum)
	}
	// The equal parameters are tested at run time: an execution of G is
	// recorded only when it takes part in a repeat, as the later call or
	// as an earlier one a later call found, and F only when it has one.
	var recorded []string
	for _, s := range stats(t, dir).Sites {
		recorded = append(recorded, strconv.FormatInt(s.Recorded, 10))
	}
	if len(takingPart) != 2 || strings.Join(recorded, " ") != strings.Join(takingPart, " ") {
		t.Errorf("recorded at the sites of F and G: %v, the hand count of executions taking part: %v", recorded, takingPart)
	}
	// The count and the sum are kept at run time: one cell each, no tuple,
	// and every repeated call added to it.
	for _, q := range []string{"cacheable_count", "cacheable_time"} {
		if got := queryStrings(t, db, "SELECT (SELECT count(*) FROM "+q+"__exec), (SELECT count(*) FROM "+q+"__cells)"); got[0] != "0 1" {
			t.Errorf("%s: %v tuples and cells recorded, want 0 and 1", q, got)
		}
	}
	var cells []string
	for _, c := range stats(t, dir).Cells {
		cells = append(cells, fmt.Sprintf("%s %d %d", c.Question, c.Cells, c.Added))
	}
	if want := "cacheable-count 1 " + want + "; cacheable-time 1 " + want; strings.Join(cells, "; ") != want {
		t.Errorf("pmm stats cells %v, want %s", cells, want)
	}
}

// TestCallsStarSpawnsAggregates checks calls*, spawns and aggregates
// grouped by a parameter against the fixed workloads of testdata/e2e.
func TestCallsStarSpawnsAggregates(t *testing.T) {
	dir, db := instrumentAndRun(t, "../../testdata/e2e")
	serveKeys := [][]string{{"a", "b"}, {"c"}, {"a", "b", "c", "d"}}
	getKeys := []string{"x", "y", "x", "z", "x", "y"}
	workSizes := []int{1, 2, 3, 5, 8}

	var lookups []string
	for _, keys := range serveKeys {
		lookups = append(lookups, keys...)
	}
	sort.Strings(lookups)
	if got := queryStrings(t, db, "SELECT k FROM lookups_under_serve"); strings.Join(got, " ") != strings.Join(lookups, " ") {
		t.Errorf("calls*: lookups under Serve %v, want %v (the lookup outside Serve excluded)", got, lookups)
	}

	var sizes []string
	for _, n := range workSizes {
		sizes = append(sizes, strconv.Itoa(n))
	}
	sort.Strings(sizes)
	if got := queryStrings(t, db, "SELECT n FROM workers_of_main"); strings.Join(got, " ") != strings.Join(sizes, " ") {
		t.Errorf("spawns: workers of main %v, want %v (those of spawnMore excluded)", got, sizes)
	}

	counts := map[string]int{}
	for _, k := range getKeys {
		counts[k]++
	}
	var want []string
	for k, n := range counts {
		want = append(want, k+" "+strconv.Itoa(n))
	}
	sort.Strings(want)
	if got := queryStrings(t, db, "SELECT key_, count FROM gets_per_key"); strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("count grouped by parameter: %v, want %v", got, want)
	}
	if got := queryStrings(t, db, "SELECT count(*), min(average) > 0 FROM mean_get_per_key"); got[0] != "3 1" {
		t.Errorf("average grouped by parameter: %v, want 3 keys with positive means", got)
	}
	// Run time decides both: the aggregates keep one cell per key and
	// record no tuple, and calls* records only the lookups under Serve.
	for _, q := range []string{"gets_per_key", "mean_get_per_key"} {
		if got := queryStrings(t, db, "SELECT (SELECT count(*) FROM "+q+"__exec), (SELECT count(*) FROM "+q+"__cells)"); got[0] != "0 3" {
			t.Errorf("%s: %v tuples and cells recorded, want 0 and one cell per key, 3", q, got)
		}
	}
	for _, s := range stats(t, dir).Sites {
		if s.Function == "main.(*store).lookup" && s.Recorded != int64(len(lookups)) {
			t.Errorf("lookup recorded %d times, want the %d under Serve", s.Recorded, len(lookups))
		}
	}

	// contains: the work of the workers' jobs, main's and spawnMore's (sizes
	// 100 and 200); no Get while Serve runs, and none recorded.
	works := append([]string{}, sizes...)
	works = append(works, "100", "200")
	sort.Strings(works)
	if got := queryStrings(t, db, "SELECT n FROM work_in_workers"); strings.Join(got, " ") != strings.Join(works, " ") {
		t.Errorf("contains: work in workers %v, want %v", got, works)
	}
	if got := queryStrings(t, db, "SELECT (SELECT count(*) FROM gets_during_serve), (SELECT count(*) FROM gets_during_serve__exec e JOIN pmm_sites p ON p.site = e.site WHERE p.function = 'main.Get')"); got[0] != "0 0" {
		t.Errorf("contains: gets during Serve, answers and executions recorded %v, want 0 0", got)
	}
}

// TestMonitorBeginEnd checks Monitor-Begin/End (seed B.2.2): with
// PMM_RECORD=off the program records only the 5 calls of Work it makes
// between its calls of the runtime's Begin and End; with recording on
// from the start, the 10 before and the 5 between (End stops it).
func TestMonitorBeginEnd(t *testing.T) {
	t.Setenv("PMM_RECORD", "off")
	dir, db := instrumentAndRun(t, "../../testdata/monitor")
	if got := queryStrings(t, db, "SELECT count FROM works"); strings.Join(got, " ") != "5" {
		t.Errorf("with PMM_RECORD=off: %v calls recorded, want 5", got)
	}
	t.Setenv("PMM_RECORD", "")
	if code, out, errOut := runPMM(t, dir, "run", "."); code != exitOK {
		t.Fatalf("pmm run: exit %d\n%s%s", code, out, errOut)
	}
	if got := queryStrings(t, db, "SELECT count FROM works WHERE run = 2"); strings.Join(got, " ") != "15" {
		t.Errorf("with recording on: %v calls recorded, want 15", got)
	}
}

// TestRunNotMain checks that pmm run of a package that is not main
// says so, with a hint, and leaves no archive behind (go build -o writes
// one for such a package; running it used to fail with "permission
// denied").
func TestRunNotMain(t *testing.T) {
	dir := copyModule(t, "../../testdata/allocbench")
	if code, out, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
	}
	code, _, errOut := runPMM(t, dir, "run", ".")
	if code != exitUsage || !strings.Contains(errOut, "is not a main package") || !strings.Contains(errOut, "pmm test .") {
		t.Errorf("pmm run of a library: exit %d, stderr %q; want %d and a hint of pmm test", code, errOut, exitUsage)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".pmm", "bin", "*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestModesAgree checks that the four modes give the same answers: on
// each example program, every deterministic part of every answer (not
// the durations, which differ between any two runs) is the same in the
// straightforward, static, runtime and combined modes; and that no site
// records more than it checks.
func TestModesAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	programs := []struct {
		module  string
		queries []string
	}{
		{"../../testdata/fig41", []string{"SELECT y FROM monitor_fns_dura_params"}},
		// Both is under main and the caller of (calls b f): 4 executions
		// (Both(i) calls Foo for i = 1..4), in every mode.
		{"../../testdata/chain", []string{"SELECT count(*) FROM chain"}},
		// Negations need every event of their own recorded, also where the
		// same site filters another event of the question.
		{"../../testdata/negation", []string{"SELECT count(*) FROM lonely_ones", "SELECT count(*) FROM lonely_zeros",
			"SELECT count(*) FROM last_twos", "SELECT count(*) FROM no_zero_callee"}},
		{"../../testdata/cache", []string{"SELECT count(*) FROM cacheable_calls", "SELECT count FROM cacheable_count"}},
		{"../../testdata/callerargs", []string{"SELECT count(*) FROM same_as_caller", "SELECT count(*) FROM above_caller"}},
		{"../../testdata/e2e", []string{"SELECT k FROM lookups_under_serve", "SELECT n FROM workers_of_main",
			"SELECT key_, count FROM gets_per_key", "SELECT key_ FROM mean_get_per_key",
			"SELECT n FROM work_in_workers", "SELECT count(*) FROM gets_during_serve"}},
	}
	for _, p := range programs {
		answers := map[string]string{}
		for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
			dir := copyModule(t, p.module)
			if code, out, errOut := runPMM(t, dir, "instrument", "--mode", mode, "./...", "questions.pmm"); code != exitOK {
				t.Fatalf("%s --mode %s: exit %d\n%s%s", p.module, mode, code, out, errOut)
			}
			if code, out, errOut := runPMM(t, dir, "run", "."); code != exitOK {
				t.Fatalf("%s --mode %s: pmm run: exit %d\n%s%s", p.module, mode, code, out, errOut)
			}
			db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range p.queries {
				got = append(got, q+": "+strings.Join(queryStrings(t, db, q), ", "))
			}
			for _, s := range stats(t, dir).Sites {
				if s.Recorded > s.Checked {
					t.Errorf("%s --mode %s: site %d (%s) recorded %d entries but checked %d", p.module, mode, s.Site, s.Function, s.Recorded, s.Checked)
				}
			}
			db.Close()
			answers[mode] = strings.Join(got, "\n")
		}
		// The answers known from the programs themselves.
		known := map[string]string{
			"../../testdata/chain": "SELECT count(*) FROM chain: 4",
			"../../testdata/negation": "SELECT count(*) FROM lonely_ones: 0\n" +
				"SELECT count(*) FROM lonely_zeros: 3\n" +
				"SELECT count(*) FROM last_twos: 0\n" +
				"SELECT count(*) FROM no_zero_callee: 4",
		}
		if want, ok := known[p.module]; ok && answers[modeStatic] != want {
			t.Errorf("%s: %s, want %s", p.module, answers[modeStatic], want)
		}
		for mode, a := range answers {
			if a != answers[modeStatic] {
				t.Errorf("%s: the answers of --mode %s differ from those of --mode static:\n%s\n--- static:\n%s", p.module, mode, a, answers[modeStatic])
			}
		}
	}
}

// stats reads the counters of the last run in dir, as pmm stats does.
func stats(t testing.TB, dir string) *runStats {
	t.Helper()
	p, code := readProject(&env{dir: dir}, "test")
	if p == nil {
		t.Fatalf("no project in %s: %d", dir, code)
	}
	st, err := readStats(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestCalleeAndCaller checks a question whose event is both the callee
// of a direct call and the caller of one, which pmm once refused (the
// call site and the definition took two ids for one execution): Both is
// recorded at its definition, and main's call sites record (calls m b)
// under the id they publish and Both's definition adopts. main calls
// Both(-2) ... Both(4); Both calls Foo when its parameter is positive:
// 4 executions, in every mode. It also checks, in every mode, that a
// view without DISTINCT (boths) has distinct rows where one execution
// has rows at two sites, and that no variable whose sites are of one
// kind has two rows of one id (oneRowPerID).
func TestCalleeAndCaller(t *testing.T) {
	q := `(defquestion chain :definition
  ((b) s.t. (exists (m f) (and (function-execution m "main.main") (function-execution b "main.Both")
                               (function-execution f "main.Foo") (calls m b) (calls b f)))))
(defquestion boths :definition
  ((m b) s.t. (and (function-execution m "main.main") (function-execution b "main.Both") (calls m b))))`
	shared := 0 // modes where boths recorded one id twice
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		dir := copyModule(t, "../../testdata/chain")
		if err := os.WriteFile(filepath.Join(dir, "direct.pmm"), []byte(q), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out, errOut := runPMM(t, dir, "instrument", "--mode", mode, "./...", "direct.pmm"); code != exitOK {
			t.Fatalf("--mode %s: pmm instrument: exit %d\n%s%s", mode, code, out, errOut)
		}
		if code, out, errOut := runPMM(t, dir, "run", "."); code != exitOK {
			t.Fatalf("--mode %s: pmm run: exit %d\n%s%s", mode, code, out, errOut)
		}
		db := openDB(t, dir)
		got := queryStrings(t, db, "SELECT count(DISTINCT b) || ' ' || (SELECT count(*) FROM pmm_incomplete) FROM chain")
		if len(got) != 1 || got[0] != "4 0" {
			t.Errorf("--mode %s: executions of Both called by main that call Foo, and reasons of incompleteness: %v, want 4 0", mode, got)
		}
		// boths's view has no DISTINCT: its rows are distinct all the
		// same, though in straightforward mode an execution of Both has
		// one id at its call site (for b) and at its definition (for m:
		// that mode records every execution for every variable).
		if got := queryStrings(t, db, "SELECT count(*) = count(DISTINCT b) AND count(*) > 0 FROM boths"); got[0] != "1" {
			t.Errorf("--mode %s: boths has equal rows or none", mode)
		}
		for _, qv := range [][2]string{{"chain", "m"}, {"chain", "b"}, {"chain", "f"}, {"boths", "m"}, {"boths", "b"}} {
			oneRowPerID(t, db, qv[0], qv[1])
		}
		if got := queryStrings(t, db, "SELECT count(*) FROM (SELECT 1 FROM boths__exec GROUP BY run, id HAVING count(*) > 1)"); got[0] != "0" {
			shared++
		}
		db.Close()
	}
	if shared == 0 {
		t.Errorf("no mode recorded an execution at two sites under one id")
	}
}

// oneRowPerID checks what the views without DISTINCT rely on
// (docs/SCHEMA.md, "Rows distinct without DISTINCT"): when the sites of
// variable v of question q are all of one kind, no two of them recorded
// one id.
func oneRowPerID(t *testing.T, db *sql.DB, q, v string) {
	t.Helper()
	sites := "SELECT site FROM " + schema.SiteVarsTable + " WHERE question = '" + q + "' AND var = '" + v + "'"
	kinds := queryStrings(t, db, "SELECT count(DISTINCT coalesce(k.kind, v.site)) FROM "+schema.SiteVarsTable+" AS v LEFT JOIN "+schema.SitesTable+
		" AS k ON k.site = v.site WHERE v.question = '"+q+"' AND v.var = '"+v+"'")
	if kinds[0] != "1" {
		return
	}
	if got := queryStrings(t, db, "SELECT count(*) FROM (SELECT 1 FROM "+schema.SQLName(q)+"__exec WHERE site IN ("+sites+") GROUP BY run, id HAVING count(*) > 1)"); got[0] != "0" {
		t.Errorf("%s's %s: %s ids with two rows at sites of one kind", q, v, got[0])
	}
}

// TestExactNegation checks that run time decides negated parts exactly
// where it can: an execution of F is recorded for a question only when it
// is an answer, whether the negated event is a direct callee
// (no-zero-callee) or inside it through calls* (lonely-*). The event
// after it (last-twos) is known only when the run ends: decided in SQL.
func TestExactNegation(t *testing.T) {
	_, db := instrumentAndRun(t, "../../testdata/negation")
	for q, want := range map[string]string{"lonely_ones": "0 0", "lonely_zeros": "3 3", "no_zero_callee": "4 4"} {
		if got := queryStrings(t, db, "SELECT (SELECT count(*) FROM "+q+"__exec), (SELECT count(*) FROM "+q+")"); got[0] != want {
			t.Errorf("%s: %v executions recorded and answers, want %s", q, got, want)
		}
	}
}

// TestCallerValues checks tests of a callee that read its caller's
// parameter (testdata/callerargs): Outer(n) calls Inner(i) for i < 5, for
// n < 8. At run time Inner is recorded only when its parameter equals or
// exceeds its caller's, and Outer only when some Inner it called was.
func TestCallerValues(t *testing.T) {
	dir, db := instrumentAndRun(t, "../../testdata/callerargs")
	same, above, inner, outer := 0, 0, 0, 0
	for n := 0; n < 8; n++ {
		any := false
		for i := 0; i < 5; i++ {
			if i == n {
				same++
			}
			if i > n {
				above++
			}
			if i >= n {
				inner++
				any = true
			}
		}
		if any {
			outer++
		}
	}
	if got := queryStrings(t, db, "SELECT (SELECT count(*) FROM same_as_caller), (SELECT count(*) FROM above_caller)"); got[0] != fmt.Sprintf("%d %d", same, above) {
		t.Errorf("answers %v, want %d %d", got, same, above)
	}
	var recorded []string
	for _, s := range stats(t, dir).Sites {
		recorded = append(recorded, fmt.Sprintf("%s %d", s.Function, s.Recorded))
	}
	if want := fmt.Sprintf("main.Outer %d; main.Inner %d", outer, inner); strings.Join(recorded, "; ") != want {
		t.Errorf("recorded %v, want %s", recorded, want)
	}
}

// TestInstrumentSaysWhatRunTimeDecides checks that pmm instrument tells
// which tests run time decides, and that the static mode has none.
func TestInstrumentSaysWhatRunTimeDecides(t *testing.T) {
	dir := copyModule(t, "../../testdata/negation")
	// -allow-empty: some example questions can have no answer on purpose
	// (testdata/callbacks's not-reached), and their empty answer is checked.
	code, out, errOut := runPMM(t, dir, "instrument", "-allow-empty", "./...", "questions.pmm")
	if code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
	}
	containsAll(t, "stdout", out, "lonely-ones: decided at run time: the absence of (calls* f g)",
		"no-zero-callee: decided at run time: the absence of (calls f g)")
	if code, out, errOut = runPMM(t, dir, "instrument", "--mode", "static", "./...", "questions.pmm"); code != exitOK || strings.Contains(out, "run time") {
		t.Errorf("--mode static: exit %d, says %q%s", code, out, errOut)
	}
}
