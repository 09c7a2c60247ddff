package difftest

import (
	"strings"
	"testing"

	"pmm.dev/pmm/internal/progen"
)

// TestGoroutineQuestionsWorkersOutliveMain forces the interleaving that
// made seed 10's q3-go-on differ once under load (pmm 5 rows, the
// reference 6): a worker's goroutine that ends after main returned.
// The generated workers end after their deferred wg.Done, so the last
// spawn's may still run when main returns, in the twin's run or in
// pmm's, as the scheduler decides. The goroutine templates ask (contains
// g x) of such goroutines, which holds for a goroutine that never ended
// as for one that did: their answers must be equal in every mode when no
// worker ever ends: here each worker blocks forever after its wg.Done,
// in the plain program and in the twin.
func TestGoroutineQuestionsWorkersOutliveMain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	// Seed 10 is the one seen; with 4 and 102, every template over
	// goroutines (102 for alloc-go, since the allocation questions no
	// longer avoid functions that make channels).
	templates := map[string]bool{}
	e := env(t)
	feat := defaultFeatures
	feat.Packages = false // the workers in main.go
	for _, seed := range []int64{10, 4, 102} {
		p := progen.Generate(seed, feat)
		const done = "\tdefer wg.Done()\n"
		if strings.Count(p.Plain, done) == 0 || strings.Count(p.Plain, done) != strings.Count(p.Twin, done) {
			t.Fatalf("seed %d: the workers' %q not found in the plain program and its twin alike", seed, strings.TrimSpace(done))
		}
		const hang = "\n// hangForever keeps a worker from ending before main returns.\nfunc hangForever() { select {} }\n"
		p.Plain = strings.ReplaceAll(p.Plain, done, "\tdefer hangForever()\n"+done) + hang
		p.Twin = strings.ReplaceAll(p.Twin, done, "\tdefer hangForever()\n"+done) + hang
		for _, q := range p.QuestionNames {
			templates[Kind(q)] = true
		}
		rs, _, err := e.Generated(seed, p, Modes)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if (strings.HasPrefix(r.Kind, "go-") || r.Kind == "alloc-go") && r.Outcome != Equal {
				t.Errorf("seed %d %s --mode %s, no worker ended before main returned: %s: %s", seed, r.Question, r.Mode, r.Outcome, r.Detail)
			}
		}
	}
	for _, k := range []string{"go-count", "go-first", "go-on", "alloc-go"} {
		if !templates[k] {
			t.Errorf("no question of seeds 10, 4 and 102 is of the template %s: pick seeds that ask every goroutine template", k)
		}
	}
}
