package realmodules

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// expr is the module of issue 12's figure for pmm instrument again.
var expr = module{Path: "github.com/expr-lang/expr", Version: "v1.16.9"}

// againQuestions are the durations of every function, and the parameters
// of the function named: changing the name changes the sites of two
// functions of the 2,944.
func againQuestions(name string) string {
	return `(defquestion all-durations :definition
  ((x n d) s.t. (and (function-execution x n) (duration x d))))
(defquestion one-params :definition
  ((x p) s.t. (and (function-execution x "` + name + `") (parameters x p))))
`
}

// renumbering is a question that adds sites in the first file of expr
// that has some (ast.Walk's calls of itself): every site after them in
// source order has another site number (plan.Target.SiteID) and helper
// names, and the code of their files changes.
const renumbering = `(defquestion walk-calls :definition
  ((x y) s.t. (and (function-execution x "github.com/expr-lang/expr/ast.Walk")
                   (function-execution y "github.com/expr-lang/expr/ast.Walk")
                   (calls x y))))
`

// BenchmarkInstrumentAgain fetches expr-lang/expr through the module
// proxy, instruments it for againQuestions (its static database is
// built then, and reused after), and per iteration measures, in the same
// run, the wall time and the CPU time (user and system, of pmm and the
// go commands it runs) of
//
//   - s-changed: pmm instrument after the questions changed (another
//     function named), .pmm/ as the questions before left it;
//   - s-fresh: pmm instrument of the same questions with the static
//     database only (.pmm/'s overlay, plan and sums removed): all the
//     code made anew;
//   - s-unchanged: pmm instrument again with nothing changed;
//   - s-renumbered: pmm instrument after the questions before with
//     renumbering added, .pmm/ as the questions before left it;
//   - s-vet: go vet ./... with nothing changed (its results cached);
//
// and reports the medians over the iterations, with cpu-* the CPU
// seconds, and x-changed-fresh, x-changed-vet: the medians of the
// ratios of each iteration. PMM_BENCH_PMM names another pmm binary (one
// built from an earlier commit: the figures before a change).
// docs/PERFORMANCE.md has the figures:
//
//	go test ./e2e/realmodules -run '^$' -bench InstrumentAgain -benchtime 5x -timeout 30m
func BenchmarkInstrumentAgain(b *testing.B) {
	dir := fetch(b, expr)
	questions := filepath.Join(dir, "q.pmm")
	instrument := func(name string, more ...string) (wall, cpu float64) {
		b.Helper()
		if err := os.WriteFile(questions, []byte(againQuestions(name)+strings.Join(more, "")), 0o644); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(pmmBin, "instrument", "./...", "q.pmm")
		cmd.Dir, cmd.Env = dir, goEnv()
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("pmm instrument: %v\n%s", err, out)
		}
		return time.Since(start).Seconds(), cpuSeconds(cmd)
	}
	const before, after = "github.com/expr-lang/expr/vm.(*VM).Run", "github.com/expr-lang/expr/parser.(*parser).parseExpression"
	instrument(before)
	vet(b, dir) // its results cached from now on
	walls, cpus := map[string][]float64{}, map[string][]float64{}
	var ratioFresh, ratioVet []float64
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		instrument(before)
		wall, cpu := instrument(after)
		walls["changed"], cpus["changed"] = append(walls["changed"], wall), append(cpus["changed"], cpu)
		wall, cpu = instrument(after)
		walls["unchanged"], cpus["unchanged"] = append(walls["unchanged"], wall), append(cpus["unchanged"], cpu)
		wall, cpu = instrument(after, renumbering)
		walls["renumbered"], cpus["renumbered"] = append(walls["renumbered"], wall), append(cpus["renumbered"], cpu)
		for _, f := range []string{"overlay", "overlay.json", "overlay.sum", "plan.json"} {
			if err := os.RemoveAll(filepath.Join(dir, ".pmm", f)); err != nil {
				b.Fatal(err)
			}
		}
		wall, cpu = instrument(after)
		walls["fresh"], cpus["fresh"] = append(walls["fresh"], wall), append(cpus["fresh"], cpu)
		wall, cpu = vet(b, dir)
		walls["vet"], cpus["vet"] = append(walls["vet"], wall), append(cpus["vet"], cpu)
		ratioFresh = append(ratioFresh, walls["changed"][n]/walls["fresh"][n])
		ratioVet = append(ratioVet, walls["changed"][n]/walls["vet"][n])
	}
	b.StopTimer()
	for _, what := range []string{"changed", "fresh", "unchanged", "renumbered", "vet"} {
		b.ReportMetric(median(walls[what]), "s-"+what)
		b.ReportMetric(median(cpus[what]), "cpu-"+what)
		b.Logf("%s: wall %s, cpu %s (min/median/max, s)", what, spread(walls[what]), spread(cpus[what]))
	}
	b.ReportMetric(median(ratioFresh), "x-changed-fresh")
	b.ReportMetric(median(ratioVet), "x-changed-vet")
}

// vet runs go vet ./... in dir and returns its wall and CPU seconds. Its
// findings are not errors here (expr's examples name identifiers vet
// does not find); a failure to build is.
func vet(b *testing.B, dir string) (wall, cpu float64) {
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir, cmd.Env = dir, goEnv()
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil && (strings.Contains(string(out), "[build failed]") || strings.Contains(string(out), "cannot find")) {
		b.Fatalf("go vet: %v\n%s", err, out)
	}
	return time.Since(start).Seconds(), cpuSeconds(cmd)
}

// cpuSeconds is the user and system time of a command that ran, its
// children included.
func cpuSeconds(cmd *exec.Cmd) float64 {
	return (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
}

// spread is the least, the median and the greatest of xs.
func spread(xs []float64) string {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return fmt.Sprintf("%.2f/%.2f/%.2f", s[0], median(s), s[len(s)-1])
}

// BenchmarkInstrumentAfterEdit fetches expr-lang/expr through the module
// proxy and per iteration measures, in the same run, the wall and CPU
// seconds (of the go commands run included) of go vet ./... and of pmm
// instrument (againQuestions: 2,944 sites), each after an edit of every
// Go file of the module (a comment appended, another for each command,
// so that each compiles or analyses the module anew), in alternating
// order: s-vet and s-pmm, cpu-vet and cpu-pmm, and x-pmm-vet, the
// median of the iterations' ratios of wall times (x-cpu-pmm-vet: of CPU
// seconds). Issue 12's target: x-pmm-vet at most 1.0. PMM_BENCH_PMM
// names another pmm binary (the figures before a change).
//
//	go test ./e2e/realmodules -run '^$' -bench InstrumentAfterEdit -benchtime 5x -timeout 30m
func BenchmarkInstrumentAfterEdit(b *testing.B) {
	dir := fetch(b, expr)
	if err := os.WriteFile(filepath.Join(dir, "q.pmm"), []byte(againQuestions("github.com/expr-lang/expr/vm.(*VM).Run")), 0o644); err != nil {
		b.Fatal(err)
	}
	edits := 0
	edit := func() {
		edits++
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && d.Name() == ".pmm":
				return filepath.SkipDir
			case d.IsDir() || !strings.HasSuffix(path, ".go"):
				return nil
			}
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(f, "\n// edit %d\n", edits)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	instrument := func() (wall, cpu float64) {
		cmd := exec.Command(pmmBin, "instrument", "./...", "q.pmm")
		cmd.Dir, cmd.Env = dir, goEnv()
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("pmm instrument: %v\n%s", err, out)
		}
		return time.Since(start).Seconds(), cpuSeconds(cmd)
	}
	instrument()
	vet(b, dir)
	walls, cpus := map[string][]float64{}, map[string][]float64{}
	var ratio, ratioCPU []float64
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		order := []string{"vet", "pmm"}
		if n%2 == 1 {
			order = []string{"pmm", "vet"}
		}
		for _, what := range order {
			edit()
			var wall, cpu float64
			if what == "vet" {
				wall, cpu = vet(b, dir)
			} else {
				wall, cpu = instrument()
			}
			walls[what], cpus[what] = append(walls[what], wall), append(cpus[what], cpu)
		}
		ratio = append(ratio, walls["pmm"][n]/walls["vet"][n])
		ratioCPU = append(ratioCPU, cpus["pmm"][n]/cpus["vet"][n])
	}
	b.StopTimer()
	for _, what := range []string{"vet", "pmm"} {
		b.ReportMetric(median(walls[what]), "s-"+what)
		b.ReportMetric(median(cpus[what]), "cpu-"+what)
		b.Logf("%s: wall %s, cpu %s (min/median/max, s)", what, spread(walls[what]), spread(cpus[what]))
	}
	b.Logf("x-pmm-vet %s, x-cpu-pmm-vet %s (min/median/max)", spread(ratio), spread(ratioCPU))
	b.ReportMetric(median(ratio), "x-pmm-vet")
	b.ReportMetric(median(ratioCPU), "x-cpu-pmm-vet")
}
