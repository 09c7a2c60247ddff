package pmmrt

import (
	"sync"
	"testing"
	"time"
)

const benchTable = 1

func BenchmarkEmit2(b *testing.B) {
	useTestLog(b, true, firstSegmentSize, lastSegmentSize)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Emit2(benchTable, int64(i), 42)
	}
}

func BenchmarkEmitRec(b *testing.B) {
	useTestLog(b, true, firstSegmentSize, lastSegmentSize)
	b.ReportAllocs()
	var r Rec
	for i := 0; i < b.N; i++ {
		r.Int(int64(i))
		r.Str("key-17")
		r.ListBegin()
		r.Int(3)
		r.Bool(true)
		r.ListEnd()
		Emit(benchTable, &r)
	}
}

func BenchmarkNow(b *testing.B) {
	var sum int64
	for i := 0; i < b.N; i++ {
		sum += Now()
	}
	sink = sum
}

func BenchmarkGoID(b *testing.B) {
	var sum int64
	for i := 0; i < b.N; i++ {
		sum += GoID()
	}
	sink = sum
}

// BenchmarkGateOff is a site whose gate is closed: one atomic load and a
// branch.
func BenchmarkGateOff(b *testing.B) {
	End()
	defer Begin()
	for i := 0; i < b.N; i++ {
		if Enabled() {
			Emit2(benchTable, int64(i), 0)
		}
	}
}

var sink int64

// recordDuration is what generated code does to record the duration of
// an execution: an id, two clock reads, one tuple.
func recordDuration(i int) {
	id := NextID()
	start := Now()
	work(i)
	Emit2(benchTable, int64(id), Now()-start)
}

// handWritten is the equivalent hand-written instrumentation: two clock
// reads and an append to a typed buffer, which keeps every duration (as
// pmm's log does).
func handWritten(i int, buf *[]time.Duration) {
	t := time.Now()
	work(i)
	*buf = append(*buf, time.Since(t))
}

// handWrittenReused is handWritten with a buffer that is emptied (not
// freed) when full: a lower bound, since it keeps no data.
func handWrittenReused(i int, buf *[]time.Duration) {
	t := time.Now()
	work(i)
	*buf = append(*buf, time.Since(t))
	if len(*buf) == cap(*buf) {
		*buf = (*buf)[:0]
	}
}

//go:noinline
func work(i int) { sink += int64(i) }

func BenchmarkRecDuration(b *testing.B) {
	useTestLog(b, true, firstSegmentSize, lastSegmentSize)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		recordDuration(i)
	}
}

func BenchmarkHandWritten(b *testing.B) {
	var buf []time.Duration
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		handWritten(i, &buf)
	}
}

// BenchmarkDurationVsHandWritten measures both in one run, alternating
// chunks of each, and reports pmm's cost as a multiple of the
// hand-written one.
func BenchmarkDurationVsHandWritten(b *testing.B) {
	useTestLog(b, true, firstSegmentSize, lastSegmentSize)
	var c comparison
	c.run(b.N)
	c.report(b)
}

// BenchmarkDurationVsHandWrittenParallel is the same comparison with a
// goroutine per core, all recording at once: pmm's writers share the
// reservation word and the id counter, the hand-written ones nothing.
func BenchmarkDurationVsHandWrittenParallel(b *testing.B) {
	useTestLog(b, true, firstSegmentSize, lastSegmentSize)
	var mu sync.Mutex
	var total comparison
	b.RunParallel(func(pb *testing.PB) {
		var c comparison
		for pb.Next() {
			c.run(chunk) // b.N counts chunks here
		}
		mu.Lock()
		total.pmm += c.pmm
		total.hand += c.hand
		total.reused += c.reused
		total.n += c.n
		mu.Unlock()
	})
	total.report(b)
}

const chunk = 1000

// comparison accumulates the times of pmm's and the hand-written
// instrumentation over the same number of operations.
type comparison struct {
	pmm, hand, reused time.Duration
	n                 int
	buf, ring         []time.Duration
}

func (c *comparison) run(n int) {
	for done := 0; done < n; done += chunk {
		k := chunk
		if n-done < k {
			k = n - done
		}
		t0 := time.Now()
		for i := 0; i < k; i++ {
			recordDuration(i)
		}
		t1 := time.Now()
		for i := 0; i < k; i++ {
			handWritten(i, &c.buf)
		}
		t2 := time.Now()
		if c.ring == nil {
			c.ring = make([]time.Duration, 0, 1<<16)
		}
		for i := 0; i < k; i++ {
			handWrittenReused(i, &c.ring)
		}
		c.pmm += t1.Sub(t0)
		c.hand += t2.Sub(t1)
		c.reused += time.Since(t2)
		c.n += k
	}
}

func (c *comparison) report(b *testing.B) {
	b.ReportMetric(float64(c.pmm.Nanoseconds())/float64(c.n), "pmm-ns/op")
	b.ReportMetric(float64(c.hand.Nanoseconds())/float64(c.n), "handwritten-ns/op")
	b.ReportMetric(float64(c.reused.Nanoseconds())/float64(c.n), "reused-ns/op")
	b.ReportMetric(float64(c.pmm)/float64(c.hand), "x-handwritten")
	b.ReportMetric(float64(c.pmm)/float64(c.reused), "x-reused")
}
