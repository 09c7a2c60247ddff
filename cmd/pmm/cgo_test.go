package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCgoPackage instruments testdata/cgo, whose main package uses cgo:
// F, which calls C, and G, whose parameter and result have C types, are
// recorded at every execution, with their parameters and F's result, as
// the program counts and sums them; the overlay keeps the C preamble as
// it is, and the user's files are unchanged.
func TestCgoPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an instrumented program")
	}
	cc, err := exec.Command("go", "env", "CC").Output()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath(strings.TrimSpace(string(cc))); err != nil {
		t.Skipf("no C compiler (go env CC is %q): cgo cannot build here", strings.TrimSpace(string(cc)))
	}
	dir := copyModule(t, "../../testdata/cgo")
	original, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s", code, errOut)
	}
	const n = 9
	code, out, errOut := runPMM(t, dir, "run", ".", "--", "-n", fmt.Sprint(n))
	if code != exitOK {
		t.Fatalf("pmm run: exit %d\n%s", code, errOut)
	}
	var calls, total, gCalls, sumA, sumB int
	if _, err := fmt.Sscanf(out, "calls %d total %d gcalls %d suma %d sumb %d", &calls, &total, &gCalls, &sumA, &sumB); err != nil || calls != n {
		t.Fatalf("the program said %q (%v)", out, err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := queryStrings(t, db, "SELECT count(*), count(DISTINCT i), sum(r), sum(r = 2 * i) FROM f_calls")
	if want := []string{fmt.Sprintf("%d %d %d %d", calls, calls, total, calls)}; !slices.Equal(got, want) {
		t.Errorf("f-calls: count, distinct i, sum of results, results twice i: %q, want %q", got, want)
	}
	got = queryStrings(t, db, "SELECT count(*), sum(b) FROM g_calls")
	if want := []string{fmt.Sprintf("%d %d", gCalls, sumB)}; !slices.Equal(got, want) {
		t.Errorf("g-calls: count, sum of b: %q, want %q", got, want)
	}
	got = queryStrings(t, db, "SELECT count(*), sum(a) FROM g_sums")
	if want := []string{fmt.Sprintf("%d %d", gCalls, sumA)}; !slices.Equal(got, want) {
		t.Errorf("g-sums: count, sum of a (a C.int64_t): %q, want %q", got, want)
	}
	if got := queryStrings(t, db, "SELECT question || ': ' || reason FROM pmm_incomplete"); len(got) != 0 {
		t.Errorf("answers flagged incomplete: %q", got)
	}
	// The overlay replaces main.go with its rewriting, C preamble included.
	data, err := os.ReadFile(filepath.Join(dir, ".pmm", "overlay.json"))
	if err != nil {
		t.Fatal(err)
	}
	var overlay struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &overlay); err != nil {
		t.Fatal(err)
	}
	rewritten, err := os.ReadFile(overlay.Replace[filepath.Join(dir, "main.go")])
	if err != nil {
		t.Fatalf("main.go is not rewritten: %v", err)
	}
	_, preamble, _ := strings.Cut(string(original), "/*")
	preamble, _, _ = strings.Cut(preamble, "*/\nimport \"C\"")
	if !strings.Contains(string(rewritten), "/*"+preamble+"*/\nimport \"C\"") {
		t.Errorf("the rewritten main.go lost its C preamble:\n%s", rewritten)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "main.go")); string(now) != string(original) {
		t.Error("pmm changed the user's main.go")
	}
}
