package difftest

import (
	"os"
	"strconv"
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
	e := env(t)
	var results []Result
	for seed := first; seed < first+int64(n); seed++ {
		rs, err := e.Program(seed, progen.AllFeatures())
		if err != nil {
			t.Errorf("seed %d: %v", seed, err)
			continue
		}
		results = append(results, rs...)
		t.Logf("seed %d: %d answers", seed, len(rs))
	}
	t.Logf("\n%s", Summary(results, n))
	for _, r := range results {
		if r.Outcome != Equal {
			t.Fail()
			break
		}
	}
}
