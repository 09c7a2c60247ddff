package pmmrt

import (
	"reflect"
	"sort"
	"testing"
	"time"
	"unsafe"
)

// codeOf is what generated code reads of a function value: the code
// pointer, the first word of the funcval.
func codeOf(f func(int) int) uintptr { return **(**uintptr)(unsafe.Pointer(&f)) }

func targetSmall(a int) int { return a + 1 }

//go:noinline
func targetOther(a int) int { return a * 3 }

type targetValue struct{ n int }

func (v targetValue) M(a int) int { return v.n + a }

type targetPtr struct{ n int }

func (p *targetPtr) M(a int) int { return p.n * a }

// TestTargets identifies the function a value runs among a site's
// targets, for each kind of function value, twice (the second time from
// the pointers seen), and none for a function that is not a target.
func TestTargets(t *testing.T) {
	const pkg = "pmm.dev/pmm/rt/pmmrt."
	k := 2
	closure := func(a int) int { return targetSmall(a) * k } // targetSmall is inlined at its first instruction
	v, p := targetValue{1}, &targetPtr{2}
	ts := NewTargets(pkg+"targetSmall", pkg+"TestTargets.func1", pkg+"targetValue.M", pkg+"(*targetPtr).M")
	for _, c := range []struct {
		what string
		f    func(int) int
		want int
	}{
		{"a function", targetSmall, 1},
		{"a closure", closure, 2},
		{"a method value", v.M, 3},
		{"a method value through a pointer", (&v).M, 3},
		{"a method value of a pointer receiver", p.M, 4},
		{"another function", targetOther, 0},
	} {
		for i := 0; i < 2; i++ {
			if got := ts.Func(codeOf(c.f)); got != c.want {
				t.Errorf("%s (%d): target %d, want %d", c.what, i, got, c.want)
			}
		}
	}
	// A method expression of a value method through a pointer is a
	// wrapper, (*targetValue).M, which runs targetValue.M.
	if got := NewTargets(pkg + "targetValue.M").Func(**(**uintptr)(unsafe.Pointer(&[]func(*targetValue, int) int{(*targetValue).M}[0]))); got != 1 {
		t.Errorf("a method expression through a pointer: target %d, want 1", got)
	}
}

// TestCode: the code pointer taken at init is the one a call reads.
func TestCode(t *testing.T) {
	if Code(targetOther) != codeOf(targetOther) || Code(targetOther) == Code(targetSmall) {
		t.Errorf("Code(targetOther) = %#x, a call reads %#x; Code(targetSmall) = %#x", Code(targetOther), codeOf(targetOther), Code(targetSmall))
	}
}

// TestTargetsNoAllocation: once seen, a pointer is found without
// allocating.
func TestTargetsNoAllocation(t *testing.T) {
	ts := NewTargets("pmm.dev/pmm/rt/pmmrt.targetOther")
	pc := codeOf(targetOther)
	ts.Func(pc)
	if n := testing.AllocsPerRun(100, func() { ts.Func(pc) }); n != 0 {
		t.Errorf("Func allocates %v times", n)
	}
}

// Benchmarks of the test a dynamic call site runs to know which
// function it calls (docs/RUNTIME.md, "Dynamic call sites").

type targetShape interface{ Area(int) int }

type targetSq struct{ n int }

func (q *targetSq) Area(k int) int { return q.n * k }

type targetCirc struct{ n int }

func (c targetCirc) Area(k int) int { return c.n + k }

var (
	targetSink  int
	targetCodes = [...]uintptr{codeOf(targetSmall), codeOf(targetOther)}
	benchTarget = NewTargets("pmm.dev/pmm/rt/pmmrt.targetOther")
)

// siteCallFunc is a call site that calls a function value.
//
//go:noinline
func siteCallFunc(f func(int) int) int { return f(1) }

// siteCodeSwitch is the test generated for a site whose targets it can
// name: the code pointer against those taken at init.
//
//go:noinline
func siteCodeSwitch(f func(int) int) int {
	if f == nil {
		return 0
	}
	switch pc := **(**uintptr)(unsafe.Pointer(&f)); pc {
	case targetCodes[0]:
		return 0
	case targetCodes[1]:
		return 1
	default:
		return benchTarget.Func(pc)
	}
}

// siteSeen is the test for a target the site cannot name (a closure):
// the pointers seen.
//
//go:noinline
func siteSeen(f func(int) int) int {
	if f == nil {
		return 0
	}
	return benchTarget.Func(**(**uintptr)(unsafe.Pointer(&f)))
}

// siteTypeSwitch is the test of an interface call: the receiver's
// dynamic type.
//
//go:noinline
func siteTypeSwitch(x targetShape) int {
	switch x.(type) {
	case *targetSq:
		return 1
	case targetCirc, *targetCirc:
		return 2
	}
	return 0
}

type targetCandidate struct {
	name string
	run  func(n int) int
}

var targetCandidates = []targetCandidate{
	{"call", func(n int) int {
		c := 0
		for i := 0; i < n; i++ {
			c += siteCallFunc(targetOther)
		}
		return c
	}},
	{"code-switch", func(n int) int {
		c := 0
		for i := 0; i < n; i++ {
			c += siteCodeSwitch(targetOther)
		}
		return c
	}},
	{"seen", func(n int) int {
		c := 0
		for i := 0; i < n; i++ {
			c += siteSeen(targetOther)
		}
		return c
	}},
	{"type-switch", func(n int) int {
		c := 0
		var x targetShape = targetCirc{1}
		for i := 0; i < n; i++ {
			c += siteTypeSwitch(x)
		}
		return c
	}},
}

// BenchmarkTargetRatios measures the tests in one loop, alternating
// chunks of each, and reports each one's median chunk in ns/op (each
// is a call of a function that is not inlined, as "call" is) and the
// tests' cost beyond the call.
func BenchmarkTargetRatios(b *testing.B) {
	const chunk = 1000
	benchTarget.Func(codeOf(targetOther))
	chunks := make([][]float64, len(targetCandidates))
	for done := 0; done < b.N; done += chunk {
		k := chunk
		if b.N-done < k {
			k = b.N - done
		}
		for j, c := range targetCandidates {
			t0 := time.Now()
			targetSink += c.run(k)
			chunks[j] = append(chunks[j], float64(time.Since(t0).Nanoseconds())/float64(k))
		}
	}
	ns := map[string]float64{}
	for j, c := range targetCandidates {
		sort.Float64s(chunks[j])
		ns[c.name] = chunks[j][len(chunks[j])/2]
		b.ReportMetric(ns[c.name], c.name+"-ns/op")
	}
	b.ReportMetric(ns["code-switch"]/ns["call"], "code-switch-x-call")
	b.ReportMetric(ns["seen"]/ns["call"], "seen-x-call")
	b.ReportMetric(ns["type-switch"]/ns["call"], "type-switch-x-call")
}

type genericBox[T any] struct{ v T }

type plainBox struct{}

func TestGeneric(t *testing.T) {
	pkg := reflect.TypeOf(plainBox{}).PkgPath()
	for _, c := range []struct {
		x       interface{}
		pointer bool
		want    bool
	}{
		{&genericBox[int]{}, true, true},
		{&genericBox[string]{}, true, true},
		{genericBox[float64]{}, false, true},
		{genericBox[int]{}, true, false}, // not a pointer
		{&genericBox[int]{}, false, false},
		{plainBox{}, false, false},
		{&plainBox{}, true, false},
		{nil, false, false},
		{3, false, false},
	} {
		if got := Generic(c.x, pkg, "genericBox", false, c.pointer); got != c.want {
			t.Errorf("Generic(%T, %v) = %v, want %v", c.x, c.pointer, got, c.want)
		}
	}
	if Generic(&genericBox[int]{}, "other/pkg", "genericBox", false, true) {
		t.Error("Generic matched another package's type")
	}
}

func TestNamed(t *testing.T) {
	pkg := reflect.TypeOf(plainBox{}).PkgPath()
	for _, c := range []struct {
		x       interface{}
		pointer bool
		want    bool
	}{
		{plainBox{}, false, true},
		{&plainBox{}, true, true},
		{&plainBox{}, false, false},
		{plainBox{}, true, false}, // not a pointer
		{genericBox[int]{}, false, false},
		{nil, false, false},
		{3, false, false},
	} {
		if got := Named(c.x, pkg, "plainBox", false, c.pointer); got != c.want {
			t.Errorf("Named(%T, %v) = %v, want %v", c.x, c.pointer, got, c.want)
		}
	}
	if Named(plainBox{}, "other/pkg", "plainBox", false, false) {
		t.Error("Named matched another package's type")
	}
}
