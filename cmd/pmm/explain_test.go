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

// TestInstrumentReusesUnchanged: pmm instrument with nothing changed
// since the last one reuses .pmm/ as it is and says the same; a change of
// the questions, of a source file or of the mode, or an overlay file
// removed, makes it anew.
func TestInstrumentReusesUnchanged(t *testing.T) {
	dir := copyModule(t, "../../testdata/cache")
	const reused = "nothing changed since the last pmm instrument"
	instrument := func(args ...string) (string, string) {
		t.Helper()
		code, out, errOut := runPMM(t, dir, append([]string{"instrument"}, args...)...)
		if code != exitOK {
			t.Fatalf("pmm instrument %v: exit %d\n%s%s", args, code, out, errOut)
		}
		return out, errOut
	}
	first, firstErr := instrument("./...", "questions.pmm")
	if strings.Contains(first, reused) {
		t.Fatalf("the first pmm instrument says %q", reused)
	}
	again, againErr := instrument("./...", "questions.pmm")
	if !strings.Contains(again, reused) {
		t.Fatalf("pmm instrument with nothing changed does not say %q:\n%s", reused, again)
	}
	if rest := strings.Replace(again, reused+": .pmm/ is reused as it is\n", "", 1); rest != first || againErr != firstErr {
		t.Errorf("pmm instrument reusing .pmm/ says otherwise than when it made it:\n%s%s\nwant:\n%s%s", rest, againErr, first, firstErr)
	}
	for _, c := range []struct {
		what   string
		change func()
		args   []string
	}{
		{"the mode", func() {}, []string{"-mode", "static", "./...", "questions.pmm"}},
		{"the questions", func() { appendFile(t, filepath.Join(dir, "questions.pmm"), "\n; a comment\n") }, nil},
		{"a source file", func() { appendFile(t, filepath.Join(dir, "main.go"), "\n// a comment\n") }, nil},
		{"an overlay file removed", func() {
			files, _ := filepath.Glob(filepath.Join(dir, ".pmm", "overlay", "*.go"))
			if len(files) == 0 {
				t.Fatal("no overlay file")
			}
			os.Remove(files[0])
		}, nil},
	} {
		instrument("./...", "questions.pmm") // the state to change
		c.change()
		args := c.args
		if args == nil {
			args = []string{"./...", "questions.pmm"}
		}
		if out, _ := instrument(args...); strings.Contains(out, reused) {
			t.Errorf("after a change of %s, pmm instrument reused .pmm/", c.what)
		}
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}
