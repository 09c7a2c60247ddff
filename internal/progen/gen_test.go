package progen

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/golden"
	"pmm.dev/pmm/internal/reftrace"
	"pmm.dev/pmm/spec"
)

// TestQuestionsCompile checks that the questions of many seeds pass pmm
// check, in every feature set, and that generation is deterministic
// (seed 224's alloc-account once named a variable it did not quantify).
func TestQuestionsCompile(t *testing.T) {
	for _, feat := range []Features{AllFeatures(), {}} {
		for seed := int64(1); seed <= 300; seed++ {
			p := Generate(seed, feat)
			if len(p.QuestionNames) < 10 {
				t.Errorf("seed %d: %d questions", seed, len(p.QuestionNames))
			}
			if _, err := spec.Compile(spec.Source{Name: "questions.pmm", Text: []byte(p.Questions)}); err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, p.Questions)
			}
			if q := Generate(seed, feat); q.Plain != p.Plain || q.Twin != p.Twin || q.Questions != p.Questions {
				t.Fatalf("seed %d: two generations differ", seed)
			}
		}
	}
}

// TestTwinComputesThePlainProgram builds and runs the plain program and
// its traced twin for a few seeds: both print the same result, the twin
// (built without inlining, names checked against the runtime's) writes a
// trace in which every execution but those of workers ended, and every
// function of the model that runs appears in it; each iteration is in
// one execution of its loop's region, numbered from 0 there; each
// blocking operation ended within the execution it runs in, with a case
// if it is a select; each allocation is made within the execution of its
// function it is made in; an execution has walks where its function
// does (an int a in scope), at its begin and end.
func TestTwinComputesThePlainProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs")
	}
	allIterations, allOps, allAllocs, allWalks := 0, 0, 0, 0
	defer func() {
		if allIterations == 0 || allOps == 0 || allAllocs == 0 || allWalks == 0 {
			t.Errorf("%d iterations, %d blocking operations, %d allocations and %d executions with walks ran", allIterations, allOps, allAllocs, allWalks)
		}
	}()
	// Seed 82 has a function literal in the body of a range over a
	// channel, in a function that recovers: the twin once named it
	// m3.func1, the runtime m3.func2. Seed 313 makes a channel in a
	// literal after another: the twin once gave the make the literal's
	// name before the literals were numbered (m2.func3, not m2.func4).
	for _, seed := range []int64{1, 2, 3, 82, 313} {
		p := Generate(seed, AllFeatures())
		dir := t.TempDir()
		plain, twin := filepath.Join(dir, "plain"), filepath.Join(dir, "twin")
		if err := p.WritePlain(plain); err != nil {
			t.Fatal(err)
		}
		if err := p.WriteTwin(twin); err != nil {
			t.Fatal(err)
		}
		want := run(t, plain, nil, "run", ".")
		trace := filepath.Join(dir, "trace.jsonl")
		got := run(t, twin, []string{TraceEnv + "=" + trace, "PMM_REFTRACE_CHECKNAMES=1"}, "run", "-gcflags=-l", ".")
		if got != want || !strings.HasPrefix(want, "result ") {
			t.Errorf("seed %d: the plain program prints %q, its twin %q", seed, want, got)
		}
		tr, err := reftrace.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		regions, iterations, ops, walks := 0, 0, 0, 0
		for _, e := range tr.Execs {
			f := p.Func(e.Func)
			if f == nil {
				t.Errorf("seed %d: %s is not a function of the model", seed, e.Func)
				continue
			}
			if e.IsRegion() {
				regions++
				checkRegion(t, seed, tr, f, e)
				continue
			}
			if e.IsIteration() {
				iterations++
				checkIteration(t, seed, tr, e)
				continue
			}
			if e.IsBlocking() {
				ops++
				if in := tr.ByID[e.In]; !e.Ended || in == nil || in.Func != e.Func || in.Goroutine != e.Goroutine ||
					e.BeginSeq < in.BeginSeq || in.Ended && e.EndSeq > in.EndSeq || (e.Op == "select") != (e.Case >= 0) {
					t.Errorf("seed %d: the blocking operation %+v in %+v", seed, e, in)
				}
				continue
			}
			if e.IsGoroutine() {
				checkGoroutine(t, seed, tr, f, e)
				continue
			}
			names[e.Func] = true
			// Walks at every begin and end of a function they compile
			// in, and only there.
			if f.walks != (e.Walks[0] != nil) || e.Ended && f.walks != (e.Walks[1] != nil) {
				t.Errorf("seed %d: %s (walks %v) has the walks %v", seed, e.Func, f.walks, e.Walks)
			}
			if e.Walks[0] != nil {
				walks++
			}
			if !e.Ended && !f.Worker {
				t.Errorf("seed %d: an execution of %s did not end", seed, e.Func)
			}
			if e.Ended && e.Panicked && (f.Worker || f.Name == "main.main") {
				t.Errorf("seed %d: %s panicked", seed, e.Func)
			}
		}
		if !names["main.main"] || len(names) < len(p.Funcs)/2 {
			t.Errorf("seed %d: only %d of %d functions ran", seed, len(names), len(p.Funcs))
		}
		if regions == 0 {
			t.Errorf("seed %d: no region ran", seed)
		}
		for _, a := range tr.Allocs {
			f := p.Func(a.Func)
			if in := tr.ByID[a.In]; in != nil && !slices.Equal(a.Walks[0], in.Walks[0]) {
				t.Errorf("seed %d: the allocation %+v has the walks %v, its execution %v", seed, a, a.Walks[0], in.Walks[0])
			}
			if in := tr.ByID[a.In]; f == nil || !f.allocs || in == nil || in.Func != a.Func || in.Goroutine != a.Goroutine ||
				a.BeginSeq < in.BeginSeq || in.Ended && a.BeginSeq > in.EndSeq {
				t.Errorf("seed %d: the allocation %+v in %+v", seed, a, in)
			}
		}
		allIterations, allOps, allAllocs, allWalks = allIterations+iterations, allOps+ops, allAllocs+len(tr.Allocs), allWalks+walks
	}
}

// checkRegion checks a region's execution e of f: one of f's labels, in
// an execution of f on its goroutine, ended within it; and every other
// region's execution in it is either inside e or apart from it.
func checkRegion(t *testing.T, seed int64, tr *reftrace.Trace, f *Func, e *reftrace.Execution) {
	t.Helper()
	if !slices.Contains(f.Regions(), e.Label) {
		t.Errorf("seed %d: %s has no region %s", seed, f.Name, e.Label)
	}
	in := tr.ByID[e.In]
	switch {
	case in == nil || in.Func != f.Name || in.Goroutine != e.Goroutine:
		t.Errorf("seed %d: the region %s of %s runs in %+v", seed, e.Label, f.Name, in)
	case !e.Ended || !in.Ended:
		t.Errorf("seed %d: an execution of the region %s of %s did not end", seed, e.Label, f.Name)
	case e.BeginSeq < in.BeginSeq || e.EndSeq > in.EndSeq:
		t.Errorf("seed %d: the region %s of %s [%d, %d] is not within its function's execution [%d, %d]",
			seed, e.Label, f.Name, e.BeginSeq, e.EndSeq, in.BeginSeq, in.EndSeq)
	}
	for _, o := range tr.Execs {
		if o.IsRegion() && o.In == e.In && o != e {
			nested := o.BeginSeq > e.BeginSeq && o.EndSeq < e.EndSeq || e.BeginSeq > o.BeginSeq && e.EndSeq < o.EndSeq
			if !nested && !(o.EndSeq < e.BeginSeq || e.EndSeq < o.BeginSeq) {
				t.Errorf("seed %d: the regions %s and %s of one execution of %s overlap", seed, e.Label, o.Label, f.Name)
			}
		}
	}
}

// checkIteration checks an iteration e: it ended, and is in exactly one
// execution of its loop's region in the same execution of the function,
// after the iterations numbered before it there and before those after.
func checkIteration(t *testing.T, seed int64, tr *reftrace.Trace, e *reftrace.Execution) {
	t.Helper()
	if !e.Ended {
		t.Errorf("seed %d: an iteration of %s/%s did not end", seed, e.Func, e.Label)
		return
	}
	var loops []*reftrace.Execution
	for _, o := range tr.Execs {
		if o.IsRegion() && o.In == e.In && o.Label == e.Label && o.BeginSeq < e.BeginSeq && e.EndSeq < o.EndSeq {
			loops = append(loops, o)
		}
	}
	if len(loops) != 1 {
		t.Errorf("seed %d: an iteration of %s/%s is in %d executions of its loop", seed, e.Func, e.Label, len(loops))
		return
	}
	for _, o := range tr.Execs {
		if !o.IsIteration() || o == e || o.In != e.In || o.Label != e.Label ||
			o.BeginSeq < loops[0].BeginSeq || o.BeginSeq > loops[0].EndSeq {
			continue
		}
		if o.Index == e.Index || (o.Index < e.Index) != (o.EndSeq < e.BeginSeq) || (o.Index > e.Index) != (e.EndSeq < o.BeginSeq) {
			t.Errorf("seed %d: iterations %d [%d, %d] and %d [%d, %d] of one execution of %s/%s", seed,
				e.Index, e.BeginSeq, e.EndSeq, o.Index, o.BeginSeq, o.EndSeq, e.Func, e.Label)
		}
	}
}

// TestProgramsCompile type-checks (go vet) the plain program and the
// twin of many seeds with every feature: labels each used by a branch,
// gotos over no declaration, the names of literals' variables.
func TestProgramsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("vets programs")
	}
	for seed := int64(1); seed <= 24; seed++ {
		p := Generate(seed, AllFeatures())
		dir := t.TempDir()
		if err := p.WritePlain(filepath.Join(dir, "plain")); err != nil {
			t.Fatal(err)
		}
		if err := p.WriteTwin(filepath.Join(dir, "twin")); err != nil {
			t.Fatal(err)
		}
		run(t, filepath.Join(dir, "plain"), nil, "vet", ".")
		run(t, filepath.Join(dir, "twin"), nil, "vet", ".")
	}
}

func run(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("go %v in %s: %v\n%s", args, dir, err, errOut.String())
	}
	// A generated program prints its result to the standard error
	// (println): what a run printed is both.
	return out.String() + errOut.String()
}

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden keeps the program, twin and questions of one seed with every
// feature in golden files, so that a change to the generator shows in
// review.
func TestGolden(t *testing.T) {
	p := Generate(1, AllFeatures())
	if p.PlainFiles == nil {
		t.Fatal("seed 1 is a program of one package: keep a seed of several in the golden files")
	}
	golden.Check(t, "testdata/seed1_plain.go.golden", p.Plain, *update)
	golden.Check(t, "testdata/seed1_twin.go.golden", p.Twin, *update)
	golden.Check(t, "testdata/seed1_questions.pmm.golden", p.Questions, *update)
	var b strings.Builder
	for _, files := range []map[string]string{p.PlainFiles, p.TwinFiles} {
		for _, name := range slices.Sorted(maps.Keys(files)) {
			if name != "tr/trace.go" { // the tracer, its names exported
				fmt.Fprintf(&b, "// ==== %s\n%s", name, files[name])
			}
		}
	}
	golden.Check(t, "testdata/seed1_packages.go.golden", b.String(), *update)
}

// TestOnePackage checks that a program of one package is the one the
// generator made before Features.Packages, whether or not the feature
// is on: seed 2's with the feature off, the golden files' seed 1's
// without the feature, and that some seeds with it stay of one package.
func TestOnePackage(t *testing.T) {
	feat := AllFeatures()
	feat.Packages = false
	single := 0
	for seed := int64(1); seed <= 30; seed++ {
		on, off := Generate(seed, AllFeatures()), Generate(seed, feat)
		if off.PlainFiles != nil || off.TwinFiles != nil {
			t.Fatalf("seed %d: several packages without Features.Packages", seed)
		}
		if on.PlainFiles == nil {
			single++
			if on.Plain != off.Plain || on.Twin != off.Twin || on.Questions != off.Questions {
				t.Errorf("seed %d: a program of one package differs with Features.Packages on", seed)
			}
		}
	}
	if single < 5 || single > 20 {
		t.Errorf("%d seeds of 30 are programs of one package", single)
	}
}

// checkGoroutine checks a goroutine e that starts worker f: spawned by an
// execution of spawn on another goroutine, which began before it; the
// one first execution on its goroutine is of f, spawned by the same
// execution, and lies within e.
func checkGoroutine(t *testing.T, seed int64, tr *reftrace.Trace, f *Func, e *reftrace.Execution) {
	t.Helper()
	sp := tr.ByID[e.Spawner]
	if !f.Worker || sp == nil || !strings.HasSuffix(strings.ToLower(sp.Func), ".spawn") || sp.Goroutine == e.Goroutine || sp.BeginSeq > e.BeginSeq {
		t.Errorf("seed %d: the goroutine %+v, spawned by %+v", seed, e, sp)
	}
	var first []*reftrace.Execution
	for _, x := range tr.Execs {
		if x.IsFunc() && x.Goroutine == e.Goroutine && x.Caller == 0 {
			first = append(first, x)
		}
	}
	if len(first) != 1 || first[0].Func != e.Func || first[0].Spawner != e.Spawner || first[0].BeginSeq < e.BeginSeq ||
		e.Ended && (!first[0].Ended || first[0].EndSeq > e.EndSeq) {
		t.Errorf("seed %d: the goroutine %+v has first executions %+v", seed, e, first)
	}
}
