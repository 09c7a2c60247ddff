package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// copyModule copies a test module to a temporary directory, so that the
// .pmm/ that commands write stays out of testdata.
func copyModule(t testing.TB, dir string) string {
	t.Helper()
	tmp := t.TempDir()
	if err := os.CopyFS(tmp, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(tmp, ".pmm")); err != nil {
		t.Fatal(err)
	}
	return tmp
}

// TestExplainFigure41 is the golden test of pmm explain --json on the
// seed's example: Figure 4.2 on the Figure 4.1 program.
func TestExplainFigure41(t *testing.T) {
	dir := copyModule(t, "../../testdata/fig41")
	code, out, errOut := runPMM(t, dir, "explain", "--json", "questions.pmm")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Check(t, "testdata/explain_fig41.golden", out, *update)
}

func TestExplainText(t *testing.T) {
	dir := copyModule(t, "../../testdata/sites")
	code, out, errOut := runPMM(t, dir, "explain", "./...", "questions.pmm")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	containsAll(t, "output", out,
		"question areas",
		"call of main.(*Circle).Area in main.total",
		"eliminated 23 of 25: cannot satisfy (calls t x)")
	containsAll(t, "stderr", errOut,
		`warning: question nothing: event x: no function named "main.totl" in the program`,
		`did you mean "main.total"?`)
	if code, _, errOut := runPMM(t, dir, "explain", "./..."); code != exitUsage || !strings.Contains(errOut, "no question files") {
		t.Errorf("explain without questions: exit %d, %s", code, errOut)
	}
}
