package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAllocationsOutside builds and runs testdata/allocoutside in every
// mode. The allocations contained in an execution of Pure, on its
// goroutine, are all at sites of the module (it calls only its own
// code and sync/atomic): the answer is not flagged, and counts what the
// program measures of itself (MemStats' Mallocs). Mixed calls
// strings.Repeat, whose allocation pmm does not record: the program
// measures more than pmm counts, and the answer says why, at the call.
// Tables makes a map: its answer counts the objects the program
// measures (a map's header, directory and tables). Without same-goroutine,
// Pure's answer is flagged: code outside the module may run on another
// goroutine meanwhile. Mixed's allocations by itself are not flagged
// (strings.Repeat's are never at its sites), and count what the program
// measures of Mixed less what it measures of strings.Repeat; an
// allocation variable of a negated part ("executions of Mixed that
// allocate nothing") is flagged.
// outsidePrinting is why main's last print of testdata/allocoutside
// boxes three values pmm does not record: each reads a variable, and a
// call follows it.
const outsidePrinting = "main.main not instrumented: Go evaluates this allocation after the call"

func TestAllocationsOutside(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	const outside = "allocations outside the module are not counted"
	src := "../../testdata/allocoutside"
	repeat := siteLine(t, src, "main.go", "strings.Repeat(")
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			out, db := instrumentInMode(t, src, mode, outsidePrinting)
			want := wantLines(out)
			reasons := func(q string) []string {
				return queryStrings(t, db, "SELECT reason || ' @' || coalesce(position, '') FROM pmm_incomplete WHERE question = '"+q+"'")
			}
			// count is the allocations of the last execution (the
			// program measures five alike).
			count := func(q string) int {
				n, err := strconv.Atoi(queryStrings(t, db, "SELECT count(DISTINCT a) FROM "+q+" WHERE x = (SELECT max(x) FROM "+q+")")[0])
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			if got := reasons("pure"); len(got) != 0 {
				t.Errorf("pure is flagged: %q", got)
			}
			if got, measured := count("pure"), want["Pure_objects"]; strconv.Itoa(got) != measured {
				t.Errorf("pure: %d allocations, the program measured %s", got, measured)
			}
			mixed := reasons("mixed")
			if len(mixed) != 1 || !strings.Contains(mixed[0], outside) || !strings.Contains(mixed[0], "strings.Repeat") || !strings.Contains(mixed[0], " @"+repeat+":") {
				t.Errorf("mixed: pmm_incomplete %q, want one reason that %s, at strings.Repeat's call (%s)", mixed, outside, repeat)
			}
			if got, measured := count("mixed"), want["Mixed_objects"]; strconv.Itoa(got) == measured || got != 1 {
				t.Errorf("mixed: pmm counts %d allocations, the program measured %s: want 1 (its make), fewer than measured (strings.Repeat's)", got, measured)
			}
			// By Mixed itself: what the program measures of it less
			// strings.Repeat's, exactly (no reason).
			mixedObjects, _ := strconv.Atoi(want["Mixed_objects"])
			repeatObjects, _ := strconv.Atoi(want["Repeat_objects"])
			if got := reasons("mixed-itself"); len(got) != 0 {
				t.Errorf("mixed-itself is flagged: %q", got)
			}
			if got := count("mixed_itself"); got != mixedObjects-repeatObjects {
				t.Errorf("mixed-itself: %d allocations, the program measured %d less strings.Repeat's %d", got, mixedObjects, repeatObjects)
			}
			// An allocation variable of a negated part is flagged too.
			if got := reasons("mixed-none"); len(got) != 1 || !strings.Contains(got[0], outside) {
				t.Errorf("mixed-none: pmm_incomplete %q, want that %s", got, outside)
			}
			// A map's make: its header, directory and tables, recorded.
			if got := reasons("tables"); len(got) != 0 {
				t.Errorf("tables is flagged: %q", got)
			}
			if got, measured := count("tables"), want["Tables_objects"]; strconv.Itoa(got) != measured {
				t.Errorf("tables: %d allocations, the program measured %s", got, measured)
			}
			if got := reasons("pure-anywhere"); !strings.Contains(strings.Join(got, "\n"), outside) {
				t.Errorf("pure-anywhere: pmm_incomplete %q, want that %s", got, outside)
			}
		})
	}
}

// TestAllocationsOutsideProfile runs testdata/allocoutside three times
// and reads what code outside the module allocated, from the run's heap
// profile (pmm_outside_calls, pmm_outside_functions). With
// -exact-outside, the allocations strings.Repeat makes under Mixed's
// call, and under main's closure that calls it directly, are those the
// program measures of one call (MemStats' Mallocs and TotalAlloc, the
// collector off) times the calls it makes, labeled exact but for tiny
// objects (no -race); the functions on the stack above Mixed's call hold
// them. With the runtime's default sampling, the 4 MiB strings Big
// makes are seen, labeled sampled. A run that ends by os.Exit leaves no
// profile: the answer says the figures are missing. The answer of the
// question itself is the same in every run, and its reason says where
// the figures are.
func TestAllocationsOutsideProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	src := "../../testdata/allocoutside"
	line := func(text string) string { return strings.TrimPrefix(siteLine(t, src, "main.go", text), "main.go:") }
	repeat, direct, big := line(`strings.Repeat("ab", n)`), line(`strings.Repeat("ab", 20)`), line(`strings.Repeat("x"`)
	out, db, dir := instrumentInModeAt(t, src, modeCombined, "a map's allocations", outsidePrinting)
	want := wantLines(out)
	atoi := func(s string) int64 {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return n
	}
	mixedReason := func(run int) string {
		got := queryStrings(t, db, "SELECT reason FROM pmm_incomplete WHERE question = 'mixed' AND run = "+strconv.Itoa(run))
		if len(got) != 1 {
			t.Fatalf("run %d: mixed's reasons %q, want one", run, got)
		}
		return got[0]
	}
	// The answer itself: Mixed's own make, in each of its executions.
	sameAnswer := func(run int) {
		t.Helper()
		got := queryStrings(t, db, "SELECT count(DISTINCT a) FROM mixed WHERE run = "+strconv.Itoa(run)+" GROUP BY x")
		if len(got) != int(atoi(want["rounds"])) || slices.ContainsFunc(got, func(s string) bool { return s != "1" }) {
			t.Errorf("run %d: mixed's allocations per execution %q, want 1 in each of %s", run, got, want["rounds"])
		}
	}
	// rows are a run's rows of pmm_outside_calls at a line, as
	// "function callee objects bytes figures".
	rows := func(run int, line string) []string {
		return queryStrings(t, db, "SELECT function || ' ' || callee || ' ' || objects || ' ' || bytes || ' ' || figures FROM pmm_outside_calls WHERE run = "+
			strconv.Itoa(run)+" AND file = 'main.go' AND line = "+line)
	}

	// Run 1: the runtime's sampling.
	sameAnswer(1)
	if r := mixedReason(1); !strings.Contains(r, "pmm_outside_calls") || !strings.Contains(r, "figures "+figuresSampled) {
		t.Errorf("run 1: mixed's reason %q, want where the figures are, and that they are %s", r, figuresSampled)
	}
	if got := queryStrings(t, db, "SELECT DISTINCT figures FROM pmm_outside_calls WHERE run = 1 UNION SELECT DISTINCT figures FROM pmm_outside_functions WHERE run = 1"); !slices.Equal(got, []string{figuresSampled}) {
		t.Errorf("run 1: figures %q, want only %s", got, figuresSampled)
	}
	if got := rows(1, big); len(got) != 1 || !strings.HasPrefix(got[0], "main.Big strings.Repeat ") {
		t.Errorf("run 1: at Big's call (main.go:%s) %q, want Big's strings.Repeat, sampled", big, got)
	} else if f := strings.Fields(got[0]); atoi(f[2]) < 1 || atoi(f[2]) > 4 || atoi(f[3]) < atoi(f[2])*(4<<20) || atoi(f[3]) > atoi(f[2])*(4<<20)*101/100 {
		t.Errorf("run 1: at Big's call %q, want 1 to 4 objects of 4 MiB (Big makes 4)", got[0])
	}

	// Run 2: -exact-outside.
	code, out2, errOut := runPMM(t, dir, "run", "-exact-outside", ".")
	if code != exitOK {
		t.Fatalf("pmm run -exact-outside: exit %d\n%s%s", code, out2, errOut)
	}
	want2 := wantLines(out2)
	sameAnswer(2)
	if r := mixedReason(2); !strings.Contains(r, "pmm_outside_calls") || !strings.Contains(r, "figures "+figuresLowerBound) {
		t.Errorf("run 2: mixed's reason %q, want where the figures are, and that they are %s", r, figuresLowerBound)
	}
	rounds := atoi(want2["rounds"])
	objects, bytes := rounds*atoi(want2["Repeat_objects"]), rounds*atoi(want2["Repeat_bytes"])
	for _, c := range []struct{ line, function string }{{repeat, "main.Mixed"}, {direct, "main.main.func3"}} {
		wantRow := fmt.Sprintf("%s strings.Repeat %d %d %s", c.function, objects, bytes, figuresLowerBound)
		if got := rows(2, c.line); !slices.Equal(got, []string{wantRow}) {
			t.Errorf("run 2: at main.go:%s %q, want %q (%d calls of what the program measured of one)", c.line, got, wantRow, rounds)
		}
	}
	if got := rows(2, big); !slices.Equal(got, []string{fmt.Sprintf("main.Big strings.Repeat 4 %d %s", 4*(4<<20), figuresLowerBound)}) {
		t.Errorf("run 2: at Big's call %q, want its 4 strings of 4 MiB", got)
	}
	// Mixed is on the stack of strings.Repeat's allocations under its
	// call only; measure, of those under both.
	for fn, n := range map[string]int64{"main.Mixed": 1, "main.measure": 2} {
		wantRow := fmt.Sprintf("%d %d", n*objects, n*bytes)
		if got := queryStrings(t, db, "SELECT objects || ' ' || bytes FROM pmm_outside_functions WHERE run = 2 AND function = '"+fn+"'"); !slices.Equal(got, []string{wantRow}) {
			t.Errorf("run 2: pmm_outside_functions of %s %q, want %q", fn, got, wantRow)
		}
	}

	// Run 3: os.Exit, no profile.
	code, out3, errOut := runPMM(t, dir, "run", ".", "--", "exit")
	if code != exitOK {
		t.Fatalf("pmm run -- exit: exit %d\n%s%s", code, out3, errOut)
	}
	sameAnswer(3)
	if r := mixedReason(3); !strings.Contains(r, "missing") || !strings.Contains(r, "os.Exit") || strings.Contains(r, "figures") {
		t.Errorf("run 3: mixed's reason %q, want that the figures are missing", r)
	}
	if got := queryStrings(t, db, "SELECT count(*) FROM pmm_outside_calls WHERE run = 3"); !slices.Equal(got, []string{"0"}) {
		t.Errorf("run 3: %s rows of pmm_outside_calls, want none", got)
	}
	// pmm answer shows the tables after the answer.
	code, ans, errOut := runPMM(t, dir, "answer", "-run", "2", "mixed")
	if code != exitOK {
		t.Fatalf("pmm answer: exit %d\n%s%s", code, ans, errOut)
	}
	shown := strings.Join(strings.Fields(ans), " ")
	for _, s := range []string{"by the module's call (pmm_outside_calls)", fmt.Sprintf("main.Mixed main.go:%s strings.Repeat %d %d", repeat, objects, bytes), "(pmm_outside_functions)"} {
		if !strings.Contains(shown, s) {
			t.Errorf("pmm answer -run 2 mixed:\n%s\nwant %q", ans, s)
		}
	}
	// And pmm report, as tables after the answers.
	if code, out, errOut := runPMM(t, dir, "report", "-run", "2"); code != exitOK {
		t.Fatalf("pmm report: exit %d\n%s%s", code, out, errOut)
	}
	html, err := os.ReadFile(filepath.Join(dir, ".pmm", "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf(`<td>main.Mixed</td><td>main.go:%s</td><td>strings.Repeat</td><td class="n">%d</td><td class="n">%d</td><td>%s</td>`, repeat, objects, bytes, figuresLowerBound)
	for _, s := range []string{`id="outside-1"`, "by the module&#39;s call (pmm_outside_calls)", row, `id="outside-2"`, "(pmm_outside_functions)"} {
		if !strings.Contains(string(html), s) {
			t.Errorf("pmm report -run 2: no %q in the report", s)
		}
	}
}

// TestAllocationsOutsideTestBinary runs testdata/allocoutside's test
// with pmm test -exact-outside under -race: the test binary's heap
// profile (written by package testing when its tests end, the runtime
// having named it with -test.memprofile) holds what strings.Repeat
// allocated under Mixed's call, labeled exact: the calls the test makes
// times what testing.AllocsPerRun measures of one.
func TestAllocationsOutsideTestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	src := "../../testdata/allocoutside"
	repeat := strings.TrimPrefix(siteLine(t, src, "main.go", `strings.Repeat("ab", n)`), "main.go:")
	dir := copyModule(t, src)
	if code, out, errOut := runPMM(t, dir, "instrument", "-tests", "./...", "questions.pmm"); code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := runPMM(t, dir, "test", "-exact-outside", ".", "--", "-race", "-v", "-run", "TestMixed")
	if code != exitOK {
		t.Fatalf("pmm test: exit %d\n%s%s", code, out, errOut)
	}
	want := wantLines(out)
	calls, err1 := strconv.Atoi(want["calls"])
	one, err2 := strconv.Atoi(want["Repeat_objects"])
	if err1 != nil || err2 != nil {
		t.Fatalf("the test printed %q", want)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantRow := fmt.Sprintf("example.com/allocoutside.Mixed strings.Repeat %d %s", calls*one, figuresExact)
	if got := queryStrings(t, db, "SELECT function || ' ' || callee || ' ' || objects || ' ' || figures FROM pmm_outside_calls WHERE file = 'main.go' AND line = "+repeat); !slices.Equal(got, []string{wantRow}) {
		t.Errorf("at Mixed's call of strings.Repeat (main.go:%s): %q, want %q", repeat, got, wantRow)
	}
	if got := queryStrings(t, db, "SELECT reason FROM pmm_incomplete WHERE question = 'mixed'"); len(got) != 1 || !strings.Contains(got[0], "figures "+figuresExact) {
		t.Errorf("mixed's reasons %q, want one that says the figures are %s", got, figuresExact)
	}
}
