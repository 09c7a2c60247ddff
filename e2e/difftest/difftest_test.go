package difftest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// defaultFeatures is the feature set of the fast test: every construct of
// the generator and every question template. Each class of disagreement
// the long run found has its regression case in testdata/difftest; a
// class that comes back fails the fast test.
var defaultFeatures = progen.AllFeatures()

// defaultSeeds are the programs of the fast test: among them, every
// construct and template of the generator (interfaces, function values,
// generics, the method on a function type, goroutines, recovered panics,
// or, panicked, spawns: TestDefaultSeedsCoverEveryFeature).
// Since the iteration and blocking templates joined the draw, seed 19
// receives after a call in one expression, 23 asks iter-before, and 32
// has a select's case that continues or breaks the loop around it.
// Since the goroutine templates and ranges over channels joined the
// draw, 58 and 92 ask what the others no longer do (calls, result,
// iter-in, region-in, iter-regions, op-iter). Allocations joined it
// drawn from sources of their own, which leave the rest of each program
// and its questions as they were: these seeds ask every allocation
// template. Since programs spread over packages joined it (in two seeds
// of three: 1, 4, 5, 7, 16, 52, 92, 121 and 136 here), 2, 3, 6, 9, 10
// and 58 are the programs of one package they were, and 16, 52, 121 and
// 136 ask what 8, 19, 23 and 32 no longer do.
var defaultSeeds = []int64{1, 2, 3, 4, 5, 6, 7, 9, 10, 16, 52, 58, 92, 121, 136}

// TestDefaultSeedsCoverEveryFeature checks that the programs of the fast
// test use every construct of the generator and that their questions
// use every template that tests a relation, a negation, an aggregate
// over results or panicked: a construct the generator stops drawing on
// these seeds would otherwise leave its class untested by go test ./...
func TestDefaultSeedsCoverEveryFeature(t *testing.T) {
	seen := map[string]bool{}
	for _, seed := range defaultSeeds {
		maps.Copy(seen, covers(progen.Generate(seed, defaultFeatures)))
	}
	for _, name := range append(slices.Collect(maps.Keys(constructs)), "regions in function literals", agentReads) {
		if !seen[name] {
			t.Errorf("no program of the fast test (seeds %v) uses %s", defaultSeeds, name)
		}
	}
	for _, tp := range templates {
		if !seen[tp] {
			t.Errorf("no question of the fast test (seeds %v) is of the template %s", defaultSeeds, tp)
		}
	}
}

// constructs are the marks of the generator's constructs in a plain
// program: a construct is used where its mark appears.
var constructs = map[string]string{
	"interfaces":       "shapes[",
	"function values":  "ops[",
	"generic function": "pick(",
	"generic method":   ".put(",
	"handler func":     "handler(",
	"goroutines":       "go work",
	"recovered panics": "recover()",
	"deferred calls":   "\tdefer ",
	"closures":         ":= func(",
	"recursion":        "fib(a-1)",
	"method values":    ").area\n",
	// Regions, and the ways out of them (the labels are the
	// generator's: internal/progen/regions.go).
	"labeled loops":                  "\nloop",
	"nested labeled loops":           "continue outer",
	"labeled range loops":            "range strs {",
	"labeled switches":               "break sw",
	"goto to a region's own label":   "goto retry",
	"goto to a later region's label": "goto done",
	"return from a region":           "continue find",
	"panic in a region":              "panic(\"main.m",
	"labeled type switches":          ".(type) {",
	"labeled selects":                "break sel",
	"marked loops":                   "//pmm:region mark",
	// Blocking operations (internal/progen/blocking.go).
	"sends":                       "ch <- ",
	"receives":                    "acc += <-ch",
	"comma-ok receives":           "v, ok := <-ch",
	"selects without default":     "case v := <-ch:",
	"a select's never-ready case": "case never <- 1:",
	"Lock":                        "mu.Lock()",
	"RLock":                       "rw.RLock()",
	"RWMutex Lock":                "rw.Lock()",
	"ranges over a channel":       "for v := range ch {",
	"a range left by a break":     "if v == acc%5 {",
	// Allocations (internal/progen/allocations.go).
	"new":                                    "sink.Store(new(cell))",
	"composite literals":                     "sink.Store(&cell{n: a})",
	"make of a slice":                        "make([]int, a&3+1)",
	"concatenations":                         `"<" + strs[a%3] + ">"`,
	"appends that grow":                      "append(make([]int, 1), a)",
	"moved variables":                        "v := cell{n: a}\n",
	"moved range variables":                  "for _, v := range [2]cell{",
	"maps made":                              "sink.Store(&cell{m: m})",
	"maps in the frame":                      "m[j] = a",
	"map literals":                           "&cell{m: map[int]int{",
	"allocations in a range over a function": "for range slices.Values(",
	// Heap walks (internal/progen/walks.go).
	"lists to walk": "w3c.next = &w3a",
	// Packages (internal/progen/packages.go).
	"calls into another package":            "acc += pb.",
	"an interface of another package":       ".Shapes[",
	"a method value of another package":     ").Area\n",
	"a function value of another package":   ".Ops[",
	"a generic function of another package": ".Pick(",
}

// templates are the question templates the fast test must ask.
var templates = []string{"calls", "calls-star", "not-calls", "not-calls-star", "not-called-by", "spawns",
	"contains", "cache", "cache-count", "panicked", "either", "callee-names", "result", "by-param",
	"region-count", "region-in", "region-same-g", "region-before", "region-contains",
	"iter-count", "iter-per-loop", "iter-per-loop-last", "iter-in", "iter-regions", "iter-before", "iter-calls",
	"op-count", "op-case", "op-in", "op-same-g", "op-iter", "op-region", "op-before", "go-count", "go-first", "go-on",
	"alloc-count", "alloc-own", "alloc-kinds", "alloc-kinds-count", "alloc-kinds-account", "alloc-go", "alloc-account", "ctx-count", "ctx-alloc",
	"walk-at", "walk-end", "walk-filter", "walk-sum", "walk-alloc"}

// covers are the constructs p uses and the templates of its questions.
func covers(p *progen.Program) map[string]bool {
	seen := map[string]bool{}
	src := p.PlainSource()
	for name, mark := range constructs {
		if strings.Contains(src, mark) {
			seen[name] = true
		}
	}
	for _, f := range p.Funcs {
		if strings.Contains(f.Name, ".func") && len(f.Regions()) > 0 {
			seen["regions in function literals"] = true
		}
	}
	for _, q := range p.QuestionNames {
		_, template, _ := strings.Cut(q, "-") // q12-not-called-by
		seen[template] = true
	}
	for _, set := range p.AgentAccounts() {
		if strings.Contains(p.Questions, strconv.Quote(set)) {
			seen[agentReads] = true
		}
	}
	return seen
}

// agentReads is an account question whose patterns are the packages
// that call an allocating function of another package: the agent reads
// its account at run time.
const agentReads = "an agent called from two accounted packages"

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
