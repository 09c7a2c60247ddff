package refeval

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/reftrace"
	"pmm.dev/pmm/spec"
)

// traceBuilder writes a trace by hand, in the file format, one point at a
// time: each begin and end takes the next sequence number, so the order
// of the calls is the order of the run.
type traceBuilder struct {
	recs []reftrace.Record
	seq  int64
	id   int64
}

// begin starts an execution of fn called by caller (0 for the first of a
// goroutine) on goroutine g, and returns its id.
func (b *traceBuilder) begin(fn string, caller, g int64, params ...any) int64 {
	return b.beginSpawned(fn, caller, 0, g, params...)
}

// beginSpawned starts the first execution of goroutine g, spawned by the
// execution spawner.
func (b *traceBuilder) beginSpawned(fn string, caller, spawner, g int64, params ...any) int64 {
	b.id++
	b.seq++
	b.recs = append(b.recs, reftrace.Record{Kind: "begin", ID: b.id, Seq: b.seq, Func: fn,
		Caller: caller, Spawner: spawner, Goroutine: g, Params: params})
	return b.id
}

// region begins an execution of the region labeled label of fn, in the
// execution in of fn on goroutine g, and returns its id.
func (b *traceBuilder) region(fn, label string, in, g int64) int64 {
	b.id++
	b.seq++
	b.recs = append(b.recs, reftrace.Record{Kind: "begin", ID: b.id, Seq: b.seq, Func: fn, Label: label, In: in, Goroutine: g})
	return b.id
}

// iteration begins the iteration index of the loop region labeled label
// of fn, in the execution in of fn on goroutine g, and returns its id.
func (b *traceBuilder) iteration(fn, label string, index, in, g int64) int64 {
	b.id++
	b.seq++
	b.recs = append(b.recs, reftrace.Record{Kind: "begin", ID: b.id, Seq: b.seq, Func: fn, Label: label, Iter: true,
		Index: index, In: in, Goroutine: g})
	return b.id
}

// op begins a blocking operation of kind op on operand in fn, in the
// execution in of fn on goroutine g, and returns its id.
func (b *traceBuilder) op(fn, op, operand string, in, g int64) int64 {
	b.id++
	b.seq++
	b.recs = append(b.recs, reftrace.Record{Kind: "begin", ID: b.id, Seq: b.seq, Func: fn, Op: op, Operand: operand,
		In: in, Goroutine: g})
	return b.id
}

// selected ends the select id by its case c.
func (b *traceBuilder) selected(id, c int64) {
	b.seq++
	b.recs = append(b.recs, reftrace.Record{Kind: "end", ID: id, Seq: b.seq, Case: &c})
}

// tried ends the blocking operation id, which the twin tried without
// waiting first: blocked says that attempt failed.
func (b *traceBuilder) tried(id int64, blocked bool) {
	b.seq++
	b.recs = append(b.recs, reftrace.Record{Kind: "end", ID: id, Seq: b.seq, Blocked: &blocked})
}

// end ends the execution id, returning results.
func (b *traceBuilder) end(id int64, results ...any) {
	b.seq++
	b.recs = append(b.recs, reftrace.Record{Kind: "end", ID: id, Seq: b.seq, Results: results})
}

// panics ends the execution id by a panic.
func (b *traceBuilder) panics(id int64) {
	b.seq++
	b.recs = append(b.recs, reftrace.Record{Kind: "end", ID: id, Seq: b.seq, Panicked: true})
}

// call is an execution that begins and ends with nothing in between.
func (b *traceBuilder) call(fn string, caller, g int64, params []any, results ...any) int64 {
	id := b.begin(fn, caller, g, params...)
	b.end(id, results...)
	return id
}

// trace writes the records as a trace file, in reverse order (a file
// may hold them in any order), and reads it back.
func (b *traceBuilder) trace(t testing.TB) *reftrace.Trace {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i := len(b.recs) - 1; i >= 0; i-- {
		if err := enc.Encode(b.recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := reftrace.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func compile(t testing.TB, src string) *spec.Program {
	t.Helper()
	prog, err := spec.Compile(spec.Source{Name: "q.pmm", Text: []byte(src)})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return prog
}

// answers evaluates every question of src over tr, failing on any error.
func answers(t *testing.T, src string, tr *reftrace.Trace) map[string]*Answer {
	t.Helper()
	as, err := Evaluate(compile(t, src), tr)
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	return as
}

// expect compares the canonical rows of question q with want.
func expect(t *testing.T, as map[string]*Answer, q string, want ...string) {
	t.Helper()
	a := as[q]
	if a == nil {
		t.Errorf("no answer to %s", q)
		return
	}
	got := a.Canonical()
	want = append([]string(nil), want...)
	sort.Strings(want)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%s (%s): got %q, want %q", q, strings.Join(a.Columns, " "), got, want)
	}
}

// goroutine begins, at a go statement of the execution spawner, a
// goroutine g that starts fn, and returns its id.
func (b *traceBuilder) goroutine(fn string, spawner, g int64) int64 {
	b.id++
	b.seq++
	b.recs = append(b.recs, reftrace.Record{Kind: "begin", ID: b.id, Seq: b.seq, Func: fn, Go: true, Spawner: spawner, Goroutine: g})
	return b.id
}

// alloc records an allocation of kind and typ in the execution in of fn,
// on goroutine g, of elems elements, bytes requested and heap bytes.
func (b *traceBuilder) alloc(fn, kind, typ string, in, g, elems, bytes, heap int64) int64 {
	b.id++
	b.seq++
	b.recs = append(b.recs, reftrace.Record{Kind: "alloc", ID: b.id, Seq: b.seq, Func: fn, In: in, Goroutine: g,
		Alloc: kind, Type: typ, Elements: elems, Bytes: bytes, HeapBytes: heap})
	return b.id
}
