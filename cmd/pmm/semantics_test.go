package main

import (
	"bytes"
	"cmp"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/golden"
)

// The semantics tests instrument the programs of testdata/semantics with
// questions that put a site everywhere (every function a definition site
// recording parameters, results, duration and panicked; every call from
// the module a call site recording its callee, go statements included),
// run the original and the instrumented program, and compare their
// standard output, standard error and exit status. They also check what
// pmm recorded where the program can tell: lines "rec F PARAMS RESULTS
// PANICKED" and "count F N" that the original prints.
//
// What instrumentation cannot preserve, and the comparison allows:
//   - a callee recorded at a call site runs under pmm's wrapper, whose
//     frames (main.pmm__record12, main.pmm__call12) appear in stack
//     traces and in runtime.Callers/Stack; the wrapper's call carries the
//     user's file:line, so runtime.Caller(1) in the callee gives the
//     user's file and line but the wrapper's function name;
//   - the compiler names a closure after the function it was inlined
//     into, and an instrumented function is not inlined: the programs
//     print the names of closures of functions that are not inlined.

// semanticsModule copies a module of testdata/semantics, builds it as it
// is, and instruments it with its questions.pmm.
func semanticsModule(t *testing.T, name string, instrumentFlags ...string) (dir, orig, warnings string) {
	t.Helper()
	return semanticsModuleAt(t, name, "", instrumentFlags...)
}

// semanticsModuleAt is semanticsModule with the copy's go directive set
// to directive, unless it is "".
func semanticsModuleAt(t *testing.T, name, directive string, instrumentFlags ...string) (dir, orig, warnings string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	dir = copyModule(t, filepath.Join("../../testdata/semantics", name))
	if directive != "" {
		mod := filepath.Join(dir, "go.mod")
		data, err := os.ReadFile(mod)
		if err != nil {
			t.Fatal(err)
		}
		data = regexp.MustCompile(`(?m)^go .*$`).ReplaceAll(data, []byte("go "+directive))
		if err := os.WriteFile(mod, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	orig = filepath.Join(t.TempDir(), "orig")
	goBuild(t, dir, "build", "-o", orig, ".")
	args := append(append([]string{"instrument"}, instrumentFlags...), "./...", "questions.pmm")
	code, out, errOut := runPMM(t, dir, args...)
	if code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
	}
	return dir, orig, errOut
}

func goBuild(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// outcome is what a run of a program shows.
type outcome struct {
	stdout, stderr string
	status         int
}

// runOriginal runs the uninstrumented binary.
func runOriginal(t *testing.T, dir, bin string, args ...string) outcome {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exitErr *exec.ExitError
	status := 0
	switch {
	case errors.As(err, &exitErr):
		status = exitErr.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return outcome{out.String(), errOut.String(), status}
}

// pmmLines are the lines pmm run adds to the program's standard error:
// the run it loaded, the program's exit status, and before the run the
// warning that every execution of functions that may run often is
// recorded (these programs instrument every function).
var pmmLines = regexp.MustCompile(`(?m)^pmm( run| test)?: (run \d+: \d+ tuples recorded in .*|exit status \d+|warning: every execution of \d+ functions? that may run often .*)\n`)

// runInstrumented runs the instrumented program with pmm run or pmm test
// and returns what the program showed, its exit status as recorded in
// the runs table, and the run's id.
func runInstrumented(t *testing.T, dir string, args ...string) (outcome, int64) {
	t.Helper()
	_, out, errOut := runPMM(t, dir, args...)
	db := openDB(t, dir)
	defer db.Close()
	var run int64
	var status int
	if err := db.QueryRow("SELECT id, exit_status FROM runs ORDER BY id DESC LIMIT 1").Scan(&run, &status); err != nil {
		t.Fatalf("pmm %s: no run recorded: %v\n%s", strings.Join(args, " "), err, errOut)
	}
	if !pmmLines.MatchString(errOut) {
		t.Fatalf("pmm %s did not load a run:\n%s", strings.Join(args, " "), errOut)
	}
	return outcome{out, pmmLines.ReplaceAllString(errOut, ""), status}, run
}

var (
	goroutineHeader = regexp.MustCompile(`^goroutine \d+ \[.*\]:$`)
	signalLine      = regexp.MustCompile(`^\[signal (\S+).*\]$`)
	wrapperFrame    = regexp.MustCompile(`^frame \S+\.pmm__`)
	callerName      = regexp.MustCompile(`^caller-name \S+\.pmm__(record|call)\d+ `)
)

// normalizeStderr reduces the stack traces of panics to the function
// and file:line of each frame, leaving out pmm's wrapper frames, argument
// values, program counters and goroutine numbers.
func normalizeStderr(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case goroutineHeader.MatchString(l):
			out = append(out, "goroutine N:")
		case signalLine.MatchString(l):
			out = append(out, "[signal "+signalLine.FindStringSubmatch(l)[1]+"]")
		case i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t/"):
			fn := l
			if strings.HasSuffix(fn, ")") {
				fn = fn[:strings.LastIndex(fn, "(")]
			}
			loc := strings.TrimSpace(lines[i+1])
			loc = loc[strings.LastIndex(loc, "/")+1:]
			if j := strings.Index(loc, " +0x"); j >= 0 {
				loc = loc[:j]
			}
			i++
			if strings.Contains(fn, ".pmm__") {
				continue
			}
			out = append(out, fn+" "+loc)
		default:
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// normalizeStdout leaves out the wrapper frames the programs print, and
// accepts the wrapper's name from runtime.Caller(1) in a callee recorded
// at a call site (the line must be the original's).
func normalizeStdout(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if wrapperFrame.MatchString(l) {
			continue
		}
		if m := callerName.FindString(l); m != "" {
			l = "caller-name (wrapper) " + strings.TrimPrefix(l, m)
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// compareOutcomes reports every difference between the original's and
// the instrumented program's outcome.
func compareOutcomes(t *testing.T, orig, inst outcome) {
	t.Helper()
	if inst.status != orig.status {
		t.Errorf("exit status %d, the original's is %d", inst.status, orig.status)
	}
	if o, i := normalizeStdout(orig.stdout), normalizeStdout(inst.stdout); o != i {
		if strings.Contains(o, "caller-name") {
			// The original names the function itself: allow the wrapper's.
			o = regexp.MustCompile(`(?m)^caller-name \S+ `).ReplaceAllString(o, "caller-name (wrapper) ")
		}
		if o != i {
			t.Errorf("standard output differs:\n%s", golden.FirstDifference(o, i, "original", "instrumented"))
		}
	}
	if o, i := normalizeStderr(orig.stderr), normalizeStderr(inst.stderr); o != i {
		t.Errorf("standard error differs:\n%s\noriginal:\n%s\ninstrumented:\n%s", golden.FirstDifference(o, i, "original", "instrumented"), orig.stderr, inst.stderr)
	}
}

// checkRecorded checks the lines "rec F PARAMS RESULTS PANICKED" and
// "count F N" of the original's output against what the instrumented run
// recorded: the executions at F's definition site and, for rec lines, at
// its call sites.
func checkRecorded(t *testing.T, dir string, run int64, stdout string) {
	t.Helper()
	db := openDB(t, dir)
	defer db.Close()
	n := 0
	for _, l := range strings.Split(stdout, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 5 && f[0] == "rec":
			n++
			fn, params, results, panicked := f[1], f[2], f[3], f[4]
			for _, q := range []struct{ what, sql string }{
				{"executions", "SELECT ps, rs, p FROM executions WHERE run = ? AND f = ?"},
				{"calls_made", "SELECT ps, rs, 0 FROM calls_made WHERE run = ? AND g = ?"},
			} {
				rows, err := db.Query(q.sql, run, fn)
				if err != nil {
					t.Fatal(err)
				}
				found := false
				var seen []string
				for rows.Next() {
					var ps, rs string
					var p int
					if err := rows.Scan(&ps, &rs, &p); err != nil {
						t.Fatal(err)
					}
					seen = append(seen, ps+" "+rs+" "+strconv.Itoa(p))
					if sameJSON(t, ps, params) && sameJSON(t, rs, results) && (q.what != "executions" || strconv.Itoa(p) == panicked) {
						found = true
					}
				}
				rows.Close()
				if !found {
					t.Errorf("%s: no execution of %s with parameters %s, results %s (panicked %s) among %q", q.what, fn, params, results, panicked, seen)
				}
			}
		case len(f) == 3 && f[0] == "count":
			n++
			var got int
			if err := db.QueryRow("SELECT count(*) FROM executions WHERE run = ? AND f = ?", run, f[1]).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if strconv.Itoa(got) != f[2] {
				t.Errorf("%d executions of %s recorded, the program counted %s", got, f[1], f[2])
			}
		}
	}
	if n == 0 {
		t.Errorf("the program printed no rec or count lines")
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// wantSkips checks that pmm instrument refused exactly the sites it must
// leave alone, with its reason, by file:line and reason.
func wantSkips(t *testing.T, warnings string, want map[string]string) {
	t.Helper()
	for site, reason := range want {
		found := false
		for _, l := range strings.Split(warnings, "\n") {
			if strings.Contains(l, " "+site+":") && strings.Contains(l, "not instrumented: ") && strings.Contains(l, reason) {
				found = true
			}
		}
		if !found {
			t.Errorf("pmm instrument did not refuse %s (%s):\n%s", site, reason, warnings)
		}
	}
}

// siteLine returns file:line of the first line of file holding text.
func siteLine(t *testing.T, dir, file, text string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, text) {
			return file + ":" + strconv.Itoa(i+1)
		}
	}
	t.Fatalf("%s has no line with %q", file, text)
	return ""
}

// TestSemantics runs testdata/semantics/modern (go 1.23: generics, a
// package with identifiers that generated ones could clash with, build
// constraints, tests) instrumented and not, in every mode of the
// program.
func TestSemantics(t *testing.T) {
	dir, orig, warnings := semanticsModule(t, "modern", "--tests")

	t.Run("refused sites", func(t *testing.T) {
		wantSkips(t, warnings, map[string]string{
			siteLine(t, dir, "callers.go", "line, _ := runtime.Caller(0)"): "looks at the frames of its callers",
			siteLine(t, dir, "lib/lib_test.go", "t.Helper()"):              "looks at the frames of its callers",
			siteLine(t, dir, "lib/lib_test.go", "t.Logf"):                  "looks at the frames of its callers",
			siteLine(t, dir, "generics.go", "c <- 1"):                      "whose type is a type parameter",
			siteLine(t, dir, "generics.go", "return <-c"):                  "whose type is a type parameter",
			siteLine(t, dir, "results.go", "fmt.Println(multi(1))"):        "passes a multi-valued call as arguments",
			siteLine(t, dir, "regions.go", "run again by goto"):            "would skip the code that begins it",
			siteLine(t, dir, "interfaces.go", "go s.Area()"):               "may start any of",
		})
		// Deferred calls of functions that do not recover are wrapped;
		// those of functions that recover stay direct deferred calls, the
		// site's code deferred around them (the program's output below
		// says recover still works).
		for _, site := range []string{
			siteLine(t, dir, "recover.go", "defer recoverer()"),
			siteLine(t, dir, "recover.go", "defer h.recoverM()"),
			siteLine(t, dir, "recover.go", "defer func() {"),
			siteLine(t, dir, "recover.go", "defer indirect()"),
			siteLine(t, dir, "results.go", "defer func() { n *= 10 }()"),
			siteLine(t, dir, "methods.go", "defer c.Add(100)"),
		} {
			if strings.Contains(warnings, " "+site+":") {
				t.Errorf("the deferred call at %s was refused:\n%s", site, warnings)
			}
		}
	})

	t.Run("build constraints", func(t *testing.T) {
		overlay, err := os.ReadFile(filepath.Join(dir, ".pmm", "overlay.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"platform_linux.go", "pmm_gen_platform_linux.go"} {
			if !strings.Contains(string(overlay), filepath.Join(dir, f)+`"`) {
				t.Errorf("the overlay has no %s", f)
			}
		}
		for _, f := range []string{"platform_other.go", "tagged.go", "ignored.go"} {
			if strings.Contains(string(overlay), filepath.Join(dir, f)+`"`) {
				t.Errorf("the overlay has %s, which the build does not select", f)
			}
		}
	})

	// Each mode on its own: pmm run loads every run into .pmm/pmm.db.
	runModes(t, []string{"", "panic", "runtime-error", "nil-map", "error-panic", "repanic", "go-panic", "exit", "goexit", "interface-nil", "defer-nil-interface", "go-nil-interface"}, func(t *testing.T, mode string, args []string) {
		o := runOriginal(t, dir, orig, args...)
		i, run := runInstrumented(t, dir, append([]string{"run", ".", "--"}, args...)...)
		compareOutcomes(t, o, i)
		switch mode {
		case "":
			checkRecorded(t, dir, run, o.stdout)
			checkSpawned(t, dir, run)
		case "go-panic":
			// The goroutine whose function panicked ended, recorded as
			// the panic left the function, before the program ended.
			db := openDB(t, dir)
			defer db.Close()
			got := queryStrings(t, db, "SELECT n FROM goroutine_lives WHERE run = "+strconv.FormatInt(run, 10)+" AND f = 'main.goPanic' AND d > 0")
			if want := "main.goPanic.func1"; strings.Join(got, " ") != want {
				t.Errorf("goroutines of goPanic that ended: %q, want %q", got, want)
			}
		case "panic":
			db := openDB(t, dir)
			defer db.Close()
			got := queryStrings(t, db, "SELECT ps || ' ' || p FROM ended WHERE run = "+strconv.FormatInt(run, 10)+" AND f = 'main.panicDeep'")
			if want := "[0] 1 [1] 1 [2] 1 [3] 1"; strings.Join(got, " ") != want {
				t.Errorf("executions of panicDeep: %q, want %q: all panicked", got, want)
			}
			// They returned nothing: no results.
			if got := queryStrings(t, db, "SELECT count(*) FROM executions WHERE run = "+strconv.FormatInt(run, 10)+" AND f = 'main.panicDeep'"); got[0] != "0" {
				t.Errorf("%s executions of panicDeep with results, want none: all panicked", got[0])
			}
		}
	})

	t.Run("go test", func(t *testing.T) {
		cmd := exec.Command("go", "test", "-count=1", "-v", "./lib")
		cmd.Dir = dir
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		status := 0
		if err := cmd.Run(); err != nil {
			t.Fatalf("go test: %v\n%s%s", err, out.String(), errOut.String())
		}
		o := outcome{out.String(), errOut.String(), status}
		i, run := runInstrumented(t, dir, "test", "./lib", "--", "-v")
		times := regexp.MustCompile(`\(\d+\.\d+s\)|\t\d+\.\d+s`)
		o.stdout, i.stdout = times.ReplaceAllString(o.stdout, "(T)"), times.ReplaceAllString(i.stdout, "(T)")
		compareOutcomes(t, o, i)
		db := openDB(t, dir)
		defer db.Close()
		for _, fn := range []string{"example.com/semantics/lib.TestReverse", "example.com/semantics/lib.check", "example.com/semantics/lib_test.TestWords", "example.com/semantics/lib_test.ExampleReverse"} {
			if got := queryStrings(t, db, "SELECT count(*) FROM executions WHERE run = "+strconv.FormatInt(run, 10)+" AND f = '"+fn+"'"); got[0] == "0" {
				t.Errorf("no execution of %s recorded", fn)
			}
		}
	})
}

// checkSpawned checks the go statements of goroutines(): four workers
// and a function literal, each recorded with its first parameter; and
// the goroutines of goShapes() and of the generic spawnEach.
func checkSpawned(t *testing.T, dir string, run int64) {
	t.Helper()
	db := openDB(t, dir)
	defer db.Close()
	got := queryStrings(t, db, "SELECT g || ' ' || json_extract(ps, '$[0]') FROM spawned WHERE run = "+strconv.FormatInt(run, 10)+" AND f = 'main.goroutines' AND json_array_length(ps) > 0")
	want := "main.goroutines.func1 100 main.worker 1 main.worker 2 main.worker 3 main.worker 4"
	if strings.Join(got, " ") != want {
		t.Errorf("spawned by goroutines: %q, want %q", got, want)
	}
	// goShapes' nine go statements, each one goroutine: a method value
	// and a method expression of note, report's value receiver, the
	// local func note (func2) by name twice and as f, a function literal
	// (func3), and sendSum inferred and instantiated. spawnEach, generic,
	// starts a generic function and a literal for each of its two
	// elements. A goroutine ends after its function's deferred calls,
	// which may release main (wg.Done) before its end is recorded: the
	// program may end first, and the goroutine has no end then, as the
	// semantics says. So every goroutine is spawned, and those with a
	// duration are among them, with a positive one.
	for _, c := range []struct{ spawner, want string }{
		{"main.goShapes", "main.(*counter).note main.(*counter).note main.counter.report main.goShapes.func2 main.goShapes.func2 main.goShapes.func2 main.goShapes.func3 main.sendSum[...] main.sendSum[...]"},
		{"main.spawnEach[...]", "main.fillAt[...] main.fillAt[...] main.spawnEach[...].func1 main.spawnEach[...].func1"},
	} {
		where := " WHERE run = " + strconv.FormatInt(run, 10) + " AND f = '" + c.spawner + "'"
		got := queryStrings(t, db, "SELECT n FROM goroutines_spawned"+where+" ORDER BY n")
		if strings.Join(got, " ") != c.want {
			t.Errorf("goroutines of %s: %q, want %q", c.spawner, got, c.want)
		}
		ended := queryStrings(t, db, "SELECT count(*) || ' ' || coalesce(min(d > 0), 1) FROM goroutine_lives"+where+
			" AND g IN (SELECT g FROM goroutines_spawned"+where+")")
		total := queryStrings(t, db, "SELECT count(*) FROM goroutine_lives"+where)
		if len(ended) != 1 || !strings.HasSuffix(ended[0], " 1") || strings.Fields(ended[0])[0] != total[0] {
			t.Errorf("goroutines of %s with a duration: %v of %v, want all among those spawned, each positive", c.spawner, ended, total)
		}
	}
}

// TestSemanticsGo112 instruments a module whose go directive is 1.12: the
// injected code and the runtime must compile without generics, any, min,
// max or range over an int. Then the same module at go 1.2, before type
// aliases (go1.9), which the runtime uses: its files carry their own
// language version (github.com/emirpasic/gods v1.18.1 is at go 1.2).
func TestSemanticsGo112(t *testing.T) {
	for _, directive := range []string{"", "1.2"} {
		t.Run("go"+cmp.Or(directive, "1.12"), func(t *testing.T) {
			var dir, orig string
			if directive == "" {
				dir, orig, _ = semanticsModule(t, "go112")
			} else {
				dir, orig, _ = semanticsModuleAt(t, "go112", directive)
			}
			for _, mode := range []string{"", "panic"} {
				var args []string
				if mode != "" {
					args = []string{mode}
				}
				o := runOriginal(t, dir, orig, args...)
				i, _ := runInstrumented(t, dir, append([]string{"run", ".", "--"}, args...)...)
				compareOutcomes(t, o, i)
			}
		})
	}
}

func openDB(t testing.TB, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestSemanticsRecoverElsewhere defers, in a function whose calls are
// call sites, a function of a package without sites that recovers: pmm
// must read its source and leave the deferred call direct, the site's
// code deferred around it.
func TestSemanticsRecoverElsewhere(t *testing.T) {
	dir, orig, warnings := semanticsModule(t, "recoverdep")
	for _, call := range []string{"defer util.Recover(&err)", "defer util.Plain()"} {
		if strings.Contains(warnings, siteLine(t, dir, "main.go", call)) {
			t.Errorf("the deferred call %s was refused:\n%s", call, warnings)
		}
	}
	overlay, err := os.ReadFile(filepath.Join(dir, ".pmm", "overlay", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(overlay), "defer util.Recover(&err)") {
		t.Errorf("the deferred call of util.Recover is no longer direct:\n%s", overlay)
	}
	inst, _ := runInstrumented(t, dir, "run", ".")
	compareOutcomes(t, runOriginal(t, dir, orig), inst)
}

// TestSemanticsTwin instruments the same program with -twin (instrument.Options.Twin)
// and checks that the program behaves as it does without pmm, but for
// what -twin says it changes: the frame of a function whose body runs
// in its twin, while recording, is two frames, the twin (F.funcN, at
// the user's line) and F itself (at another line); collapseTwins
// makes them one in both outputs.
func TestSemanticsTwin(t *testing.T) {
	dir, orig, _ := semanticsModule(t, "modern", "--tests", "-twin")
	twins := 0
	for _, f := range []string{"main.go", "ends.go", "results.go", "methods.go"} {
		src, err := os.ReadFile(filepath.Join(dir, ".pmm", "overlay", f))
		if err != nil {
			t.Fatal(err)
		}
		twins += strings.Count(string(src), "}() };") + strings.Count(string(src), "}(); return };")
	}
	if twins == 0 {
		t.Fatal("-twin gave no function a twin")
	}
	runModes(t, []string{"", "panic", "runtime-error", "repanic", "go-panic", "exit", "goexit", "defer-nil-interface"}, func(t *testing.T, mode string, args []string) {
		o := runOriginal(t, dir, orig, args...)
		i, run := runInstrumented(t, dir, append([]string{"run", ".", "--"}, args...)...)
		o.stdout, i.stdout = collapseTwins(normalizeStdout(o.stdout)), collapseTwins(normalizeStdout(i.stdout))
		o.stderr, i.stderr = collapseTwins(normalizeStderr(o.stderr)), collapseTwins(normalizeStderr(i.stderr))
		compareOutcomes(t, o, i)
		if mode == "" {
			checkRecorded(t, dir, run, o.stdout)
		}
	})
}

// runModes runs f as a subtest for each mode of the semantics program
// (its argument; "" runs every section, the subtest "all").
func runModes(t *testing.T, modes []string, f func(t *testing.T, mode string, args []string)) {
	for _, mode := range modes {
		name, args := mode, []string{mode}
		if mode == "" {
			name, args = "all", nil
		}
		t.Run(name, func(t *testing.T) { f(t, mode, args) })
	}
}

// collapseTwins makes the frames "F.funcN at L" then "F at M" (a function
// literal called by the function that holds it: a twin, or the user's
// own) one frame "F at L", in the lines of frames of normalizeStderr
// and of the programs' "frame" lines.
func collapseTwins(s string) string {
	lines := strings.Split(s, "\n")
	fn := func(l string) string {
		if f := strings.Fields(strings.TrimPrefix(l, "frame ")); len(f) > 0 {
			return f[0]
		}
		return ""
	}
	var out []string
	for i := 0; i < len(lines); i++ {
		out = append(out, lines[i])
		if i+1 < len(lines) && strings.HasPrefix(lines[i], "frame ") == strings.HasPrefix(lines[i+1], "frame ") {
			if inner := fn(lines[i]); twinName.MatchString(inner) && twinName.FindStringSubmatch(inner)[1] == fn(lines[i+1]) {
				out[len(out)-1] = strings.Replace(lines[i], inner, fn(lines[i+1]), 1)
				i++
			}
		}
	}
	return strings.Join(out, "\n")
}

var twinName = regexp.MustCompile(`^(.+)\.(?:func)?\d+$`)

// TestSemanticsRace builds the instrumented semantics program, where
// every function, call, region, loop iteration and blocking operation is
// a site, with the race detector: its output must be the original's, and
// the detector must report no race in pmm's code or the program's.
func TestSemanticsRace(t *testing.T) {
	dir, orig, _ := semanticsModule(t, "modern")
	cc, err := exec.Command("go", "env", "CC").Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath(strings.TrimSpace(string(cc))); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no C compiler (go env CC is %q): the race detector needs cgo", strings.TrimSpace(string(cc)))
		}
		t.Skipf("no C compiler (go env CC is %q): the race detector needs cgo", strings.TrimSpace(string(cc)))
	}
	bin := filepath.Join(t.TempDir(), "race")
	goBuild(t, dir, "build", "-race", "-overlay", filepath.Join(dir, ".pmm", "overlay.json"), "-o", bin, ".")
	o, r := runOriginal(t, dir, orig), runOriginal(t, dir, bin)
	if strings.Contains(r.stderr, "DATA RACE") {
		t.Fatalf("the race detector reports a race:\n%s", r.stderr)
	}
	compareOutcomes(t, o, r)
}
