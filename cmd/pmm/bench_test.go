package main

import (
	"bytes"
	"database/sql"
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

// BenchmarkInstrumentationOverhead measures, in one run, what a definition
// site costs a hot function (testdata/bench): Hot is instrumented to
// record its durations, HotPlain is the same function never instrumented,
// HotHand the same with hand-written instrumentation (time.Now, then
// append time.Since to a typed buffer). It reports
//
//   - ns-disabled: Hot minus HotPlain, with recording off (the site's
//     pre-condition false), in ns per call;
//   - x-handwritten: (Hot - HotPlain) / (HotHand - HotPlain) with recording
//     on: what a recorded duration costs over what the hand-written
//     instrumentation costs;
//
// as medians over interleaved runs of one test binary; and the same with
// -twin (ns-disabled-twin, x-handwritten-twin), whose Hot has no defer.
//
//	go test ./cmd/pmm -run '^$' -bench InstrumentationOverhead -benchtime 1x
func BenchmarkInstrumentationOverhead(b *testing.B) {
	// The same program instrumented as by default and with -twin.
	build := func(flags ...string) (dir, bin string) {
		dir = b.TempDir()
		if err := os.CopyFS(dir, os.DirFS("../../testdata/bench")); err != nil {
			b.Fatal(err)
		}
		if code, out, errOut := runPMM(b, dir, append(append([]string{"instrument"}, flags...), "./...", "questions.pmm")...); code != exitOK {
			b.Fatalf("pmm instrument: %s%s", out, errOut)
		}
		bin = filepath.Join(dir, "bench.test")
		cmd := exec.Command("go", "test", "-c", "-vet=off", "-o", bin, "-overlay", filepath.Join(dir, ".pmm", "overlay.json"), ".")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go test -c: %v\n%s", err, out)
		}
		return dir, bin
	}
	run := func(dir, bin string, record bool) map[string]float64 {
		return runBenchBinary(b, dir, bin, record, "2000000x")
	}
	configs := []struct{ suffix, flag string }{{"", ""}, {"-twin", "-twin"}}
	dirs, bins := make([]string, len(configs)), make([]string, len(configs))
	for i, c := range configs {
		var flags []string
		if c.flag != "" {
			flags = []string{c.flag}
		}
		dirs[i], bins[i] = build(flags...)
	}
	disabled, ratio := make([][]float64, len(configs)), make([][]float64, len(configs))
	for round := 0; round < 7; round++ {
		for i := range configs {
			off := run(dirs[i], bins[i], false)
			disabled[i] = append(disabled[i], off["Hot"]-off["HotPlain"])
			on := run(dirs[i], bins[i], true)
			ratio[i] = append(ratio[i], (on["Hot"]-on["HotPlain"])/(on["HotHand"]-on["HotPlain"]))
		}
	}
	for i, c := range configs {
		b.ReportMetric(median(disabled[i]), "ns-disabled"+c.suffix)
		b.ReportMetric(median(ratio[i]), "x-handwritten"+c.suffix)
	}
}

// compileBenchBinaries compiles the test binaries of the package in dir,
// plain and with pmm's overlay, and returns their paths.
func compileBenchBinaries(b *testing.B, dir string) (plain, inst string) {
	compile := func(bin string, overlay ...string) string {
		bin = filepath.Join(dir, bin)
		cmd := exec.Command("go", append(append([]string{"test", "-c", "-vet=off", "-o", bin}, overlay...), ".")...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go test -c: %v\n%s", err, out)
		}
		return bin
	}
	return compile("plain.test"), compile("inst.test", "-overlay", filepath.Join(dir, ".pmm", "overlay.json"))
}

// runBenchBinary runs the benchmarks of test binary bin, built in dir,
// benchtime each (with the test flags extra), recording into dir's .pmm
// or with recording off, and returns their ns/op by name; the logs are
// removed after.
func runBenchBinary(b *testing.B, dir, bin string, record bool, benchtime string, extra ...string) map[string]float64 {
	return runBenchBinaryEnv(b, dir, bin, record, nil, benchtime, extra...)
}

// runBenchBinaryEnv is runBenchBinary with env added to the binary's
// environment.
func runBenchBinaryEnv(b *testing.B, dir, bin string, record bool, env []string, benchtime string, extra ...string) map[string]float64 {
	cmd := exec.Command(bin, append([]string{"-test.run", "^$", "-test.bench", ".", "-test.benchtime", benchtime}, extra...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), "PMM_DIR="+filepath.Join(dir, ".pmm"))
	if !record {
		cmd.Env = append(cmd.Env, "PMM_RECORD=off")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	os.RemoveAll(filepath.Join(dir, ".pmm", "logs")) //nolint:errcheck // only disk space
	return nsPerOp(out)
}

var benchLine = regexp.MustCompile(`(?m)^Benchmark(\w+)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)

func nsPerOp(out []byte) map[string]float64 {
	m := map[string]float64{}
	for _, sub := range benchLine.FindAllSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(string(sub[2]), 64)
		m[string(sub[1])] = v
	}
	return m
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// BenchmarkModes measures, in one run, what each mode of instrumentation
// costs a whole program, against the program built plainly: wall time
// and bytes allocated, as medians over interleaved runs of the five
// binaries; and how many tuples each mode records. On the calendar
// (testdata/calendar, 20,000 updates) and on a CPU-heavy program whose
// question is selective (testdata/selective: 20 of a million executions).
// It reports, per mode, x-time-MODE and x-alloc-MODE (instrumented ÷
// plain), and x-overhead (the straightforward mode's extra time ÷ the
// combined mode's) and x-tuples (tuples recorded, straightforward ÷
// combined).
//
//	go test ./cmd/pmm -run '^$' -bench Modes -benchtime 1x
func BenchmarkModes(b *testing.B) {
	for _, prog := range []struct {
		name, module string
		args         []string
	}{
		{"calendar", "../../testdata/calendar", []string{"-n", "20000"}},
		{"selective", "../../testdata/selective", nil},
	} {
		b.Run(prog.name, func(b *testing.B) {
			modes := []string{modeStraightforward, modeStatic, modeRuntime, modeCombined}
			bins := map[string]string{}
			pmmDirs := map[string]string{}
			tuples := map[string]float64{}
			plain := copyModule(b, prog.module)
			bins["plain"] = filepath.Join(plain, "prog")
			if out, err := goIn(plain, "build", "-o", bins["plain"], "."); err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
			for _, mode := range modes {
				dir := copyModule(b, prog.module)
				if code, out, errOut := runPMM(b, dir, "instrument", "--mode", mode, "./...", "questions.pmm"); code != exitOK {
					b.Fatalf("--mode %s: %s%s", mode, out, errOut)
				}
				if code, out, errOut := runPMM(b, dir, append([]string{"run", ".", "--"}, prog.args...)...); code != exitOK {
					b.Fatalf("--mode %s: pmm run: %s%s", mode, out, errOut)
				}
				tuples[mode] = recordedTuples(b, dir)
				bins[mode] = filepath.Join(dir, ".pmm", "bin", "prog")
				pmmDirs[mode] = filepath.Join(dir, ".pmm")
			}
			times := map[string][]float64{}
			allocs := map[string][]float64{}
			for round := 0; round < 5; round++ {
				for _, name := range append([]string{"plain"}, modes...) {
					cmd := exec.Command(bins[name], prog.args...)
					cmd.Env = append(os.Environ(), "PMM_EVAL_MEMSTATS=1", "PMM_DIR="+pmmDirs[name])
					var stderr bytes.Buffer
					cmd.Stderr = &stderr
					start := time.Now()
					if err := cmd.Run(); err != nil {
						b.Fatalf("%s: %v\n%s", name, err, stderr.String())
					}
					times[name] = append(times[name], time.Since(start).Seconds())
					var alloc float64
					fmt.Sscanf(stderr.String(), "allocated %g", &alloc)
					allocs[name] = append(allocs[name], alloc)
					if d := pmmDirs[name]; d != "" {
						os.RemoveAll(filepath.Join(d, "logs")) //nolint:errcheck // only disk space
					}
				}
			}
			tPlain, aPlain := median(times["plain"]), median(allocs["plain"])
			for _, mode := range modes {
				b.ReportMetric(median(times[mode])/tPlain, "x-time-"+mode)
				b.ReportMetric(median(allocs[mode])/aPlain, "x-alloc-"+mode)
			}
			b.ReportMetric((median(times[modeStraightforward])-tPlain)/(median(times[modeCombined])-tPlain), "x-overhead")
			b.ReportMetric(tuples[modeStraightforward]/tuples[modeCombined], "x-tuples")
		})
	}
}

func goIn(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// recordedTuples counts the tuples of every stored relation in pmm.db.
func recordedTuples(t testing.TB, dir string) float64 {
	p, _ := readProject(&env{dir: dir}, "bench")
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n float64
	for _, table := range p.Tables {
		var c float64
		if err := db.QueryRow("SELECT count(*) FROM " + table.Name).Scan(&c); err != nil {
			t.Fatal(err)
		}
		n += c
	}
	return n
}

// BenchmarkNestedBias measures, in one run, how much the instrumentation
// inside a recorded execution inflates its duration (issue 10, class 7):
// testdata/nested's Outer calls Leaf nestedCalls times; pmm records
// Outer's durations; OuterPlain, the same code calling a copy of Leaf that
// pmm never instruments, is timed by hand in the same process,
// interleaved with Outer. For each configuration it reports
//
//   - ns-bias-per-nested: (median duration pmm recorded for Outer -
//     median hand-timed duration of OuterPlain) / nestedCalls: what each
//     nested instrumented execution adds to the duration pmm records;
//   - ns-outside-per-nested: the same with Outer itself timed by hand
//     around the call: everything the instrumentation costs the caller,
//     inside Outer's recorded interval or not;
//
// as medians over interleaved runs, for Outer's question alone ("alone":
// Leaf is not instrumented), with a calls* question that instruments Leaf
// (calls.pmm, the case of the issue), and with a question that records
// Leaf's durations too (timed.pmm); the last two again with the log
// mapped with small pages (PMM_HUGEPAGES=off: "calls-small",
// "timed-small"), the page faults on the recording path as they were.
//
//	go test ./cmd/pmm -run '^$' -bench NestedBias -benchtime 1x
func BenchmarkNestedBias(b *testing.B) {
	const nestedCalls = 100 // testdata/nested's Nested
	configs := []struct {
		name, second string
		smallPages   bool
	}{{"alone", "", false}, {"calls", "calls.pmm", false}, {"timed", "timed.pmm", false}, {"calls-small", "calls.pmm", true}, {"timed-small", "timed.pmm", true}}
	dirs := map[string]string{}
	for _, c := range configs {
		if c.smallPages {
			continue // the same program as its huge-pages twin
		}
		dir := copyModule(b, "../../testdata/nested")
		args := []string{"instrument", "./...", "questions.pmm"}
		if c.second != "" {
			args = append(args, c.second)
		}
		if code, out, errOut := runPMM(b, dir, args...); code != exitOK {
			b.Fatalf("%s: pmm instrument: %s%s", c.name, out, errOut)
		}
		dirs[c.second] = dir
	}
	bias, outside := map[string][]float64{}, map[string][]float64{}
	for round := 0; round < 5; round++ {
		for _, c := range configs {
			dir := dirs[c.second]
			hugePages := "on"
			if c.smallPages {
				hugePages = "off"
			}
			b.Setenv("PMM_HUGEPAGES", hugePages)
			code, out, errOut := runPMM(b, dir, "run", ".", "--", "-rounds", "2000")
			if code != exitOK {
				b.Fatalf("%s: pmm run: %s%s", c.name, out, errOut)
			}
			var plain, outer float64
			if _, err := fmt.Sscanf(out, "plain-median-ns %g\noutside-median-ns %g", &plain, &outer); err != nil {
				b.Fatalf("%s: the program's output: %v\n%s", c.name, err, out)
			}
			recorded := medianDuration(b, dir, "outer_durations")
			bias[c.name] = append(bias[c.name], (recorded-plain)/nestedCalls)
			outside[c.name] = append(outside[c.name], (outer-plain)/nestedCalls)
		}
	}
	for _, c := range configs {
		b.ReportMetric(median(bias[c.name]), "ns-bias-per-nested-"+c.name)
		b.ReportMetric(median(outside[c.name]), "ns-outside-per-nested-"+c.name)
	}
}

// medianDuration is the median of the durations (column d) of view in
// the last run loaded into dir's pmm.db.
func medianDuration(t testing.TB, dir, view string) float64 {
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds := queryColumn[float64](t, db, "SELECT d FROM "+view+" WHERE run = (SELECT max(id) FROM runs)")
	if len(ds) == 0 {
		t.Fatalf("no rows in %s", view)
	}
	return median(ds)
}

// BenchmarkRegionCosts measures, in one run, what regions, iterations,
// blocking operations and goroutines cost (testdata/regionbench), as medians over
// interleaved runs of the instrumented test binary and of the same
// package built plainly:
//
//   - x-handwritten-iteration: (Loop instrumented - Loop plain) /
//     (LoopHand - LoopPlain) with recording on, per iteration: a recorded
//     iteration against timing each iteration by hand (time.Now,
//     time.Since appended to a typed buffer);
//
//   - ns-iteration-disabled: Loop instrumented - Loop plain, recording
//     off;
//
//   - ns-unasked-region: Unasked instrumented - Unasked plain: a labeled
//     loop no question names;
//
//   - ns-lock-recorded, ns-lock-disabled: Lock instrumented - Lock plain,
//     an uncontended sync.Mutex.Lock recorded as a blocking operation,
//     with recording on and off;
//
//   - ns-chan-op-recorded, ns-chan-op-disabled: (Send instrumented - Send
//     plain) / 2, per send or receive on a channel that never blocks
//     them;
//
//   - ns-lock-blocked-only, ns-chan-op-blocked-only: the same
//     (LockWaited, SendWaited) under a question that asks only for the
//     operations that blocked ((blocked b)), recording on: the fast
//     attempt and a branch;
//
//   - ns-go-recorded, ns-go-disabled: Spawn instrumented - Spawn plain, a
//     go statement whose goroutine is recorded, with recording on and
//     off.
//
//     go test ./cmd/pmm -run '^$' -bench RegionCosts -benchtime 1x
func BenchmarkRegionCosts(b *testing.B) {
	dir := copyModule(b, "../../testdata/regionbench")
	if code, out, errOut := runPMM(b, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
		b.Fatalf("pmm instrument: %s%s", out, errOut)
	}
	plain, inst := compileBenchBinaries(b, dir)
	run := func(bin string, record bool) map[string]float64 {
		return runBenchBinary(b, dir, bin, record, "1000000x")
	}
	metrics := map[string][]float64{}
	for round := 0; round < 7; round++ {
		on, off, base := run(inst, true), run(inst, false), run(plain, false)
		metrics["x-handwritten-iteration"] = append(metrics["x-handwritten-iteration"], (on["Loop"]-base["Loop"])/(on["LoopHand"]-on["LoopPlain"]))
		metrics["ns-iteration-disabled"] = append(metrics["ns-iteration-disabled"], off["Loop"]-base["Loop"])
		metrics["ns-unasked-region"] = append(metrics["ns-unasked-region"], off["Unasked"]-base["Unasked"])
		metrics["ns-lock-recorded"] = append(metrics["ns-lock-recorded"], on["Lock"]-base["Lock"])
		metrics["ns-lock-disabled"] = append(metrics["ns-lock-disabled"], off["Lock"]-base["Lock"])
		metrics["ns-chan-op-recorded"] = append(metrics["ns-chan-op-recorded"], (on["Send"]-base["Send"])/2)
		metrics["ns-chan-op-disabled"] = append(metrics["ns-chan-op-disabled"], (off["Send"]-base["Send"])/2)
		metrics["ns-lock-blocked-only"] = append(metrics["ns-lock-blocked-only"], on["LockWaited"]-base["LockWaited"])
		metrics["ns-chan-op-blocked-only"] = append(metrics["ns-chan-op-blocked-only"], (on["SendWaited"]-base["SendWaited"])/2)
		metrics["ns-go-recorded"] = append(metrics["ns-go-recorded"], on["Spawn"]-base["Spawn"])
		metrics["ns-go-disabled"] = append(metrics["ns-go-disabled"], off["Spawn"]-base["Spawn"])
	}
	for name, xs := range metrics {
		b.ReportMetric(median(xs), name)
	}
}

// BenchmarkAllocations is the cost of recording every heap allocation
// (issue 13): testdata/allocbench's allocation-heavy benchmarks (Work:
// a node and a 100-byte slice; Grid: seed 003's [2][3][5]int as nine
// slices; List: eight nodes, a concatenation and a closure; Index: a
// map of 64 keys counted twice, 128 assignments of which 11 allocate), with a
// question on every allocation and its heap bytes (a record each), and
// with the objects and heap bytes of every allocation by function, kind
// and type (cells.pmm: totals in cells, an addition each), against the
// plain build, and the plain build under runtime.MemProfileRate = 1 (the
// heap profile's exact mode, -test.memprofilerate=1), in interleaved
// runs of one benchmark run: medians over 7 rounds of recorded ÷ plain
// (x-recorded-NAME), cells ÷ plain (x-cells-NAME), profiled ÷ plain
// (x-memprofile1-NAME), the plain
// ns/op (ns-plain-NAME) and what recording adds per allocation
// (ns-recorded-per-alloc-NAME).
//
//	go test ./cmd/pmm -run '^$' -bench Allocations -benchtime 1x
func BenchmarkAllocations(b *testing.B) {
	dir := copyModule(b, "../../testdata/allocbench")
	if code, out, errOut := runPMM(b, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
		b.Fatalf("pmm instrument: %s%s", out, errOut)
	}
	plain, inst := compileBenchBinaries(b, dir)
	cellsDir := copyModule(b, "../../testdata/allocbench")
	if code, out, errOut := runPMM(b, cellsDir, "instrument", "./...", "cells.pmm"); code != exitOK {
		b.Fatalf("pmm instrument: %s%s", out, errOut)
	}
	_, cellsInst := compileBenchBinaries(b, cellsDir)
	metrics := map[string][]float64{}
	for round := 0; round < 7; round++ {
		on := runBenchBinary(b, dir, inst, true, "200000x")
		base := runBenchBinary(b, dir, plain, false, "200000x")
		cells := runBenchBinary(b, cellsDir, cellsInst, true, "200000x")
		profiled := runBenchBinary(b, dir, plain, false, "200000x", "-test.memprofilerate", "1")
		for name, allocs := range map[string]float64{"Work": 2, "Grid": 9, "List": 10, "Index": 11} {
			metrics["x-recorded-"+name] = append(metrics["x-recorded-"+name], on[name]/base[name])
			metrics["x-cells-"+name] = append(metrics["x-cells-"+name], cells[name]/base[name])
			metrics["x-memprofile1-"+name] = append(metrics["x-memprofile1-"+name], profiled[name]/base[name])
			metrics["ns-plain-"+name] = append(metrics["ns-plain-"+name], base[name])
			metrics["ns-recorded-per-alloc-"+name] = append(metrics["ns-recorded-per-alloc-"+name], (on[name]-base[name])/allocs)
		}
	}
	for name, xs := range metrics {
		b.ReportMetric(median(xs), name)
	}
}

// BenchmarkOutsideProfile measures what the heap profile of
// allocations outside the module costs (docs/MEMORY.md): testdata/
// outsidebench's Work allocates a node at its own site and a string in
// strings.Repeat, and its question (the allocations each execution of
// Work contains) leaves the string out, so the runtime links the heap
// profile. It reports medians over 7 rounds, in one benchmark run, of
// the instrumented binary at the runtime's default rate over the plain
// one (x-default), at rate 1 as pmm run -exact-outside gives it
// (GODEBUG=memprofilerate=1: x-exact), the two instrumented runs'
// ratio (x-exact-over-default), the plain binary at rate 1
// (x-plain-memprofile1), and the plain ns/op.
//
//	go test ./cmd/pmm -run '^$' -bench OutsideProfile -benchtime 1x
func BenchmarkOutsideProfile(b *testing.B) {
	dir := copyModule(b, "../../testdata/outsidebench")
	if code, out, errOut := runPMM(b, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
		b.Fatalf("pmm instrument: %s%s", out, errOut)
	}
	plain, inst := compileBenchBinaries(b, dir)
	exact := []string{exactOutsideEnv()}
	metrics := map[string][]float64{}
	for round := 0; round < 7; round++ {
		base := runBenchBinary(b, dir, plain, false, "200000x")["Work"]
		def := runBenchBinary(b, dir, inst, true, "200000x")["Work"]
		ex := runBenchBinaryEnv(b, dir, inst, true, exact, "200000x")["Work"]
		plainEx := runBenchBinaryEnv(b, dir, plain, false, exact, "200000x")["Work"]
		metrics["x-default"] = append(metrics["x-default"], def/base)
		metrics["x-exact"] = append(metrics["x-exact"], ex/base)
		metrics["x-exact-over-default"] = append(metrics["x-exact-over-default"], ex/def)
		metrics["x-plain-memprofile1"] = append(metrics["x-plain-memprofile1"], plainEx/base)
		metrics["ns-plain"] = append(metrics["ns-plain"], base)
	}
	for name, xs := range metrics {
		b.ReportMetric(median(xs), name)
		b.ReportMetric(slices.Min(xs), name+"-min")
		b.ReportMetric(slices.Max(xs), name+"-max")
	}
}

// BenchmarkVMProfiler is seed 004's experiment with pmm's regions: the
// three loops of testdata/iterations' Interp (1e6, 3e6 and 6e6
// iterations of one body, PMM_VMPROFILER_REPS runs, default 100), timed
// by a question on the regions alone, against the CPU samples pprof
// gives the lines of each loop in the plain program. It reports the
// second and third loops' time over the first's, by pmm (x-second-pmm,
// x-third-pmm) and by pprof (x-second-pprof, x-third-pprof), and the
// third loop's share of the three, by pmm and by pprof with two
// standard errors of its sampling (share-third-*, two-se-third-pprof).
//
//	go test ./cmd/pmm -run '^$' -bench VMProfiler -benchtime 1x
func BenchmarkVMProfiler(b *testing.B) {
	reps := "100"
	if s := os.Getenv("PMM_VMPROFILER_REPS"); s != "" {
		reps = s
	}
	dir := copyModule(b, "../../testdata/iterations")
	const question = `(defquestion loop-times :definition
  ((r l d) s.t. (and (region-execution r "main.Interp" l) (duration r d))))
`
	if err := os.WriteFile(filepath.Join(dir, "split.pmm"), []byte(question), 0o644); err != nil {
		b.Fatal(err)
	}
	if code, out, errOut := runPMM(b, dir, "instrument", ".", "split.pmm"); code != exitOK {
		b.Fatalf("pmm instrument: %s%s", out, errOut)
	}
	if code, out, errOut := runPMM(b, dir, "run", ".", "--", "-n", "1000000", "-reps", reps); code != exitOK {
		b.Fatalf("pmm run: %s%s", out, errOut)
	}
	labels := []string{"first", "second", "third"}
	regions := make([]float64, len(labels))
	for i, l := range labels {
		got := queryStrings(b, openDB(b, dir), "SELECT sum(d) FROM loop_times WHERE l = '"+l+"'")
		regions[i], _ = strconv.ParseFloat(got[0], 64)
	}
	// pprof's split of the plain program: samples by line, summed over
	// the lines of each loop (from its marking comment to its end).
	bin, prof := filepath.Join(dir, "plain"), filepath.Join(dir, "cpu.prof")
	goBuild(b, dir, "build", "-o", bin, ".")
	run := exec.Command(bin, "-n", "1000000", "-reps", reps, "-cpuprofile", prof)
	if out, err := run.CombinedOutput(); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", "-lines", "-unit=ms", "-nodecount=10000", bin, prof).CombinedOutput()
	if err != nil {
		b.Fatalf("pprof: %v\n%s", err, top)
	}
	src, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	samples := make([]float64, len(labels))
	for _, l := range strings.Split(string(top), "\n") {
		f := strings.Fields(l)
		if len(f) < 7 || f[5] != "main.Interp" {
			continue
		}
		line, err := strconv.Atoi(f[6][strings.LastIndex(f[6], ":")+1:])
		if err != nil {
			continue
		}
		// Cumulative: mix, inlined into each loop, is its own lines, and
		// the loop's line holds it.
		ms, _ := strconv.ParseFloat(strings.TrimSuffix(f[3], "ms"), 64)
		for i, lab := range labels {
			from := slices.Index(lines, "\t//pmm:region "+lab) + 1
			to := from + 3 // the loop: its header, body and closing brace
			if from <= line && line <= to {
				samples[i] += ms
			}
		}
	}
	if samples[0] == 0 || regions[0] == 0 {
		b.Fatalf("no time for the first loop: pmm %v, pprof %v\n%s", regions, samples, top)
	}
	var rt, pt float64
	for i := range labels {
		rt, pt = rt+regions[i], pt+samples[i]
	}
	p := samples[2] / pt
	b.ReportMetric(regions[1]/regions[0], "x-second-pmm")
	b.ReportMetric(regions[2]/regions[0], "x-third-pmm")
	b.ReportMetric(samples[1]/samples[0], "x-second-pprof")
	b.ReportMetric(samples[2]/samples[0], "x-third-pprof")
	b.ReportMetric(regions[2]/rt, "share-third-pmm")
	b.ReportMetric(p, "share-third-pprof")
	b.ReportMetric(2*math.Sqrt(p*(1-p)/(pt/10)), "two-se-third-pprof")
}
