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
	"sort"
	"strconv"
	"strings"
	"testing"
)

// benchModule is a module whose own benchmarks BenchmarkCountVsCoverage
// runs, in the packages that have them.
type benchModule struct {
	module
	Name     string   // the short name of the sub-benchmark
	Packages []string // the packages whose benchmarks run
}

// benchModules are the modules of issue 12's figures.
var benchModules = []benchModule{
	{module: module{Path: "github.com/tidwall/gjson", Version: "v1.17.0"}, Name: "gjson", Packages: []string{"."}},
	{module: module{Path: "github.com/pelletier/go-toml/v2", Version: "v2.2.2"}, Name: "go-toml", Packages: []string{"./benchmark", "./unstable"}},
}

// benchConfigs are the builds compared: the module's test binaries plain,
// with Go's atomic coverage of every package of the module (a counter
// per basic block, exact under concurrency), and instrumented by pmm for
// questions (the executions of every function, counted per function).
var benchConfigs = []struct {
	name  string
	flags []string
}{
	{"plain", nil},
	{"atomic", []string{"-covermode=atomic", "-coverpkg=./..."}},
	{"pmm", []string{"-overlay", ".pmm/overlay.json"}},
}

// BenchmarkCountVsCoverage fetches each module of benchModules through
// the module proxy, builds its benchmarks' test binaries in the three
// configurations of benchConfigs, and runs them interleaved (the order
// of the configurations rotates between repeats), PMM_BENCH_REPEATS times
// (default 5) with -test.benchtime PMM_BENCH_BENCHTIME (default 200ms).
// For each of the module's benchmarks it takes the median ns/op of each
// configuration, and reports the geometric means over the benchmarks of
// the ratios of those medians: x-pmm-plain, x-pmm-atomic and
// x-atomic-plain; and, as -min and -max, the least and greatest of the
// same geometric means computed for each repeat alone. PMM_BENCH_PMM names
// another pmm binary to instrument with (one built from an earlier
// commit: the figures before a change). docs/PERFORMANCE.md has the
// figures:
//
//	go test ./e2e/realmodules -run '^$' -bench CountVsCoverage -benchtime 1x -timeout 60m
func BenchmarkCountVsCoverage(b *testing.B) {
	repeats := envInt(b, "PMM_BENCH_REPEATS", 5)
	benchtime := os.Getenv("PMM_BENCH_BENCHTIME")
	if benchtime == "" {
		benchtime = "200ms"
	}
	for _, m := range benchModules {
		b.Run(m.Name, func(b *testing.B) {
			dir := fetch(b, m.module)
			if err := os.WriteFile(filepath.Join(dir, "q.pmm"), []byte(questions), 0o644); err != nil {
				b.Fatal(err)
			}
			if out, errOut, err := pmm(dir, "instrument", "./...", "q.pmm"); err != nil {
				b.Fatalf("pmm instrument: %v\n%s%s", err, out, errOut)
			}
			bins := filepath.Join(b.TempDir(), "bin")
			pmmDir := filepath.Join(b.TempDir(), "pmm")
			for _, c := range benchConfigs {
				for i, pkg := range m.Packages {
					args := append(append([]string{"test", "-c", "-vet=off", "-o", filepath.Join(bins, fmt.Sprintf("%s-%d.test", c.name, i))}, c.flags...), pkg)
					cmd := exec.Command("go", args...)
					cmd.Dir, cmd.Env = dir, goEnv()
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
					}
				}
			}
			for n := 0; n < b.N; n++ {
				// times[config][benchmark] are the ns/op of each repeat.
				times := map[string]map[string][]float64{}
				for r := 0; r < repeats; r++ {
					for k := range benchConfigs {
						c := benchConfigs[(k+r)%len(benchConfigs)]
						for i, pkg := range m.Packages {
							out := runBench(b, dir, pkg, filepath.Join(bins, fmt.Sprintf("%s-%d.test", c.name, i)), benchtime, c.name, pmmDir)
							if times[c.name] == nil {
								times[c.name] = map[string][]float64{}
							}
							for name, ns := range out {
								times[c.name][name] = append(times[c.name][name], ns)
							}
						}
					}
				}
				reportRatios(b, times, repeats)
			}
		})
	}
}

// benchLine is a line of go test -bench's output.
var benchLine = regexp.MustCompile(`^(Benchmark\S+)\s+\d+\s+([0-9.]+) ns/op`)

// runBench runs the benchmarks of a test binary in the package's
// directory and returns their ns/op. A pmm build must have counted in
// cells: its chunk files are looked for, then removed with its logs.
func runBench(b *testing.B, dir, pkg, bin, benchtime, config, pmmDir string) map[string]float64 {
	args := []string{"-test.run", "^$", "-test.bench", ".", "-test.benchtime", benchtime}
	if config == "atomic" {
		args = append(args, "-test.coverprofile", filepath.Join(b.TempDir(), "cover.out"))
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = filepath.Join(dir, pkg), append(goEnv(), "PMM_DIR="+pmmDir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out.String())
	}
	ns := map[string]float64{}
	sc := bufio.NewScanner(&out)
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
		b.Fatalf("%s ran no benchmark:\n%s", bin, out.String())
	}
	if config == "pmm" {
		cells, _ := filepath.Glob(filepath.Join(pmmDir, "logs", "*.pmmagg"))
		if len(cells) == 0 {
			b.Fatalf("%s counted nothing in cells (no chunk file in %s/logs)", bin, pmmDir)
		}
		if err := os.RemoveAll(filepath.Join(pmmDir, "logs")); err != nil {
			b.Fatal(err)
		}
	}
	return ns
}

// reportRatios reports the geometric means over the benchmarks of the
// ratios between configurations: of the medians over the repeats, and
// the least and greatest of those of single repeats.
func reportRatios(b *testing.B, times map[string]map[string][]float64, repeats int) {
	var names []string
	for name := range times["plain"] {
		names = append(names, name)
	}
	sort.Strings(names)
	pairs := [][2]string{{"pmm", "plain"}, {"pmm", "atomic"}, {"atomic", "plain"}}
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
	for _, name := range names {
		b.Logf("%s: median ns/op plain %.0f, atomic %.0f, pmm %.0f", name,
			median(times["plain"][name]), median(times["atomic"][name]), median(times["pmm"][name]))
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
