package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStateOnStack runs testdata/stateescape in every mode: the program
// measures its own allocations per call of mid with
// testing.AllocsPerRun, and instrumented it must measure 0, as plain.
// In --mode runtime, the call site of atomic's Add in mid, which has
// the code of a calls* ancestor (a goroutine-local context, Ctx), takes
// mid's state by pointer, and leaving the Ctx leaked it: the state of
// every execution of mid moved to the heap, one allocation per call (a
// test of the program's allocations failed under pmm). The call sites of
// fetch, in --mode runtime and combined, take lookup's state too: it was
// a field of theirs, and recording their Key (an any, which leaks) moved
// it to the heap. No site's state may move to the heap, as the compiler
// says (-gcflags=-m).
func TestStateOnStack(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	queries := map[string]string{
		"leaves":  "SELECT count FROM leaf_count",
		"adds":    "SELECT count FROM add_count",
		"repeats": "SELECT count FROM repeats",
	}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			out, db, dir := instrumentInModeAt(t, "../../testdata/stateescape", mode)
			if !strings.Contains(out, "allocations per call: 0\n") {
				t.Errorf("the instrumented program allocates:\n%s", out)
			}
			checkWant(t, db, wantLines(out), queries)
			build := exec.Command("go", "build", "-overlay", ".pmm/overlay.json", "-gcflags=-m", "-o", "/dev/null", ".")
			build.Dir = dir
			m, err := build.CombinedOutput()
			if err != nil {
				t.Fatalf("go build: %v\n%s", err, m)
			}
			for _, l := range strings.Split(string(m), "\n") {
				if strings.Contains(l, "moved to heap: pmm__") {
					t.Errorf("a site's state moves to the heap: %s", l)
				}
			}
		})
	}
}
