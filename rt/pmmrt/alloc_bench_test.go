package pmmrt

import (
	"os"
	"runtime"
	"runtime/trace"
	"sort"
	"strings"
	"testing"
	"time"
)

// allocNode is 16 bytes with a pointer: the tiny allocator does not take it.
type allocNode struct {
	next *allocNode
	v    int64
}

var (
	allocSinkNode  *allocNode
	allocSinkBytes []byte
)

// allocWork is an allocation-heavy operation: two heap allocations (a
// 16-byte node, a 100-byte slice) and little else, the worst case for
// recording every allocation.
func allocWork(i int) {
	allocSinkNode = &allocNode{v: int64(i)}
	allocSinkBytes = make([]byte, 100)
}

// allocWorkRecorded is allocWork with each allocation recorded as an
// allocation event would be: (the innermost execution, the site, the
// heap bytes), one record each.
func allocWorkRecorded(i int) {
	allocSinkNode = &allocNode{v: int64(i)}
	Emit3(benchTable, int64(CurrentExec()), 1, int64(HeapBytes(16, true)))
	allocSinkBytes = make([]byte, 100)
	Emit3(benchTable, int64(CurrentExec()), 2, int64(HeapBytes(100, false)))
}

// allocWorkPair is allocWork with each allocation recorded as
// generated code recorded it before implied ids: an id from NextID and
// one EmitExecPair of the allocation's tuple and its heap bytes.
func allocWorkPair(i int) {
	allocSinkNode = &allocNode{v: int64(i)}
	EmitExecPair(benchTable, benchTable+1, NextID(), 1, int64(HeapBytes(16, true)))
	allocSinkBytes = make([]byte, 100)
	EmitExecPair(benchTable, benchTable+1, NextID(), 2, int64(HeapBytes(100, false)))
}

// allocWorkPoint is allocWork with each allocation recorded as
// generated code records one whose id its record implies (plan's
// ImpliedID): one EmitPoint, no NextID.
func allocWorkPoint(i int) {
	allocSinkNode = &allocNode{v: int64(i)}
	EmitPoint(benchTable, benchTable+1, 1, int64(HeapBytes(16, true)))
	allocSinkBytes = make([]byte, 100)
	EmitPoint(benchTable, benchTable+1, 2, int64(HeapBytes(100, false)))
}

// alternate runs works in turn on chunks of up to chunk operations
// until each ran n, and returns the ns/op of each one's chunks.
func alternate(n, chunk int, works ...func(int)) [][]float64 {
	out := make([][]float64, len(works))
	for done := 0; done < n; done += chunk {
		k := min(chunk, n-done)
		for w, work := range works {
			t0 := time.Now()
			for i := 0; i < k; i++ {
				work(i)
			}
			out[w] = append(out[w], float64(time.Since(t0).Nanoseconds())/float64(k))
		}
	}
	return out
}

func medianOf(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

// BenchmarkAllocRatios runs allocWork plain and recorded in alternating
// chunks, inside an execution (ExecEnter, so that CurrentExec finds the
// goroutine's entry), and reports the median ns/op of each and their
// ratio; then the plain work again under runtime.MemProfileRate = 1
// (the heap profile's exact mode, set once for its own phase: a change of
// the rate takes effect only at the next sample) and its ratio to the
// plain median. docs/PERFORMANCE.md ("Allocations") has the figures.
func BenchmarkAllocRatios(b *testing.B) {
	useTestLog(b, true, firstSegmentSize, lastSegmentSize)
	_, exec := ExecEnter(NextID())
	defer exec.Leave()
	const chunk = 2000
	b.ResetTimer()
	times := alternate(b.N, chunk, allocWork, allocWorkRecorded)
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	alternate(1<<14, 1<<14, allocWork) // past the sample the old rate had drawn
	profiled := alternate(b.N, chunk, allocWork)[0]
	runtime.MemProfileRate = old
	p, r, m := medianOf(times[0]), medianOf(times[1]), medianOf(profiled)
	b.ReportMetric(p, "plain-ns/op")
	b.ReportMetric(r, "recorded-ns/op")
	b.ReportMetric(m, "memprofile1-ns/op")
	b.ReportMetric(r/p, "recorded-x")
	b.ReportMetric(m/p, "memprofile1-x")
}

// BenchmarkAllocPoint compares, in alternating chunks of one process,
// the two ways generated code records an allocation and its heap bytes:
// with an id from NextID in 24 bytes (allocWorkPair) and with the id
// its record implies in 16 (allocWorkPoint), against allocWork plain.
// It reports the median ns/op of each and their ratios to plain.
//
//	go test ./rt/pmmrt -run XXX -bench AllocPoint -benchtime=400000x -count=5
func BenchmarkAllocPoint(b *testing.B) {
	useTestLog(b, true, firstSegmentSize, lastSegmentSize)
	b.ResetTimer()
	times := alternate(b.N, 2000, allocWork, allocWorkPair, allocWorkPoint)
	p, pair, point := medianOf(times[0]), medianOf(times[1]), medianOf(times[2])
	b.ReportMetric(p, "plain-ns/op")
	b.ReportMetric(pair, "nextid-ns/op")
	b.ReportMetric(point, "implied-ns/op")
	b.ReportMetric(pair/p, "nextid-x")
	b.ReportMetric(point/p, "implied-x")
}

// BenchmarkAllocTrace measures the execution trace as a source of the
// allocations outside the module (issue 13): allocWork plain, and with
// runtime/trace running (to a file) under GODEBUG=traceallocfree=1, the
// setting that adds an event per heap object allocated and freed; it
// reports the median ns/op of each (chunks alternate), their ratio, and
// the trace's bytes per allocation. Without traceallocfree=1 in the
// environment the trace has no allocation events: it says so, and
// reports the trace's cost without them. docs/PERFORMANCE.md has the
// figures:
//
//	GODEBUG=traceallocfree=1 go test ./rt/pmmrt -run XXX -bench AllocTrace -benchtime=200000x -count=5
func BenchmarkAllocTrace(b *testing.B) {
	if !strings.Contains(os.Getenv("GODEBUG"), "traceallocfree=1") {
		b.Log("GODEBUG has no traceallocfree=1: the trace records no allocation")
	}
	const chunk = 2000
	f, err := os.CreateTemp(b.TempDir(), "trace")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var plain, traced []float64
	timeChunk := func(k int) float64 {
		t0 := time.Now()
		for i := 0; i < k; i++ {
			allocWork(i)
		}
		return float64(time.Since(t0).Nanoseconds()) / float64(k)
	}
	b.ResetTimer()
	allocs := 0
	for done := 0; done < b.N; done += chunk {
		k := min(chunk, b.N-done)
		plain = append(plain, timeChunk(k))
		if err := trace.Start(f); err != nil {
			b.Fatal(err)
		}
		traced = append(traced, timeChunk(k))
		trace.Stop()
		allocs += 2 * k
	}
	b.StopTimer()
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	p, tr := medianOf(plain), medianOf(traced)
	b.ReportMetric(p, "plain-ns/op")
	b.ReportMetric(tr, "traced-ns/op")
	b.ReportMetric(tr/p, "traced-x")
	b.ReportMetric(float64(st.Size())/float64(allocs), "trace-B/alloc")
}
