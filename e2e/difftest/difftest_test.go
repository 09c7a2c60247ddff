package difftest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pmm.dev/pmm/internal/progen"
)

var (
	pmmOnce sync.Once
	pmmBin  string
	pmmErr  error
)

// env builds pmm once per test binary.
func env(t *testing.T) *Env {
	t.Helper()
	pmmOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pmm-difftest-bin")
		if err != nil {
			pmmErr = err
			return
		}
		pmmBin, pmmErr = BuildPMM("../..", dir)
	})
	if pmmErr != nil {
		t.Fatal(pmmErr)
	}
	dir := t.TempDir()
	if keep := os.Getenv("PMM_DIFFTEST_KEEP"); keep != "" {
		dir = keep
	}
	return &Env{PMM: pmmBin, Dir: dir, Timeout: 5 * time.Minute}
}

// TestDifferentialMany runs PMM_DIFFTEST=N programs with every feature of
// the generator and every question template, and prints the summary
// table. It reports every class of failure and fails if there is one.
func TestDifferentialMany(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PMM_DIFFTEST"))
	if n <= 0 {
		t.Skip("PMM_DIFFTEST=N runs N programs")
	}
	first, _ := strconv.ParseInt(os.Getenv("PMM_DIFFTEST_FIRST"), 10, 64)
	if first == 0 {
		first = 1
	}
	feat := progen.AllFeatures()
	if os.Getenv("PMM_DIFFTEST_FEATURES") == "default" {
		feat = defaultFeatures
	}
	e := env(t)
	var results []Result
	for seed := first; seed < first+int64(n); seed++ {
		rs, notes, err := e.Program(seed, feat)
		if err != nil {
			t.Errorf("seed %d: %v", seed, err)
			continue
		}
		for _, n := range notes {
			t.Logf("seed %d: note: %s", seed, n)
		}
		results = append(results, rs...)
		t.Logf("seed %d: %d answers", seed, len(rs))
	}
	t.Logf("\n%s", Summary(results, n))
	if keep := os.Getenv("PMM_DIFFTEST_KEEP"); keep != "" {
		var b strings.Builder
		for _, r := range results {
			if r.Outcome != Equal {
				fmt.Fprintf(&b, "seed %d %s %s %s: %s\n", r.Seed, r.Question, r.Mode, r.Outcome, strings.ReplaceAll(r.Detail, "\n", " | "))
			}
		}
		if err := os.WriteFile(filepath.Join(keep, "failures.txt"), []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
	for _, r := range results {
		if r.Outcome != Equal {
			t.Fail()
			break
		}
	}
}

// defaultFeatures is the feature set of the fast test: what pmm answers
// right today. Left out, because pmm is known to be wrong on them (the
// full run, PMM_DIFFTEST=N, reports each class; testdata/difftest has a
// regression case of each): calls through interfaces and function
// values that may reach several functions (dynamic-targets), generic
// functions and methods of generic types (generic-calls), a method on a
// function type that calls its receiver (handler-func), panics (the
// results of an execution that panicked, deferred closures as callees:
// recovered-panics), derived events defined with or, which do not
// compile in --mode runtime (or-runtime), and goroutines: a worker whose
// deferred wg.Done lets main return first may never end, and whether it
// ends depends on timing; pmm's answer about it is then exact, or
// flagged when its run-time test waits for the end (unfinished-workers),
// and this test wants every answer equal. The executions of a function
// not called by another (two-identities) are in: one execution has one
// id.
var defaultFeatures = progen.Features{
	MethodValues: true, Closures: true, Recursion: true, Defers: true,
	Negations: true, NotCalledBy: true, CallsStar: true, Contains: true, Cache: true, Names: true,
}

// defaultSeeds are the programs of the fast test.
var defaultSeeds = []int64{1, 2}

// TestDifferential compares every mode's answers with the reference on
// the programs of defaultSeeds, generated with defaultFeatures.
func TestDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	e := env(t)
	for _, seed := range defaultSeeds {
		rs, notes, err := e.Program(seed, defaultFeatures)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range notes {
			t.Logf("seed %d: note: %s", seed, n)
		}
		for _, r := range rs {
			if r.Outcome != Equal {
				t.Errorf("seed %d, %s, --mode %s: %s: %s", seed, r.Question, r.Mode, r.Outcome, r.Detail)
			}
		}
	}
}
