package instrument

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The region points are checked by running programs: each program of
// testdata/regions is rewritten with a tracer at the points FindRegions
// gives (regiontracer.go.txt), built and run; its own output must be the
// original's, and the tracer's lines (beginning with @) those of its
// want file, written by hand from the program's text. The tracer panics
// when a region is entered while open or left while closed.

// tracedProgram rewrites the program in src with the tracer; the
// regions of every function (declared or literal) are traced.
func tracedProgram(t *testing.T, src []byte) []byte {
	t.Helper()
	fset, f, info, pkg := checkProgram(t, src)
	var edits []Edit
	tf := fset.File(f.Pos())
	// Regions of lines: "// region FUNC FROM TO" comments.
	var comments []*ast.Comment
	for _, g := range f.Comments {
		comments = append(comments, g.List...)
	}
	fn := 0
	ast.Inspect(f, func(n ast.Node) bool {
		var body *ast.BlockStmt
		var sig *types.Signature
		var name string
		switch d := n.(type) {
		case *ast.FuncDecl:
			body, name = d.Body, d.Name.Name
			sig = info.Defs[d.Name].Type().(*types.Signature)
		case *ast.FuncLit:
			body, name = d.Body, fmt.Sprintf("func@%d", fset.Position(d.Pos()).Line)
			sig = info.TypeOf(d).(*types.Signature)
		default:
			return true
		}
		regions := LabeledRegions(body, nil)
		for _, c := range comments {
			var fname string
			var from, to int
			if n, _ := fmt.Sscanf(c.Text, "// region %s %d %d", &fname, &from, &to); n == 3 && fname == name {
				r, err := LineRegion(tf, body, from, to)
				if err != nil {
					t.Fatal(err)
				}
				regions = append(regions, r)
			}
		}
		br, err := RegionPoints(body, regions)
		if err != nil {
			t.Fatal(err)
		}
		if len(br.Regions) == 0 {
			return true
		}
		fn++
		v := func(r *Region) string { return fmt.Sprintf("__r%d_%d", fn, r.Index) }
		refs := func(rs []*Region) string {
			var s []string
			for _, r := range rs {
				s = append(s, "&"+v(r))
			}
			return strings.Join(s, ", ")
		}
		var top []string
		all := make([]*Region, len(br.Regions))
		for i, r := range br.Regions {
			top = append(top, fmt.Sprintf("%s := __region{name: %q};", v(r), name+"."+r.Label))
			all[len(all)-1-i] = r
		}
		rs := fmt.Sprintf("__rs%d", fn)
		top = append(top, rs+" := []*__region{"+refs(all)+"};", "defer __unwind("+rs+"...);")
		// return __retN[T...](regions)(results): the results are
		// evaluated before the regions end.
		var ts []string
		for i := 0; i < sig.Results().Len(); i++ {
			ts = append(ts, types.TypeString(sig.Results().At(i).Type(), types.RelativeTo(pkg)))
		}
		edits = append(edits, regionEdits(tf, body, br, regionText{
			Top:     strings.Join(top, " "),
			Enter:   func(r *Region) string { return v(r) + ".enter()" },
			Iterate: func(r *Region) string { return v(r) + ".iterate()" },
			Leave:   func(rs []*Region) string { return "__leave(\"\", " + refs(rs) + ")" },
			Return:  fmt.Sprintf("__ret%d[%s](%s...)", len(ts), strings.Join(ts, ", "), rs),
		})...)
		return true
	})
	return applyEdits(src, edits)
}

// applyEdits applies edits to src as rewrite.Apply does: by offset, then
// by Order, in the order given when both are equal.
func applyEdits(src []byte, edits []Edit) []byte {
	edits = slices.Clone(edits)
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].Off != edits[j].Off {
			return edits[i].Off < edits[j].Off
		}
		return edits[i].Order < edits[j].Order
	})
	var out []byte
	last := 0
	for _, e := range edits {
		out = append(append(out, src[last:e.Off]...), e.Text...)
		last = e.End
	}
	return append(out, src[last:]...)
}

// checkProgram parses (with comments) and type-checks the file of
// package main in src.
func checkProgram(t *testing.T, src []byte) (*token.FileSet, *ast.File, *types.Info, *types.Package) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("main", fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	return fset, f, info, pkg
}

// buildProgram writes the files (name → text) as a module and builds
// it, with flags; it returns the binary.
func buildProgram(t *testing.T, files map[string][]byte, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = []byte("module regiontest\n\ngo 1.26\n")
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "prog")
	build := exec.Command("go", append(append([]string{"build"}, flags...), "-o", bin, ".")...)
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s\n%s", err, out, files["main.go"])
	}
	return bin
}

// runProgram builds and runs the files as a module; env may begin with
// build flags (-race).
func runProgram(t *testing.T, files map[string][]byte, env ...string) (stdout, stderr string) {
	t.Helper()
	var flags []string
	for len(env) > 0 && strings.HasPrefix(env[0], "-") {
		flags, env = append(flags, env[0]), env[1:]
	}
	var o, e bytes.Buffer
	run := exec.Command(buildProgram(t, files, flags...))
	run.Env = append(os.Environ(), env...)
	run.Stdout, run.Stderr = &o, &e
	if err := run.Run(); err != nil {
		t.Fatalf("run: %v\n%s", err, e.String())
	}
	return o.String(), e.String()
}

// regionTracer is the tracer's source (a file of package main).
func regionTracer(t *testing.T) []byte {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs programs")
	}
	tracer, err := os.ReadFile("testdata/regions/regiontracer.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	return tracer
}

func TestRegionPoints(t *testing.T) {
	tracer := regionTracer(t)
	progs, _ := filepath.Glob("testdata/regions/*.go.txt")
	for _, p := range progs {
		if p == "testdata/regions/regiontracer.go.txt" {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(p), ".go.txt")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(p, ".go.txt") + ".want")
			if err != nil {
				t.Fatal(err)
			}
			plain, _ := runProgram(t, map[string][]byte{"main.go": src})
			traced := tracedProgram(t, src)
			out, _ := runProgram(t, map[string][]byte{"main.go": traced, "tracer.go": tracer})
			var own, trace []string
			for _, l := range strings.SplitAfter(out, "\n") {
				if strings.HasPrefix(l, "@") {
					trace = append(trace, l)
				} else {
					own = append(own, l)
				}
			}
			if got := strings.Join(own, ""); got != plain {
				t.Errorf("the traced program's output differs from the original's:\n%s\nwant:\n%s", got, plain)
			}
			if got := strings.Join(trace, ""); got != string(want) {
				t.Errorf("trace:\n%s\nwant:\n%s\ntraced program:\n%s", got, want, traced)
			}
		})
	}
}

// TestRegionsVMProfiler is VMProfiler's experiment (seed 004) in Go:
// one function with three labeled loops of the same body, of 1, 3 and 6
// units of iterations, each left early by a break, a continue to an
// outer label or a return. The iteration counts are exact; the time
// split, near 1:3:6, is a figure (docs/PERFORMANCE.md), logged, and so
// is pprof's split of the same function by line, from the plain
// program's CPU profile.
func TestRegionsVMProfiler(t *testing.T) {
	tracer := regionTracer(t)
	src, err := os.ReadFile("testdata/vmprofiler/main.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	unit, reps := 1000000, 20
	for _, v := range []struct {
		env string
		n   *int
	}{{"PMM_VMPROFILER_UNIT", &unit}, {"PMM_VMPROFILER_REPS", &reps}} {
		if s := os.Getenv(v.env); s != "" {
			if *v.n, err = strconv.Atoi(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := []string{"VM_UNIT=" + strconv.Itoa(unit), "VM_REPS=" + strconv.Itoa(reps), "PMM_REGION_QUIET=1"}
	out, stderr := runProgram(t, map[string][]byte{"main.go": tracedProgram(t, src), "tracer.go": tracer}, env...)
	// Each run of the function runs its loops unit, 3*unit and 6*unit
	// times, left early by a break, a continue to the outer label and a
	// return.
	labels := []string{"loop1", "loop2", "loop3"}
	for i, n := range []int{unit, 3 * unit, 6 * unit} {
		var want string
		if i == 2 {
			want = fmt.Sprintf("@end run.%s n=%d return\n", labels[i], n)
		} else {
			want = fmt.Sprintf("@end run.%s n=%d\n", labels[i], n)
		}
		if got := strings.Count(out, want); got != reps {
			t.Errorf("%d times %q in the trace, want %d:\n%s", got, want, reps, out)
		}
	}
	split := regionSplit(t, stderr, "run.loop1", "run.loop2", "run.loop3")
	t.Logf("regions (%d runs of %d+%d+%d iterations): time of loop1:loop2:loop3 = 1 : %.2f : %.2f",
		reps, unit, 3*unit, 6*unit, split[1]/split[0], split[2]/split[0])

	// pprof's split of the plain program: CPU samples by line, summed
	// over the lines of each loop.
	bin := buildProgram(t, map[string][]byte{"main.go": src})
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	run := exec.Command(bin)
	run.Env = append(os.Environ(), append(env, "VM_CPUPROFILE="+prof)...)
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	top, err := exec.Command("go", "tool", "pprof", "-top", "-lines", "-unit=ms", "-nodecount=10000", bin, prof).CombinedOutput()
	if err != nil {
		t.Fatalf("pprof: %v\n%s", err, top)
	}
	ranges := loopLines(t, src, labels...)
	samples := make([]float64, len(labels))
	for _, l := range strings.Split(string(top), "\n") {
		f := strings.Fields(l)
		if len(f) < 7 || f[5] != "main.run" {
			continue
		}
		line, err := strconv.Atoi(f[6][strings.LastIndex(f[6], ":")+1:])
		if err != nil {
			continue
		}
		ms, err := strconv.ParseFloat(strings.TrimSuffix(f[0], "ms"), 64)
		if err != nil {
			t.Fatalf("pprof line %q: %v", l, err)
		}
		for i, r := range ranges {
			if r[0] <= line && line <= r[1] {
				samples[i] += ms
			}
		}
	}
	if samples[0] == 0 {
		t.Logf("pprof: no samples in loop1 (%v); more runs (PMM_VMPROFILER_REPS) give a split:\n%s", samples, top)
		return
	}
	// A fraction p of N samples (10 ms each) has a standard error of
	// sqrt(p(1-p)/N).
	var rt, pt float64
	for i := range labels {
		rt, pt = rt+split[i], pt+samples[i]
	}
	n := pt / 10
	for i, l := range labels {
		p := samples[i] / pt
		se := math.Sqrt(p * (1 - p) / n)
		t.Logf("%s: regions %.3f of the three loops' time, pprof %.3f ± %.3f (2 standard errors, %.0f samples)", l, split[i]/rt, p, 2*se, n)
	}
}

// loopLines returns the first and last lines of the labeled statements
// of src with labels.
func loopLines(t *testing.T, src []byte, labels ...string) [][2]int {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][2]int, len(labels))
	ast.Inspect(f, func(n ast.Node) bool {
		if l, ok := n.(*ast.LabeledStmt); ok {
			for i, name := range labels {
				if l.Label.Name == name {
					out[i] = [2]int{fset.Position(l.Pos()).Line, fset.Position(l.End()).Line}
				}
			}
		}
		return true
	})
	return out
}

// regionSplit reads the tracer's @time lines (name, nanoseconds) and
// returns the total time of each region of names.
func regionSplit(t *testing.T, stderr string, names ...string) []float64 {
	total := map[string]float64{}
	for _, l := range strings.Split(stderr, "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == "@time" {
			ns, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				t.Fatal(err)
			}
			total[f[1]] += ns
		}
	}
	var out []float64
	for _, n := range names {
		if total[n] == 0 {
			t.Fatalf("no time for %s in:\n%s", n, stderr)
		}
		out = append(out, total[n])
	}
	return out
}

func TestLineRegionErrors(t *testing.T) {
	src := `package p

func f(xs []int) (n int) {
	for _, x := range xs {
		if x > 0 {
			n++
		}
		n--
	}
	return n
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	tf := fset.File(f.Pos())
	for _, c := range []struct {
		from, to int
		want     string // the region's first and last lines, or the error's start
	}{
		{4, 9, "4-9"},
		{5, 8, "5-8"},
		{6, 6, "6-6"},
		{6, 8, "lines 6 to 8 hold statements of more than one block (lines 6 and 8)"},
		{8, 10, "lines 8 to 10 hold statements of more than one block (lines 8 and 10)"},
		{1, 3, "lines 1 to 3 hold no whole statement"},
	} {
		r, err := LineRegion(tf, body, c.from, c.to)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprintf("%d-%d", tf.Line(r.Pos()), tf.Line(r.End()))
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("lines %d to %d: %s, want %s", c.from, c.to, got, c.want)
		}
	}
}

func TestRegionTwoLabels(t *testing.T) {
	src := `package p

func f() {
A:
B:
	for {
		break A
	}
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	if _, err := FindRegions(body, func(l string) bool { return l == "B" }); err == nil || !strings.Contains(err.Error(), "labeled twice (A: B:)") {
		t.Errorf("a region with two labels: %v, want an error", err)
	}
}

// TestRegionIterationTimes: each iteration is an interval from the top
// of the body to the next iteration's top or the loop's end, so the
// iteration that sleeps, and no other, takes at least its sleep, whichever
// way the others end (a continue, a break).
func TestRegionIterationTimes(t *testing.T) {
	tracer := regionTracer(t)
	src, err := os.ReadFile("testdata/vmprofiler/slowest.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, stderr := runProgram(t, map[string][]byte{"main.go": tracedProgram(t, src), "tracer.go": tracer})
	times := map[int]int64{}
	for _, l := range strings.Split(stderr, "\n") {
		f := strings.Fields(l)
		if len(f) != 4 || f[0] != "@itime" || f[1] != "work.each" {
			continue
		}
		i, err1 := strconv.Atoi(f[2])
		ns, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%q", l)
		}
		if _, dup := times[i]; dup {
			t.Errorf("iteration %d ended twice", i)
		}
		times[i] = ns
	}
	if len(times) != 5 {
		t.Fatalf("iterations %v, want 0 to 4", times)
	}
	// The sleep is in iteration 3 and no other: an iteration that does not
	// sleep would need a stall of 100ms to reach it.
	const sleep = int64(100 * time.Millisecond)
	for i, ns := range times {
		if (i == 3) != (ns >= sleep) {
			t.Errorf("iteration %d took %v; only iteration 3 sleeps 100ms: %v", i, time.Duration(ns), times)
		}
	}
}
