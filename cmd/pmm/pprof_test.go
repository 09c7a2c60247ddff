package main

import (
	"maps"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAnswerPprof exports the answers of testdata/pprof as profiles and
// reads them back with go tool pprof -top: the executions per function
// and caller are the program's fixed workload (Serve calls Lookup 30
// times, Batch 12; Max runs once per Lookup and 12 times in Batch, all
// under main), and the durations lie between what Lookup's sleep
// guarantees and the time the program measured around Serve and Batch.
func TestAnswerPprof(t *testing.T) {
	dir, _ := instrumentAndRun(t, "../../testdata/pprof")
	// The program's own measurements, from a second run (the first's
	// output went to instrumentAndRun).
	code, out, errOut := runPMM(t, dir, "run", ".")
	if code != exitOK {
		t.Fatalf("pmm run: exit %d\n%s%s", code, out, errOut)
	}
	elapsed := map[string]int64{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "elapsed" {
			elapsed[f[1]], _ = strconv.ParseInt(f[2], 10, 64)
		}
	}
	if elapsed["main.Serve"] == 0 || elapsed["main.Batch"] == 0 {
		t.Fatalf("the program printed no elapsed times:\n%s", out)
	}
	profile := func(args ...string) string {
		t.Helper()
		file := filepath.Join(t.TempDir(), "answer.pprof")
		args = append([]string{"answer", "-format", "pprof", "-o", file}, args...)
		if code, out, errOut := runPMM(t, dir, args...); code != exitOK {
			t.Fatalf("pmm %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return file
	}
	lookups := profile("lookups")
	want := map[string][2]int64{"main.Lookup": {42, 42}, "main.Serve": {0, 30}, "main.Batch": {0, 12}}
	if got := pprofTop(t, lookups, "executions"); !maps.Equal(got, want) {
		t.Errorf("lookups: executions %v, want %v", got, want)
	}
	durations := pprofTop(t, lookups, "duration")
	for caller, n := range map[string]int64{"main.Serve": 30, "main.Batch": 12} {
		d := durations[caller][1]
		if lo, hi := n*int64(time.Millisecond), elapsed[caller]; d < lo || d > hi {
			t.Errorf("lookups: Lookup under %s took %dns, want at least %d (its sleeps) and at most %d (what the program measured)", caller, d, lo, hi)
		}
	}
	if d := durations["main.Lookup"][0]; d != durations["main.Serve"][1]+durations["main.Batch"][1] {
		t.Errorf("lookups: Lookup's own time %dns is not the sum of its callers' %v", d, durations)
	}
	// calls*: the Max of every Lookup and Batch, under main (the only
	// other function the question records).
	want = map[string][2]int64{"main.Max[...]": {54, 54}, "main.main": {0, 54}}
	if got := pprofTop(t, profile("maxes"), "executions"); !maps.Equal(got, want) {
		t.Errorf("maxes: executions %v, want %v", got, want)
	}
	// Aggregates grouped by a function name.
	want = map[string][2]int64{"main.Max[...]": {54, 54}, "main.Lookup": {42, 42}}
	if got := pprofTop(t, profile("calls-per-function"), "count"); !maps.Equal(got, want) {
		t.Errorf("calls-per-function: %v, want %v", got, want)
	}
	// Both runs: counts add.
	want = map[string][2]int64{"main.Max[...]": {108, 108}, "main.Lookup": {84, 84}}
	if got := pprofTop(t, profile("-all-runs", "calls-per-function"), "count"); !maps.Equal(got, want) {
		t.Errorf("calls-per-function -all-runs: %v, want %v", got, want)
	}
	sums := pprofTop(t, profile("time-per-function"), "duration")
	if d, lo, hi := sums["main.Lookup"][0], 42*int64(time.Millisecond), elapsed["main.Serve"]+elapsed["main.Batch"]; d < lo || d > hi {
		t.Errorf("time-per-function: Lookup took %dns, want between %d and %d", d, lo, hi)
	}

	// Answers that are no profile: an error that says why, exit 2, no file.
	file := filepath.Join(t.TempDir(), "mean.pprof")
	for _, args := range [][]string{
		{"-o", file, "mean-per-function"},
		{"lookups"},                      // no -o
		{"-o", file, "lookups", "maxes"}, // two questions
	} {
		code, _, errOut := runPMM(t, dir, append([]string{"answer", "-format", "pprof"}, args...)...)
		if code != exitUsage || !strings.Contains(errOut, "pmm answer:") {
			t.Errorf("pmm answer -format pprof %v: exit %d, want %d with an error:\n%s", args, code, exitUsage, errOut)
		}
	}
	if _, _, errOut := runPMM(t, dir, "answer", "-format", "pprof", "-o", file, "mean-per-function"); !strings.Contains(errOut, "averages do not add up") || !strings.Contains(errOut, "hint:") {
		t.Errorf("the error for an average says not why, or gives no hint:\n%s", errOut)
	}
	if matches, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "*")); len(matches) > 0 {
		t.Errorf("a failed export left files: %v", matches)
	}
}

// pprofTop runs go tool pprof -top on file for a sample type and returns
// each function's flat and cum values (in nanoseconds for durations).
func pprofTop(t *testing.T, file, sampleType string) map[string][2]int64 {
	t.Helper()
	args := []string{"tool", "pprof", "-top", "-nodefraction=0", "-sample_index=" + sampleType}
	unit := ""
	if sampleType == "duration" {
		args, unit = append(args, "-unit=ns"), "ns"
	}
	out, err := exec.Command("go", append(args, file)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -top %s: %v\n%s", file, err, out)
	}
	top := map[string][2]int64{}
	header := false
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 5 && f[0] == "flat" {
			header = true
			continue
		}
		if !header || len(f) != 6 {
			continue
		}
		flat, err1 := strconv.ParseInt(strings.TrimSuffix(f[0], unit), 10, 64)
		cum, err2 := strconv.ParseInt(strings.TrimSuffix(f[3], unit), 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("go tool pprof -top: a line that is no node: %q\n%s", line, out)
		}
		top[f[5]] = [2]int64{flat, cum}
	}
	if len(top) == 0 {
		t.Fatalf("go tool pprof -top printed no functions:\n%s", out)
	}
	return top
}
