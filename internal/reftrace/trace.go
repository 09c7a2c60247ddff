// Package reftrace is the complete trace of a run that the reference
// semantics of pmm's questions is defined over: every execution of every
// function, with its caller, goroutine, spawner, begin and end order,
// parameters, results and whether it panicked; and every execution of
// every region (a labeled statement of a function's body), of every
// iteration of a loop region, with its index, and of every blocking
// operation (a channel send or receive, a select without default, a
// Lock), with its kind, operand and, for a select, the case that fired,
// and of every goroutine, from its go statement to the end of the
// function it starts, with its spawner: each with its function, goroutine
// and begin and end order; and every heap allocation at a site of the
// program, a point with its function, the execution it is made in, its
// kind, type, elements, requested bytes and heap bytes. It is written by a tracer
// that is independent of pmm's instrumentation (the traced twin of a
// generated program, internal/progen), and read by the reference
// evaluator (internal/refeval).
//
// The file format is JSON lines, one Record per line, in any order: a
// "begin" record when an execution begins and an "end" record when it
// ends. An execution with a begin and no end was still running when the
// process exited (a goroutine whose deferred wg.Done let main return
// first): it exists, with what is known at its begin, and has no end
// attributes. A region's execution is recorded the same way, its begin
// record holding its label, and so are an iteration's (its begin record
// holds its loop's label, iter and its index), a blocking operation's
// (op and operand at its begin, a select's case at its end) and a
// goroutine's (go, its spawner and the new goroutine at its begin):
// executions of functions, regions, iterations, operations and goroutines
// share one space of ids and one order. An allocation is one "alloc"
// record, with an id and a seq of the same spaces: a point, with no end.
package reftrace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
)

// Record is one line of a trace file.
type Record struct {
	Kind string `json:"k"` // "begin", "end", "blocked" (a blocking operation waits), "alloc" or "main"
	ID   int64  `json:"id"`
	// Seq orders every begin and end of the run: a global counter taken
	// at the point itself (an atomic add), so that a < b means the point
	// of a happened before the point of b.
	Seq int64 `json:"seq"`

	// Begin records only.
	Func string `json:"fn,omitempty"` // as pprof and runtime.FuncForPC name it: "main.f3", "main.(*T).M", "main.f.func1", "main.Map[...]"
	// Caller is the execution that called this one directly, 0 for the
	// first execution of a goroutine (and for main.main).
	Caller int64 `json:"caller,omitempty"`
	// Spawner is, for the first execution of a goroutine, the execution
	// that ran the go statement; 0 otherwise.
	Spawner   int64 `json:"spawner,omitempty"`
	Goroutine int64 `json:"g,omitempty"` // 1 for main's goroutine, then one number per goroutine started
	// Params are the arguments, receiver excluded, as JSON values:
	// integers, strings, booleans (floats are not generated).
	Params []any `json:"params,omitempty"`
	// Label, for the begin of a region's execution, is the region's
	// label; Func is then the function whose body holds the region, and
	// In the execution of that function the region runs in (Caller and
	// Spawner are 0).
	Label string `json:"label,omitempty"`
	In    int64  `json:"in,omitempty"`
	// Iter, for the begin of an iteration of a loop (Func and Label the
	// loop region's, In as for a region), says so; Index is the
	// iteration's number in its loop's execution, from 0.
	Iter  bool  `json:"iter,omitempty"`
	Index int64 `json:"index,omitempty"`
	// Op, for the begin of a blocking operation (Func and In as for a
	// region, no Label), is its kind (send, recv, select, lock, rlock,
	// wait), and Operand the operand as written ("" for a select).
	Op      string `json:"op,omitempty"`
	Operand string `json:"operand,omitempty"`
	// Go, for the begin of a goroutine (Func the function its go
	// statement starts, Spawner the execution that ran the statement,
	// Goroutine the new goroutine), says so: its Seq is taken at the go
	// statement, before the function value and arguments are evaluated;
	// its end when that function returned, panicked or called
	// runtime.Goexit.
	Go bool `json:"go,omitempty"`

	// Alloc records only (with Func, In and Goroutine as a blocking
	// operation's begin): the allocation's kind (new, composite,
	// make-slice, append, concat, ...), its Go type as pmm's static.db
	// writes it, the elements it made room for, the bytes it requested
	// and the bytes the heap took for it (its size class).
	Alloc     string `json:"alloc,omitempty"`
	Type      string `json:"type,omitempty"`
	Elements  int64  `json:"elems,omitempty"`
	Bytes     int64  `json:"bytes,omitempty"`
	HeapBytes int64  `json:"heap,omitempty"`

	// Walks, on the begin or end record of a function's execution or an
	// allocation's record, are the heap walks taken at that point
	// (reachable-objects, reachable-bytes): one per Go expression and
	// membership type that compiles in the function (there).
	Walks []Walk `json:"walks,omitempty"`

	// Path, on the one "main" record, is the import path of the
	// program's package main (whose functions are named main.F).
	Path string `json:"path,omitempty"`

	// End records only.
	Results  []any `json:"results,omitempty"` // empty when the execution panicked
	Panicked bool  `json:"panicked,omitempty"`
	// Case, at the end of a select, is the index of the case by which it
	// proceeded, from 0 in source order.
	Case *int64 `json:"case,omitempty"`
	// Blocked, at the end of a blocking operation that the twin tried
	// without waiting first, says whether that attempt failed, so that
	// the operation waited (operation-blocked); absent where it was not
	// tried (a select, the receives of a range, a wait).
	Blocked *bool `json:"blocked,omitempty"`
}

// Walk is a heap walk at a point: from the value of the Go expression
// Expr, by membership type Type ("*" for every object), the objects and
// bytes reachable (docs/MEMORY.md, "Heap structures").
type Walk struct {
	Expr    string `json:"expr"`
	Type    string `json:"type"`
	Objects int64  `json:"n"`
	Bytes   int64  `json:"b"`
}

// Execution is one execution of a function, or of a region (Label set),
// assembled from its begin and end records.
type Execution struct {
	ID, Caller, Spawner, Goroutine int64
	Func                           string
	Params                         []any
	// Label is the label of a region's execution, "" for a function's;
	// In is then the function's execution the region runs in.
	Label string
	In    int64
	// Iteration marks an iteration of the loop region Func/Label, Index
	// its number in the loop's execution (from 0).
	Iteration bool
	Index     int64
	// Op is the kind of a blocking operation, "" for anything else;
	// Operand its operand, and Case, once a select ended, the index of
	// the case by which it proceeded (-1 for every other kind).
	Op      string
	Operand string
	Case    int64
	// Blocked says whether a blocking operation could not proceed when
	// it began, known from its "blocked" record (written before it
	// waits, so an operation that never proceeded has it) or its end;
	// Tried says the trace knows it.
	Blocked, Tried bool
	// Go marks a goroutine, from its go statement to the end of the
	// function it starts (Func); Spawner is then the execution that ran
	// the go statement, Goroutine the new goroutine.
	Go bool
	// Alloc is the kind of an allocation, "" for anything else: a point
	// (BeginSeq and EndSeq its seq, Ended) in the execution In, with its
	// Type, Elements, Bytes and HeapBytes.
	Alloc                      string
	Type                       string
	Elements, Bytes, HeapBytes int64
	BeginSeq                   int64
	// Ended is false when the process exited before the execution ended;
	// EndSeq, Results and Panicked are then meaningless.
	Ended    bool
	EndSeq   int64
	Results  []any
	Panicked bool
	// Walks are the heap walks at the begin ([0]) and the end ([1])
	// point of a function's execution, at an allocation's point ([0]).
	Walks [2][]Walk
}

// IsRegion reports whether x is an execution of a region (not an
// iteration of one, nor a function's execution or a blocking operation).
func (x *Execution) IsRegion() bool { return x.Label != "" && !x.Iteration }

// IsIteration reports whether x is an iteration of a loop region.
func (x *Execution) IsIteration() bool { return x.Iteration }

// IsBlocking reports whether x is a blocking operation.
func (x *Execution) IsBlocking() bool { return x.Op != "" }

// IsGoroutine reports whether x is a goroutine.
func (x *Execution) IsGoroutine() bool { return x.Go }

// IsAllocation reports whether x is an allocation (a point, in Allocs).
func (x *Execution) IsAllocation() bool { return x.Alloc != "" }

// IsFunc reports whether x is an execution of a function: not a region's,
// an iteration, a blocking operation, a goroutine or an allocation.
func (x *Execution) IsFunc() bool { return x.Label == "" && x.Op == "" && !x.Go && x.Alloc == "" }

// Trace is a whole run: its executions in order of their begin, and its
// allocations in order.
type Trace struct {
	Execs  []*Execution
	Allocs []*Execution
	ByID   map[int64]*Execution // executions and allocations
	// MainPath is the import path of package main ("example.com/m"),
	// from the trace's "main" record; "" when it has none.
	MainPath string
}

// Read reads a trace file in the JSON lines format.
func Read(r io.Reader) (*Trace, error) {
	t := &Trace{ByID: map[int64]*Execution{}}
	dec := json.NewDecoder(bufio.NewReader(r))
	dec.UseNumber()
	var ends, waits []Record
	for line := 1; ; line++ {
		var rec Record
		if err := dec.Decode(&rec); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("trace record %d: %v", line, err)
		}
		switch rec.Kind {
		case "begin":
			if t.ByID[rec.ID] != nil {
				return nil, fmt.Errorf("trace record %d: execution %d begins twice", line, rec.ID)
			}
			e := &Execution{ID: rec.ID, Caller: rec.Caller, Spawner: rec.Spawner, Goroutine: rec.Goroutine,
				Func: rec.Func, Params: normalize(rec.Params), Label: rec.Label, In: rec.In, BeginSeq: rec.Seq,
				Iteration: rec.Iter, Index: rec.Index, Op: rec.Op, Operand: rec.Operand, Case: -1, Go: rec.Go}
			e.Walks[0] = rec.Walks
			if !e.IsFunc() && (e.Caller != 0 || e.Spawner != 0 && !e.Go || e.Params != nil) {
				return nil, fmt.Errorf("trace record %d: region execution, iteration, blocking operation or goroutine %d has a caller, a spawner (a goroutine has one) or parameters", line, rec.ID)
			}
			if e.Go && (e.Spawner == 0 || e.Label != "" || e.Op != "" || e.In != 0) {
				return nil, fmt.Errorf("trace record %d: goroutine %d without a spawner, or with a label, an operation or an execution it runs in", line, rec.ID)
			}
			if e.Iteration && (e.Label == "" || e.Index < 0) || !e.Iteration && e.Index != 0 {
				return nil, fmt.Errorf("trace record %d: iteration %d without a label or with a negative index, or an index outside an iteration", line, rec.ID)
			}
			if rec.Alloc != "" || rec.Type != "" || rec.Elements != 0 || rec.Bytes != 0 || rec.HeapBytes != 0 {
				return nil, fmt.Errorf("trace record %d: execution %d begins with what an allocation has", line, rec.ID)
			}
			if e.Op != "" && (e.Label != "" || e.Iteration) || e.Op == "" && e.Operand != "" {
				return nil, fmt.Errorf("trace record %d: blocking operation %d with a label, or an operand without a kind", line, rec.ID)
			}
			if !e.IsFunc() && e.Walks[0] != nil {
				return nil, fmt.Errorf("trace record %d: heap walks at the begin of %d, which is not a function's execution", line, rec.ID)
			}
			t.ByID[rec.ID] = e
			t.Execs = append(t.Execs, e)
		case "alloc":
			if t.ByID[rec.ID] != nil {
				return nil, fmt.Errorf("trace record %d: id %d of an allocation is taken", line, rec.ID)
			}
			if rec.Alloc == "" || rec.Type == "" || rec.In == 0 || rec.Func == "" || rec.Label != "" || rec.Op != "" || rec.Go ||
				rec.Caller != 0 || rec.Spawner != 0 || rec.Params != nil || rec.Elements < 0 || rec.Elements == 0 && rec.Alloc != "make-chan" || rec.Bytes <= 0 || rec.HeapBytes < rec.Bytes {
				// (A channel's header, and an unbuffered channel, hold no element.)
				return nil, fmt.Errorf("trace record %d: allocation %d without a kind, a type, a function or an execution it is made in, with what an execution has, or without elements and bytes (heap bytes at least those requested)", line, rec.ID)
			}
			a := &Execution{ID: rec.ID, Goroutine: rec.Goroutine, Func: rec.Func, In: rec.In, Case: -1,
				Alloc: rec.Alloc, Type: rec.Type, Elements: rec.Elements, Bytes: rec.Bytes, HeapBytes: rec.HeapBytes,
				BeginSeq: rec.Seq, EndSeq: rec.Seq, Ended: true}
			a.Walks[0] = rec.Walks
			t.ByID[rec.ID] = a
			t.Allocs = append(t.Allocs, a)
		case "end":
			ends = append(ends, rec)
		case "blocked":
			waits = append(waits, rec)
		case "main":
			if rec.Path == "" || t.MainPath != "" {
				return nil, fmt.Errorf("trace record %d: a main record without a path, or a second one", line)
			}
			t.MainPath = rec.Path
		default:
			return nil, fmt.Errorf("trace record %d: kind %q is neither begin, end, blocked, alloc nor main", line, rec.Kind)
		}
	}
	for _, rec := range waits {
		e := t.ByID[rec.ID]
		if e == nil || !e.IsBlocking() {
			return nil, fmt.Errorf("trace: %d blocked and is not a blocking operation that began", rec.ID)
		}
		e.Blocked, e.Tried = true, true
	}
	for _, rec := range ends {
		e := t.ByID[rec.ID]
		if e != nil && e.IsAllocation() {
			return nil, fmt.Errorf("trace: end of allocation %d", rec.ID)
		}
		if e == nil {
			return nil, fmt.Errorf("trace: end of execution %d that never began", rec.ID)
		}
		if e.Ended {
			return nil, fmt.Errorf("trace: execution %d ends twice", rec.ID)
		}
		if !e.IsFunc() && (rec.Results != nil || rec.Panicked || rec.Walks != nil) {
			return nil, fmt.Errorf("trace: region execution, iteration, blocking operation or goroutine %d has results, panicked or heap walks", rec.ID)
		}
		e.Walks[1] = rec.Walks
		if rec.Case != nil {
			if e.Op != "select" || *rec.Case < 0 {
				return nil, fmt.Errorf("trace: execution %d has a case and is not a select, or a negative case", rec.ID)
			}
			e.Case = *rec.Case
		} else if e.Op == "select" {
			return nil, fmt.Errorf("trace: select %d ends without its case", rec.ID)
		}
		if rec.Blocked != nil {
			if e.Op == "" {
				return nil, fmt.Errorf("trace: execution %d says whether it blocked and is not a blocking operation", rec.ID)
			}
			if e.Tried && e.Blocked != *rec.Blocked {
				return nil, fmt.Errorf("trace: blocking operation %d ends saying it blocked %v, its blocked record says otherwise", rec.ID, *rec.Blocked)
			}
			e.Blocked, e.Tried = *rec.Blocked, true
		}
		e.Ended, e.EndSeq, e.Results, e.Panicked = true, rec.Seq, normalize(rec.Results), rec.Panicked
	}
	sort.Slice(t.Execs, func(i, j int) bool { return t.Execs[i].BeginSeq < t.Execs[j].BeginSeq })
	sort.Slice(t.Allocs, func(i, j int) bool { return t.Allocs[i].BeginSeq < t.Allocs[j].BeginSeq })
	return t, nil
}

// ReadFile reads the trace file at path.
func ReadFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// normalize turns the json.Numbers of decoded values into int64 (or
// float64 where the number is not an integer).
func normalize(vs []any) []any {
	for i, v := range vs {
		if n, ok := v.(json.Number); ok {
			if k, err := n.Int64(); err == nil {
				vs[i] = k
			} else if f, err := n.Float64(); err == nil {
				vs[i] = f
			}
		}
	}
	return vs
}
