package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"
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
// as medians over interleaved runs of one test binary.
//
//	go test ./cmd/pmm -run '^$' -bench InstrumentationOverhead -benchtime 1x
func BenchmarkInstrumentationOverhead(b *testing.B) {
	dir := b.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../testdata/bench")); err != nil {
		b.Fatal(err)
	}
	if code, out, errOut := runPMM(b, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
		b.Fatalf("pmm instrument: %s%s", out, errOut)
	}
	bin := filepath.Join(dir, "bench.test")
	build := exec.Command("go", "test", "-c", "-vet=off", "-o", bin, "-overlay", filepath.Join(dir, ".pmm", "overlay.json"), ".")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go test -c: %v\n%s", err, out)
	}
	run := func(record bool) map[string]float64 {
		cmd := exec.Command(bin, "-test.run", "^$", "-test.bench", ".", "-test.benchtime", "2000000x")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PMM_DIR="+filepath.Join(dir, ".pmm"))
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
	var disabled, ratio []float64
	for i := 0; i < 7; i++ {
		off := run(false)
		disabled = append(disabled, off["Hot"]-off["HotPlain"])
		on := run(true)
		ratio = append(ratio, (on["Hot"]-on["HotPlain"])/(on["HotHand"]-on["HotPlain"]))
	}
	b.ReportMetric(median(disabled), "ns-disabled")
	b.ReportMetric(median(ratio), "x-handwritten")
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
