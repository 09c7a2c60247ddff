package main

import (
	"os"
	"os/exec"
	"path/filepath"
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
	plain := exec.Command("go", "run", ".")
	plain.Dir = dir
	want, err := plain.Output()
	if err != nil {
		t.Fatalf("go run: %v", err)
	}
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
	wantLines := strings.Split(strings.TrimSpace(string(want)), "\n")
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
