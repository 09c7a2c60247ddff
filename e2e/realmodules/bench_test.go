package realmodules

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchModule is a module whose own benchmarks BenchmarkCountVsCoverage
// and BenchmarkDurationsVsPlain run, in the packages that have them.
type benchModule struct {
	module
	Name     string   // the short name of the sub-benchmark
	Packages []string // the packages whose benchmarks run
}

// benchModules are the modules of issue 12's figures.
var benchModules = []benchModule{
	{module: module{Path: "github.com/tidwall/gjson", Version: "v1.17.0",
		TestFlags: []string{"-skip", "^(TestJSONString|TestValidRandom)$"},
		Why: "TestJSONString compares gjson's escaping of random strings with encoding/json's, which escapes \\f as \\f since Go 1.22 (gjson as \\u000c): it fails plainly; " +
			"TestValidRandom (and TestJSONString) loop for a fixed time by the clock, 6 s (2 s), not a fixed work: they take as long in any build"},
		Name: "gjson", Packages: []string{"."}},
	{module: module{Path: "github.com/pelletier/go-toml/v2", Version: "v2.2.2"}, Name: "go-toml", Packages: []string{"./benchmark", "./unstable"}},
}

// benchConfig is one build of a module's test binaries.
type benchConfig struct {
	name  string
	flags []string // go test -c flags
	// questions, when set, are the questions pmm instruments the module
	// for before this build (its flags then name .pmm/overlay.json).
	questions string
	// leaves is a pattern of the files a run of this build must leave in
	// PMM_DIR/logs (what shows that it recorded); they are removed after.
	leaves string
	// pmm is the pmm command that instruments it; "" for pmmBin.
	pmm string
	// runArgs are more arguments of its test binaries' runs.
	runArgs []string
	// hand, when set, is the kind of hand-written instrumentation of
	// the build (handOverlay): its peer of pmm's.
	hand string
}

// durationQuestions record every execution of every function of the
// module with its duration: a tuple per execution.
const durationQuestions = `; Every execution of every function, with its duration.
(defquestion durations :definition
  ((x n d) s.t. (and (function-execution x n) (duration x d))))
`

// allocationQuestions record every heap allocation at the module's
// sites with its heap bytes: a record per allocation (testdata/allocbench's
// question).
const allocationQuestions = `; Every heap allocation, with its site's function, kind and type, and
; the bytes the heap took for it.
(defquestion allocations :definition
  ((a f k t h) s.t. (and (allocation a f k t) (allocation-heap-bytes a h))))
`

var (
	plainConfig  = benchConfig{name: "plain"}
	atomicConfig = benchConfig{name: "atomic", flags: []string{"-covermode=atomic", "-coverpkg=./..."}}
	// countConfig counts the executions of every function, per function,
	// in cells.
	countConfig = benchConfig{name: "pmm", flags: []string{"-overlay", ".pmm/overlay.json"}, questions: questions, leaves: "*.pmmagg"}
	// durationsConfig records every execution with its duration.
	durationsConfig = benchConfig{name: "durations", flags: []string{"-overlay", ".pmm/overlay.json"}, questions: durationQuestions, leaves: "*"}
	// allocationsConfig records every allocation at the module's sites.
	allocationsConfig = benchConfig{name: "allocations", flags: []string{"-overlay", ".pmm/overlay.json"}, questions: allocationQuestions, leaves: "*"}
	// memProfileConfig is the plain build run with the heap profile's
	// exact mode, every allocation sampled (the runtime's own accounting).
	memProfileConfig = benchConfig{name: "memprofile", runArgs: []string{"-test.memprofilerate=1"}}
	// handCountConfig and handDurationsConfig are the hand-written
	// peers of countConfig and durationsConfig (hand_test.go).
	handCountConfig     = benchConfig{name: "hand", hand: handCount}
	handDurationsConfig = benchConfig{name: "hand-durations", hand: handDurations}
)

// BenchmarkCountVsCoverage fetches each module of benchModules through
// the module proxy, builds its benchmarks' test binaries three ways:
// plain, with Go's atomic coverage of every package of the module (a
// counter per basic block, exact under concurrency), and instrumented by
// pmm for the executions of every function counted per function; and
// runs them interleaved (the order of the builds rotates between
// repeats), PMM_BENCH_REPEATS times (default 5) with -test.benchtime
// PMM_BENCH_BENCHTIME (default 200ms). For each of the module's
// benchmarks it takes the median ns/op of each build, and reports the
// geometric means over the benchmarks of the ratios of those medians:
// x-pmm-plain, x-pmm-atomic and x-atomic-plain; and, as -min and -max,
// the least and greatest of the same geometric means computed for each
// repeat alone. PMM_BENCH_PMM names another pmm binary to instrument with
// (one built from an earlier commit: the figures before a change).
// docs/PERFORMANCE.md has the figures:
//
//	go test ./e2e/realmodules -run '^$' -bench CountVsCoverage -benchtime 1x -timeout 60m
//
// With PMM_BENCH_BENCHTIME a count of iterations (-test.benchtime 100x:
// the same work in every build) it also reports x-cpu-A-B, the ratios
// of the CPU seconds of each build's runs (compareBenchmarks).
//
// With PMM_BENCH_BEFORE naming another pmm binary, a fourth build,
// before, is the same count instrumented by that one (a commit before a
// change), and x-pmm-before compares the two in the same run.
func BenchmarkCountVsCoverage(b *testing.B) {
	configs, pairs := withBefore([]benchConfig{plainConfig, atomicConfig, handCountConfig, countConfig},
		[][2]string{{"pmm", "plain"}, {"pmm", "atomic"}, {"atomic", "plain"}, {"pmm", "hand"}, {"hand", "plain"}})
	compareBenchmarks(b, benchModules, configs, pairs)
}

// withBefore adds to configs, when PMM_BENCH_BEFORE names another pmm
// binary, a build named before: the last of configs instrumented by that
// pmm (one built from a commit before a change), and to pairs its
// comparisons with that build and with plain.
func withBefore(configs []benchConfig, pairs [][2]string) ([]benchConfig, [][2]string) {
	before := os.Getenv("PMM_BENCH_BEFORE")
	if before == "" {
		return configs, pairs
	}
	c := configs[len(configs)-1]
	name := c.name
	c.name, c.pmm = "before", before
	return append(configs, c), append(pairs, [2]string{name, "before"}, [2]string{"before", "plain"})
}

// BenchmarkDurationsVsPlain is BenchmarkCountVsCoverage's comparison of
// the modules' benchmarks, plain and instrumented by pmm for every
// execution of every function with its duration (durationQuestions: a
// tuple per execution, written to the log), reported as x-durations-plain
// (issue 12: at most 5x on go-toml). The logs of each run are removed
// after it. The same environment variables apply, PMM_BENCH_BEFORE
// included (x-durations-before):
//
//	go test ./e2e/realmodules -run '^$' -bench DurationsVsPlain -benchtime 1x -timeout 60m
func BenchmarkDurationsVsPlain(b *testing.B) {
	configs, pairs := withBefore([]benchConfig{plainConfig, handDurationsConfig, durationsConfig},
		[][2]string{{"durations", "plain"}, {"durations", "hand-durations"}, {"hand-durations", "plain"}})
	compareBenchmarks(b, benchModules, configs, pairs)
}

// BenchmarkAllocationsVsPlain is BenchmarkCountVsCoverage's comparison
// of the modules' benchmarks, plain, instrumented by pmm for every heap
// allocation at the module's sites with its heap bytes
// (allocationQuestions: a record per allocation), and plain under
// MemProfileRate = 1 (the heap profile's exact mode), reported as
// x-allocations-plain (issue 13: at most 2x), x-memprofile-plain and
// x-allocations-memprofile, on allocationModules. The same environment
// variables apply:
//
//	go test ./e2e/realmodules -run '^$' -bench AllocationsVsPlain -benchtime 1x -timeout 60m
func BenchmarkAllocationsVsPlain(b *testing.B) {
	configs, pairs := withBefore([]benchConfig{plainConfig, memProfileConfig, allocationsConfig},
		[][2]string{{"allocations", "plain"}, {"memprofile", "plain"}, {"allocations", "memprofile"}})
	compareBenchmarks(b, allocationModules, configs, pairs)
}

// allocationModules are the modules of benchModules whose benchmarks
// allocate at the module's own sites: go-toml's unmarshalling and
// marshalling benchmarks. gjson's benchmarks (Valid) allocate nothing,
// nor do go-toml's of ./unstable (testing.B's -benchmem: 0 allocs/op).
var allocationModules = []benchModule{{module: benchModules[1].module, Name: "go-toml", Packages: []string{"./benchmark"}}}

// BenchmarkSuiteCount fetches each module of benchModules, builds the
// test binary of each of its packages that has tests, plain and
// instrumented by pmm for the executions of every function counted per
// function, and runs the whole suite (every package's tests, no
// benchmarks; the module's TestFlags leave tests out) of each build
// interleaved, PMM_BENCH_REPEATS times (default 3). It reports the ratio
// of the suite's wall time, pmm over plain, of the medians over the
// repeats (x-pmm-plain) and the least and greatest of single repeats;
// s-plain and s-pmm are the medians in seconds; x-cpu-pmm-plain is the
// same ratio of the CPU seconds (user and system) of the same work.
// Issue 12's target: at most 3x.
//
//	go test ./e2e/realmodules -run '^$' -bench SuiteCount -benchtime 1x -timeout 60m
func BenchmarkSuiteCount(b *testing.B) {
	repeats := envInt(b, "PMM_BENCH_REPEATS", 3)
	configs := []benchConfig{plainConfig, countConfig}
	for _, m := range benchModules {
		b.Run(m.Name, func(b *testing.B) {
			dir := fetch(b, m.module)
			pkgs := testedPackages(b, dir)
			bins := buildConfigs(b, dir, pkgs, configs)
			pmmDir := filepath.Join(b.TempDir(), "pmm")
			for n := 0; n < b.N; n++ {
				times, cpu := runInterleaved(b, configs, pkgs, repeats, func(c benchConfig, i int, pkg string) (map[string]float64, float64) {
					start := time.Now()
					_, cpu := runRecorded(b, filepath.Join(dir, pkg), bins(c, i), binaryFlags(m.TestFlags), c, pmmDir)
					return map[string]float64{"suite": time.Since(start).Seconds()}, cpu
				})
				reportRatios(b, times, repeats, [][2]string{{"pmm", "plain"}})
				reportCPU(b, cpu, [][2]string{{"pmm", "plain"}})
				b.ReportMetric(median(times["plain"]["suite"]), "s-plain")
				b.ReportMetric(median(times["pmm"]["suite"]), "s-pmm")
			}
		})
	}
}

// binaryFlags are go test's flags as a test binary takes them.
func binaryFlags(flags []string) []string {
	var out []string
	for _, f := range flags {
		if strings.HasPrefix(f, "-") && !strings.HasPrefix(f, "-test.") {
			f = "-test." + strings.TrimLeft(f, "-")
		}
		out = append(out, f)
	}
	return out
}

// compareBenchmarks runs the benchmarks of each module of modules in
// the builds of configs, interleaved, and reports the ratios of pairs;
// with PMM_BENCH_BENCHTIME a count of iterations (100x), also the
// ratios of the CPU seconds of each build's runs (reportCPU), which the
// machine's other work disturbs less than wall time.
func compareBenchmarks(b *testing.B, modules []benchModule, configs []benchConfig, pairs [][2]string) {
	repeats := envInt(b, "PMM_BENCH_REPEATS", 5)
	benchtime := os.Getenv("PMM_BENCH_BENCHTIME")
	if benchtime == "" {
		benchtime = "200ms"
	}
	for _, m := range modules {
		b.Run(m.Name, func(b *testing.B) {
			dir := fetch(b, m.module)
			bins := buildConfigs(b, dir, m.Packages, configs)
			pmmDir := filepath.Join(b.TempDir(), "pmm")
			for n := 0; n < b.N; n++ {
				times, cpu := runInterleaved(b, configs, m.Packages, repeats, func(c benchConfig, i int, pkg string) (map[string]float64, float64) {
					return runBench(b, dir, pkg, bins(c, i), benchtime, c, pmmDir)
				})
				reportRatios(b, times, repeats, pairs)
				if strings.HasSuffix(benchtime, "x") {
					// The same iterations in every build: the same work.
					reportCPU(b, cpu, pairs)
				}
			}
		})
	}
}

// buildConfigs builds the test binary of each package of pkgs in each
// configuration, instrumenting the module in dir first for those that
// have questions, and returns where the binary of a configuration and a
// package's index is.
func buildConfigs(b *testing.B, dir string, pkgs []string, configs []benchConfig) func(c benchConfig, i int) string {
	bins := filepath.Join(b.TempDir(), "bin")
	bin := func(c benchConfig, i int) string { return filepath.Join(bins, fmt.Sprintf("%s-%d.test", c.name, i)) }
	for _, c := range configs {
		if c.questions != "" {
			if err := os.WriteFile(filepath.Join(dir, "q.pmm"), []byte(c.questions), 0o644); err != nil {
				b.Fatal(err)
			}
			bin := pmmBin
			if c.pmm != "" {
				bin = c.pmm
			}
			cmd := exec.Command(bin, "instrument", "./...", "q.pmm")
			cmd.Dir, cmd.Env = dir, goEnv()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s instrument: %v\n%s", bin, err, out)
			}
		}
		flags := c.flags
		if c.hand != "" {
			out := filepath.Join(b.TempDir(), "hand-"+c.hand)
			if err := os.MkdirAll(out, 0o755); err != nil {
				b.Fatal(err)
			}
			flags = append([]string{"-overlay", handOverlay(b, dir, out, c.hand)}, flags...)
		}
		for i, pkg := range pkgs {
			args := append(append([]string{"test", "-c", "-vet=off", "-o", bin(c, i)}, flags...), pkg)
			cmd := exec.Command("go", args...)
			cmd.Dir, cmd.Env = dir, goEnv()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	}
	return bin
}

// runInterleaved runs every package's binary of every configuration,
// repeats times, rotating the order of the configurations between
// repeats, and returns times[config][name], one value per repeat: what
// run measured, summed over the packages when they name the same thing;
// and cpu[config], the CPU seconds of each repeat's runs.
func runInterleaved(b *testing.B, configs []benchConfig, pkgs []string, repeats int, run func(c benchConfig, i int, pkg string) (map[string]float64, float64)) (times map[string]map[string][]float64, cpu map[string][]float64) {
	times, cpu = map[string]map[string][]float64{}, map[string][]float64{}
	for r := 0; r < repeats; r++ {
		for k := range configs {
			c := configs[(k+r)%len(configs)]
			if times[c.name] == nil {
				times[c.name] = map[string][]float64{}
			}
			cpu[c.name] = append(cpu[c.name], 0)
			for i, pkg := range pkgs {
				measured, seconds := run(c, i, pkg)
				cpu[c.name][r] += seconds
				for name, v := range measured {
					if ts := times[c.name][name]; len(ts) > r {
						ts[r] += v
					} else {
						times[c.name][name] = append(ts, v)
					}
				}
			}
		}
	}
	return times, cpu
}

// testedPackages are the packages of the module in dir that have tests,
// as ./relative patterns.
func testedPackages(b *testing.B, dir string) []string {
	cmd := exec.Command("go", "list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.Dir}}{{end}}", "./...")
	cmd.Dir, cmd.Env = dir, goEnv()
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for _, d := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(dir, d)
		if err != nil {
			b.Fatal(err)
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
	}
	return pkgs
}

// benchLine is a line of go test -bench's output.
var benchLine = regexp.MustCompile(`^(Benchmark\S+)\s+\d+\s+([0-9.]+) ns/op`)

// runBench runs the benchmarks of a test binary in the package's
// directory and returns their ns/op and the CPU seconds of the run.
func runBench(b *testing.B, dir, pkg, bin, benchtime string, c benchConfig, pmmDir string) (map[string]float64, float64) {
	args := append([]string{"-test.run", "^$", "-test.bench", ".", "-test.benchtime", benchtime}, c.runArgs...)
	if slices.Contains(c.flags, "-covermode=atomic") {
		args = append(args, "-test.coverprofile", filepath.Join(b.TempDir(), "cover.out"))
	}
	out, cpu := runRecorded(b, filepath.Join(dir, pkg), bin, args, c, pmmDir)
	ns := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if m := benchLine.FindStringSubmatch(sc.Text()); m != nil {
			v, err := strconv.ParseFloat(m[2], 64)
			if err != nil {
				b.Fatal(err)
			}
			ns[pkg+" "+m[1]] = v
		}
	}
	if len(ns) == 0 {
		b.Fatalf("%s ran no benchmark:\n%s", bin, out)
	}
	return ns, cpu
}

// runRecorded runs a test binary in dir with PMM_DIR set to pmmDir and
// returns its output and its CPU seconds. A pmm build must have left
// files matching its pattern in PMM_DIR/logs: they are looked for, then
// removed.
func runRecorded(b *testing.B, dir, bin string, args []string, c benchConfig, pmmDir string) (string, float64) {
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, append(goEnv(), "PMM_DIR="+pmmDir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, tail(out.String(), 40))
	}
	if c.leaves != "" {
		logs, _ := filepath.Glob(filepath.Join(pmmDir, "logs", c.leaves))
		if len(logs) == 0 {
			b.Fatalf("%s recorded nothing (no %s in %s/logs)", bin, c.leaves, pmmDir)
		}
		if err := os.RemoveAll(filepath.Join(pmmDir, "logs")); err != nil {
			b.Fatal(err)
		}
	}
	return out.String(), cpuSeconds(cmd)
}

// reportCPU reports, for each pair, the ratio of the medians over the
// repeats of the CPU seconds of the two builds' runs (x-cpu-A-B), and
// the least and greatest ratio of single repeats.
func reportCPU(b *testing.B, cpu map[string][]float64, pairs [][2]string) {
	for _, p := range pairs {
		num, den := cpu[p[0]], cpu[p[1]]
		metric := "x-cpu-" + p[0] + "-" + p[1]
		b.ReportMetric(median(num)/median(den), metric)
		var ratios []float64
		for r := range num {
			ratios = append(ratios, num[r]/den[r])
		}
		b.ReportMetric(slices.Min(ratios), metric+"-min")
		b.ReportMetric(slices.Max(ratios), metric+"-max")
		b.Logf("CPU seconds, min/median/max: %s %s, %s %s", p[0], spread(num), p[1], spread(den))
	}
}

// reportRatios reports the geometric means over the benchmarks of the
// ratios between configurations: of the medians over the repeats, and
// the least and greatest of those of single repeats.
func reportRatios(b *testing.B, times map[string]map[string][]float64, repeats int, pairs [][2]string) {
	var names []string
	for name := range times["plain"] {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, p := range pairs {
		geo := func(value func(name, config string) float64) float64 {
			sum, n := 0.0, 0
			for _, name := range names {
				num, den := value(name, p[0]), value(name, p[1])
				if num > 0 && den > 0 {
					sum += math.Log(num / den)
					n++
				}
			}
			if n == 0 {
				b.Fatalf("no benchmark ran in both %s and %s", p[0], p[1])
			}
			return math.Exp(sum / float64(n))
		}
		metric := "x-" + p[0] + "-" + p[1]
		b.ReportMetric(geo(func(name, config string) float64 { return median(times[config][name]) }), metric)
		lo, hi := math.Inf(1), math.Inf(-1)
		for r := 0; r < repeats; r++ {
			g := geo(func(name, config string) float64 {
				if ts := times[config][name]; r < len(ts) {
					return ts[r]
				}
				return 0
			})
			lo, hi = math.Min(lo, g), math.Max(hi, g)
		}
		b.ReportMetric(lo, metric+"-min")
		b.ReportMetric(hi, metric+"-max")
	}
	var configs []string
	for c := range times {
		configs = append(configs, c)
	}
	sort.Strings(configs)
	for _, name := range names {
		line := name + ": median"
		for _, c := range configs {
			line += fmt.Sprintf(" %s %.4g", c, median(times[c][name]))
		}
		b.Log(line)
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// envInt is the integer value of the environment variable name, or def.
func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
