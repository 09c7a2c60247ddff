package reftrace

import (
	"strings"
	"testing"
)

// TestReadRegions: a begin record with a label is a region's execution,
// in the order of begins with the functions' executions, with the
// execution it runs in; a region's record with a caller or results, and
// a second end, are errors.
func TestReadRegions(t *testing.T) {
	tr, err := Read(strings.NewReader(`{"k":"end","id":2,"seq":3}
{"k":"begin","id":1,"seq":1,"fn":"main.main","g":1}
{"k":"begin","id":2,"seq":2,"fn":"main.main","label":"loop","in":1,"g":1}
{"k":"end","id":1,"seq":4}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Execs) != 2 || tr.Execs[0].IsRegion() || !tr.Execs[1].IsRegion() {
		t.Fatalf("executions %+v, want main's then its region's", tr.Execs)
	}
	r := tr.Execs[1]
	if r.Label != "loop" || r.In != 1 || r.Func != "main.main" || r.Goroutine != 1 || !r.Ended || r.BeginSeq != 2 || r.EndSeq != 3 {
		t.Errorf("the region's execution is %+v", r)
	}
	for _, bad := range []string{
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","label":"loop","caller":1,"g":1}`,
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","label":"loop","in":1,"g":1}
{"k":"end","id":2,"seq":3,"panicked":true}`,
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","label":"loop","in":1,"g":1}
{"k":"end","id":2,"seq":3}
{"k":"end","id":2,"seq":4}`,
	} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("Read accepts\n%s", bad)
		}
	}
}

// TestReadIterationsAndBlocking: a begin record with iter is an
// iteration of its loop's region, with its index; one with op is a
// blocking operation, whose case a select's end record gives (-1 for
// another kind). An iteration without a label, a case at the end of a
// send, and a select without its case are errors.
func TestReadIterationsAndBlocking(t *testing.T) {
	tr, err := Read(strings.NewReader(`{"k":"begin","id":1,"seq":1,"fn":"main.main","g":1}
{"k":"begin","id":2,"seq":2,"fn":"main.main","label":"loop","in":1,"g":1}
{"k":"begin","id":3,"seq":3,"fn":"main.main","label":"loop","iter":true,"index":1,"in":1,"g":1}
{"k":"begin","id":4,"seq":4,"fn":"main.main","op":"send","operand":"ch","in":1,"g":1}
{"k":"end","id":4,"seq":5}
{"k":"begin","id":5,"seq":6,"fn":"main.main","op":"select","in":1,"g":1}
{"k":"end","id":5,"seq":7,"case":2}
{"k":"end","id":3,"seq":8}
`))
	if err != nil {
		t.Fatal(err)
	}
	r, i, s, sel := tr.ByID[2], tr.ByID[3], tr.ByID[4], tr.ByID[5]
	if !r.IsRegion() || r.IsIteration() || r.IsFunc() || !tr.ByID[1].IsFunc() {
		t.Errorf("the region is %+v", r)
	}
	if i.IsRegion() || !i.IsIteration() || i.IsFunc() || i.Index != 1 || i.Label != "loop" || !i.Ended {
		t.Errorf("the iteration is %+v", i)
	}
	if !s.IsBlocking() || s.IsRegion() || s.IsFunc() || s.Op != "send" || s.Operand != "ch" || s.Case != -1 {
		t.Errorf("the send is %+v", s)
	}
	if !sel.IsBlocking() || sel.Op != "select" || sel.Case != 2 {
		t.Errorf("the select is %+v", sel)
	}
	for _, bad := range []string{
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","iter":true,"in":1,"g":1}`,
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","op":"send","operand":"ch","in":1,"g":1}
{"k":"end","id":2,"seq":3,"case":0}`,
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","op":"select","in":1,"g":1}
{"k":"end","id":2,"seq":3}`,
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","label":"loop","index":3,"in":1,"g":1}`,
	} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("Read accepts\n%s", bad)
		}
	}
}

// TestReadBlocked reads whether blocking operations blocked: from the
// "blocked" record written before an operation waits, so that one that
// never proceeded (id 3) is known to have blocked, and from the end's;
// an end that contradicts the blocked record, or a blocked record of
// something that is not a blocking operation, is refused.
func TestReadBlocked(t *testing.T) {
	tr, err := Read(strings.NewReader(`{"k":"begin","id":1,"seq":1,"fn":"main.main","g":1}
{"k":"begin","id":2,"seq":2,"fn":"main.main","op":"send","operand":"ch","in":1,"g":1}
{"k":"end","id":2,"seq":3,"blocked":false}
{"k":"begin","id":3,"seq":4,"fn":"main.main","op":"recv","operand":"ch","in":1,"g":1}
{"k":"blocked","id":3,"seq":5}
{"k":"begin","id":4,"seq":6,"fn":"main.main","op":"lock","operand":"mu","in":1,"g":2}
{"k":"blocked","id":4,"seq":7}
{"k":"end","id":4,"seq":8,"blocked":true}
`))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[int64][3]bool{2: {false, true, true}, 3: {true, true, false}, 4: {true, true, true}} {
		e := tr.ByID[id]
		if got := [3]bool{e.Blocked, e.Tried, e.Ended}; got != want {
			t.Errorf("operation %d: blocked, tried, ended %v, want %v", id, got, want)
		}
	}
	for _, bad := range []string{
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","op":"send","operand":"ch","g":1}
{"k":"blocked","id":2,"seq":3}
{"k":"end","id":2,"seq":4,"blocked":false}`,
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","g":1}
{"k":"blocked","id":2,"seq":3}`,
		`{"k":"blocked","id":7,"seq":3}`,
	} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("Read accepts\n%s", bad)
		}
	}
}

// TestReadGoroutines reads a goroutine: its begin at the go statement,
// with its spawner and the new goroutine, the first execution on it, and
// its end after that execution's; a goroutine without a spawner, or with
// a label, an operation or parameters, is refused.
func TestReadGoroutines(t *testing.T) {
	tr, err := Read(strings.NewReader(`{"k":"begin","id":1,"seq":1,"fn":"main.main","g":1}
{"k":"begin","id":2,"seq":2,"fn":"main.worker","go":true,"spawner":1,"g":2}
{"k":"begin","id":3,"seq":3,"fn":"main.worker","spawner":1,"g":2}
{"k":"end","id":3,"seq":4}
{"k":"end","id":2,"seq":5}
`))
	if err != nil {
		t.Fatal(err)
	}
	g, w := tr.ByID[2], tr.ByID[3]
	if !g.IsGoroutine() || g.IsFunc() || g.IsRegion() || g.IsBlocking() || g.Spawner != 1 || g.Goroutine != 2 || !g.Ended || g.EndSeq != 5 {
		t.Errorf("the goroutine is %+v", g)
	}
	if !w.IsFunc() || w.IsGoroutine() || w.Spawner != 1 {
		t.Errorf("its first execution is %+v", w)
	}
	for _, bad := range []string{
		`{"k":"begin","id":2,"seq":2,"fn":"main.worker","go":true,"g":2}`,
		`{"k":"begin","id":2,"seq":2,"fn":"main.worker","go":true,"spawner":1,"label":"l","g":2}`,
		`{"k":"begin","id":2,"seq":2,"fn":"main.worker","go":true,"spawner":1,"op":"send","g":2}`,
		`{"k":"begin","id":2,"seq":2,"fn":"main.worker","go":true,"spawner":1,"params":[1],"g":2}`,
	} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("Read accepts\n%s", bad)
		}
	}
}

// TestReadAllocations reads an allocation: a point, in Allocs and ByID,
// not among the executions; one without a kind, a type, an execution it
// is made in or bytes, with an end, or a begin with an allocation's
// fields, is refused.
func TestReadAllocations(t *testing.T) {
	tr, err := Read(strings.NewReader(`{"k":"begin","id":1,"seq":1,"fn":"main.main","g":1}
{"k":"alloc","id":2,"seq":2,"fn":"main.main","in":1,"g":1,"alloc":"make-slice","type":"[]int","elems":3,"bytes":24,"heap":24}
{"k":"end","id":1,"seq":3}
`))
	if err != nil {
		t.Fatal(err)
	}
	a := tr.ByID[2]
	if len(tr.Execs) != 1 || len(tr.Allocs) != 1 || tr.Allocs[0] != a || !a.IsAllocation() || a.IsFunc() ||
		a.Alloc != "make-slice" || a.Type != "[]int" || a.Elements != 3 || a.Bytes != 24 || a.HeapBytes != 24 || a.BeginSeq != 2 || a.In != 1 {
		t.Errorf("the allocation is %+v, the executions %d", a, len(tr.Execs))
	}
	for _, bad := range []string{
		`{"k":"alloc","id":2,"seq":2,"fn":"main.main","in":1,"g":1,"type":"[]int","elems":3,"bytes":24,"heap":24}`,
		`{"k":"alloc","id":2,"seq":2,"fn":"main.main","g":1,"alloc":"new","type":"main.T","elems":1,"bytes":24,"heap":24}`,
		`{"k":"alloc","id":2,"seq":2,"fn":"main.main","in":1,"g":1,"alloc":"new","type":"main.T","elems":1,"bytes":24,"heap":16}`,
		"{\"k\":\"alloc\",\"id\":2,\"seq\":2,\"fn\":\"main.main\",\"in\":1,\"g\":1,\"alloc\":\"new\",\"type\":\"main.T\",\"elems\":1,\"bytes\":8,\"heap\":8}\n{\"k\":\"end\",\"id\":2,\"seq\":3}",
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","g":1,"alloc":"new"}`,
	} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("Read accepts\n%s", bad)
		}
	}
}
