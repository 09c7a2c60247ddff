package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// everyFunction instruments every function of a module: a count and a
// summed duration per function.
const everyFunction = `(defevent exec :definition ((x n) s.t. (function-execution x n)))
(defquestion calls-per-function :definition (count exec (output input)))
(defevent dur :definition ((x n d) s.t. (and (function-execution x n) (duration x d))))
(defquestion time-per-function :definition (sum dur (output input output)))
`

// TestDefinitionSitesAllocateNothing runs testdata/allocs plain and with
// every function instrumented: each function it measures allocates the
// same objects and bytes per call (testing.AllocsPerRun, MemStats) in
// both, so the code of a definition site adds no heap allocation
// (docs/MEMORY.md: the callers' call wrappers do, which this program
// keeps out of what it measures).
func TestDefinitionSitesAllocateNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an instrumented program")
	}
	dir := copyModule(t, "../../testdata/allocs")
	want := plainOutput(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "every.pmm"), []byte(everyFunction), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runPMM(t, dir, "instrument", "./...", "every.pmm"); code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
	}
	code, got, errOut := runPMM(t, dir, "run", ".")
	if code != exitOK {
		t.Fatalf("pmm run: exit %d\n%s", code, errOut)
	}
	wantLines := strings.Split(strings.TrimSpace(want), "\n")
	var gotLines []string
	for _, line := range strings.Split(got, "\n") {
		if f := strings.Fields(line); len(f) == 3 && slices.ContainsFunc(wantLines, func(w string) bool { return strings.HasPrefix(w, f[0]+" ") }) {
			gotLines = append(gotLines, line)
		}
	}
	if !slices.Equal(gotLines, wantLines) {
		t.Errorf("allocations per call (function, allocations, bytes) instrumented:\n%s\nplain:\n%s", strings.Join(gotLines, "\n"), want)
	}
	if len(wantLines) != 19 {
		t.Errorf("the program measured %d functions, want 19", len(wantLines))
	}
}

// TestCallSitesKeepEscapes builds programs plain and instrumented and
// compares what escape analysis decides in the user's files: the same
// values move to the heap in both builds. A call site's wrapper calls a
// static callee by its name, or a static method of the receiver it takes
// (instrument's staticCallee); through a function value, every argument
// passed by reference escaped (testdata/allocs: measure's two MemStats,
// the variadic slice of fmt.Printf, the function literals main passes to
// measure), and so did every variable whose method a question recorded
// at its call (testdata/callescapes, which calls in every form the
// wrapper passes a receiver). Only the copies the plain build inlines of
// a function whose body now has pmm's code (mk, in Inlined) may be
// missing: pmm's code keeps it from being inlined. Maps' assignments
// (testdata/mapescapes) pass their key, value and map through pmm's
// helpers: nothing more escapes.
func TestCallSitesKeepEscapes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds instrumented programs")
	}
	t.Run("allocs", func(t *testing.T) {
		dir := copyModule(t, "../../testdata/allocs")
		if err := os.WriteFile(filepath.Join(dir, "every.pmm"), []byte(everyFunction), 0o644); err != nil {
			t.Fatal(err)
		}
		sameEscapes(t, dir, "every.pmm", 20)
	})
	t.Run("mapescapes", func(t *testing.T) {
		// Maps' assignments: their key, value and map pass through
		// pmm's helpers.
		dir := copyModule(t, "../../testdata/mapescapes")
		want := plainOutput(t, dir)
		sameEscapes(t, dir, "questions.pmm", 10)
		if code, got, errOut := runPMM(t, dir, "run", "."); code != exitOK || !strings.Contains(got, want) {
			t.Errorf("pmm run: exit %d, printed\n%s%s\nwant what the plain program prints:\n%s", code, got, errOut, want)
		}
	})
	t.Run("callescapes", func(t *testing.T) {
		dir := copyModule(t, "../../testdata/callescapes")
		want := plainOutput(t, dir)
		sameEscapes(t, dir, "questions.pmm", 2)
		code, got, errOut := runPMM(t, dir, "run", ".")
		if code != exitOK {
			t.Fatalf("pmm run: exit %d\n%s", code, errOut)
		}
		if !strings.Contains(got, want) {
			t.Errorf("pmm run printed\n%s\nwant what the plain program prints:\n%s", got, want)
		}
		// use makes 15 calls, and main calls it 3 times.
		code, answer, errOut := runPMM(t, dir, "answer", "-json")
		if code != exitOK {
			t.Fatalf("pmm answer: exit %d\n%s", code, errOut)
		}
		var answers struct {
			Answers []struct {
				Question string
				Rows     []map[string]any
			}
		}
		if err := json.Unmarshal([]byte(answer), &answers); err != nil {
			t.Fatalf("pmm answer -json: %v\n%s", err, answer)
		}
		if len(answers.Answers) != 1 || len(answers.Answers[0].Rows) != 1 || answers.Answers[0].Rows[0]["count"] != 45.0 {
			t.Errorf("calls-in-use: want one row, a count of 45; got\n%s", answer)
		}
	})
}

// sameEscapes instruments the module in dir for the questions in file
// and fails for every value escape analysis moves to the heap in one
// build and not the other, in main.go; the plain build must report at
// least least such decisions.
// plainOutput is what the program in dir prints, built without pmm.
func plainOutput(t *testing.T, dir string) string {
	t.Helper()
	plain := exec.Command("go", "run", ".")
	plain.Dir = dir
	out, err := plain.Output()
	if err != nil {
		t.Fatalf("go run: %v", err)
	}
	return string(out)
}

func sameEscapes(t *testing.T, dir, file string, least int) {
	t.Helper()
	escapes := func(args ...string) (heap map[string]bool, inlined []string) {
		cmd := exec.Command("go", append([]string{"build", "-gcflags=-m", "-o", os.DevNull}, append(args, ".")...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go build %v: %v\n%s", args, err, out)
		}
		heap = map[string]bool{}
		diag := regexp.MustCompile(`^\./main\.go:(\d+):\d+: (.*)$`)
		// A value an allocation's helper takes: the helper's call is
		// what the compiler names.
		helper := regexp.MustCompile(`^pmm__alloc\d+\((.*)\)( escapes to heap)$`)
		for _, l := range strings.Split(string(out), "\n") {
			m := diag.FindStringSubmatch(l)
			switch {
			case m == nil:
			case strings.HasSuffix(m[2], "escapes to heap") || strings.HasPrefix(m[2], "moved to heap:"):
				heap[m[1]+": "+helper.ReplaceAllString(m[2], "$1$2")] = true
			case strings.HasPrefix(m[2], "inlining call to "):
				inlined = append(inlined, m[1]+": "+strings.TrimPrefix(m[2], "inlining call to "))
			}
		}
		return heap, inlined
	}
	plain, plainInlined := escapes()
	if code, out, errOut := runPMM(t, dir, "instrument", "./...", file); code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
	}
	got, gotInlined := escapes("-overlay", filepath.Join(".pmm", "overlay.json"))
	// Lines where the plain build inlined a call the instrumented one
	// does not: the inlined copy's escapes are the callee's own there.
	lost := map[string]bool{}
	for _, c := range plainInlined {
		if !slices.Contains(gotInlined, c) {
			lost[strings.SplitN(c, ":", 2)[0]] = true
		}
	}
	for d := range got {
		if !plain[d] {
			t.Errorf("instrumented, not plain: main.go:%s", d)
		}
	}
	for d := range plain {
		if !got[d] && !lost[strings.SplitN(d, ":", 2)[0]] {
			t.Errorf("plain, not instrumented: main.go:%s", d)
		}
	}
	if len(plain) < least {
		t.Errorf("the plain build reports %d heap decisions in main.go, want at least %d", len(plain), least)
	}
}
