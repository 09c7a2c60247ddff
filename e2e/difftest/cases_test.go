package difftest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/golden"
	"pmm.dev/pmm/internal/progen"
	"pmm.dev/pmm/internal/refeval"
	"pmm.dev/pmm/internal/reftrace"
)

var update = flag.Bool("update", false, "rewrite the reference answers of testdata/difftest")

// casesDir holds the regression cases: one directory per class of
// disagreement the differential test found, each a module (main.go,
// questions.pmm) with its traced twin (twin/main.go, written by hand
// like the generator's twins), want.txt (the reference's answers),
// known.txt (the questions and modes where pmm disagrees today) and, for
// a class where pmm flagged answers it can give exactly, exact.txt (why
// every answer of the case must be exact).
const casesDir = "../../testdata/difftest"

// TestRegressionCases checks the reference's answers to each regression
// case against want.txt; unless -short, it also runs pmm in the four
// modes and checks that pmm disagrees with the reference, without
// flagging the answer as incomplete, exactly where known.txt says: a fix makes the test fail until its lines are
// removed from known.txt. A case with exact.txt fails on a flagged
// answer too.
func TestRegressionCases(t *testing.T) {
	cases, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	withPMM := !testing.Short()
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			dir := filepath.Join(casesDir, c.Name())
			ref, questions := caseReference(t, dir)
			var b strings.Builder
			for _, q := range questions {
				fmt.Fprintf(&b, "%s: %s\n", q, strings.Join(ref[q].Canonical(), "; "))
			}
			golden.Check(t, filepath.Join(dir, "want.txt"), b.String(), *update)
			if !withPMM {
				return
			}
			e := env(t)
			e.Dir = filepath.Join(e.Dir, c.Name())
			known := readKnown(t, dir)
			_, err := os.Stat(filepath.Join(dir, "exact.txt"))
			exact := err == nil
			for _, mode := range Modes {
				mdir := filepath.Join(e.Dir, mode)
				copyModule(t, dir, mdir)
				copyFiles(t, dir, mdir, "questions.pmm")
				for _, r := range e.Compare(mdir, mode, questions, ref) {
					// An answer pmm flags as incomplete is not silently
					// wrong: known.txt lists only the others.
					key := r.Question + " " + mode
					wrong := r.Outcome != Equal && r.Outcome != Flagged
					switch {
					case wrong && !known[key]:
						t.Errorf("%s --mode %s: %s: %s", r.Question, mode, r.Outcome, r.Detail)
					case !wrong && known[key]:
						t.Errorf("%s --mode %s is %s now: remove it from known.txt", r.Question, mode, r.Outcome)
					case wrong:
						t.Logf("known: %s --mode %s: %s: %s", r.Question, mode, r.Outcome, r.Detail)
					case r.Outcome == Flagged && exact:
						t.Errorf("%s --mode %s is flagged, where exact.txt says every answer is exact: %s", r.Question, mode, r.Detail)
					case r.Outcome == Flagged:
						t.Logf("flagged: %s --mode %s: %s", r.Question, mode, r.Detail)
					}
				}
			}
		})
	}
}

// caseReference runs a case's twin and returns the reference's answers
// and the questions, in the file's order.
func caseReference(t *testing.T, dir string) (map[string]*refeval.Answer, []string) {
	t.Helper()
	twin := filepath.Join(t.TempDir(), "twin")
	if copyModule(t, filepath.Join(dir, "twin"), twin) {
		// A twin of several packages imports the tracer's package.
		if err := progen.WriteTracerPackage(twin); err != nil {
			t.Fatal(err)
		}
	} else if err := progen.WriteTraceRuntime(twin); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(twin, "trace.jsonl")
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = twin
	cmd.Env = append(os.Environ(), progen.TraceEnv+"="+trace)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the twin: %v\n%s", err, out)
	}
	tr, err := reftrace.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, "questions.pmm"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := ReferenceAnswers(string(text), tr)
	if err != nil {
		t.Fatal(err)
	}
	var questions []string
	for q := range ref {
		questions = append(questions, q)
	}
	sort.Strings(questions)
	return ref, questions
}

func readKnown(t *testing.T, dir string) map[string]bool {
	known := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(dir, "known.txt"))
	if os.IsNotExist(err) {
		return known
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			known[line] = true
		}
	}
	return known
}

// copyModule copies the module in from (go.mod and the Go files of its
// packages, but those of a twin/ directory) to to, and reports whether
// it has packages other than main.
func copyModule(t *testing.T, from, to string) (packages bool) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			if rel == "twin" {
				return filepath.SkipDir
			}
			return nil
		}
		if rel != "go.mod" && !strings.HasSuffix(rel, ".go") {
			return nil
		}
		if filepath.Dir(rel) != "." {
			packages = true
		}
		copyFiles(t, filepath.Dir(path), filepath.Join(to, filepath.Dir(rel)), d.Name())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return packages
}

func copyFiles(t *testing.T, from, to string, names ...string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(from, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
