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
