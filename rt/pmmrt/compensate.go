package pmmrt

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"pmm.dev/pmm/rt/logfmt"
)

// Compensation of durations for the recording nested inside them (issue
// 10, class 7; docs/RUNTIME.md, "Durations with timed executions
// inside"). An execution whose recording reads the clock (a timed event)
// costs two clock reads, an id and a record, tens of nanoseconds, all of
// it inside the duration of every timed execution it runs in. The
// generated code of a site whose durations such executions may run
// inside (plan.NestedClocks) takes TimedBegin before its begin clock and
// subtracts Compensate after its end clock; the sites that may run
// inside count themselves with TimedEnded. The count is per goroutine
// (the context entry), so only the executions nested in this one, in
// its goroutine, are subtracted, each at the cost calibrateTimed
// measured once in this process.

// Timed is the count TimedBegin took at the begin of an execution whose
// duration is compensated, for its Compensate at the end.
type Timed struct {
	e  *ctxEntry
	n0 int64
}

// TimedBegin takes the number of timed executions that ended so far in
// the calling goroutine, for Compensate at the end of the execution that
// begins; the goroutine's entry is kept until then. The first call in
// the process measures the cost to subtract (about 0.2 ms), before the
// caller reads its begin clock.
func TimedBegin() Timed {
	timedCost()
	e := ownEntry(true)
	e.busy++
	return Timed{e: e, n0: e.timed}
}

// Compensate returns the nanoseconds to subtract from d, the duration of
// the execution that took t: the timed executions that ended since in
// the calling goroutine, at the calibrated cost each, and never more
// than d.
func (t *Timed) Compensate(d int64) int64 { return t.end(d, false) }

// CompensateEnded is Compensate, then TimedEnded, for an execution that
// may itself run inside another compensated one (a recursive function),
// with one look-up of the goroutine's entry.
func (t *Timed) CompensateEnded(d int64) int64 { return t.end(d, true) }

// end reads the count, counts the execution itself if ended, and only
// then lets the entry go: the id-keyed store may hand an entry no
// execution holds to another goroutine.
func (t *Timed) end(d int64, ended bool) int64 {
	n := t.e.timed - t.n0
	if ended {
		t.e.timed++
	}
	t.e.left()
	if n <= 0 || d <= 0 {
		return 0
	}
	if c := n * timedCost(); c < d {
		return c
	}
	return d
}

// TimedEnded counts a timed execution that ended in the calling
// goroutine, for the TimedBegin active around it. With none active (no
// entry) there is nothing to count for.
func TimedEnded() {
	if e := ownEntry(false); e != nil {
		e.timed++
	}
}

// timedCostNs is the calibrated cost of the recording of one nested timed
// execution, in nanoseconds; 0 until measured.
var (
	timedCostNs   int64
	timedCostOnce sync.Once
)

func timedCost() int64 {
	if c := atomic.LoadInt64(&timedCostNs); c != 0 {
		return c
	}
	timedCostOnce.Do(func() {
		c := calibrateTimed()
		if c < 1 {
			c = 1 // measured, even if nothing: do not measure again
		}
		atomic.StoreInt64(&timedCostNs, c)
	})
	return atomic.LoadInt64(&timedCostNs)
}

// TimedCost returns the calibrated cost of the recording of one nested
// timed execution, in nanoseconds, measuring it if no TimedBegin did.
func TimedCost() int64 { return timedCost() }

// Calibration: batches of calls of timedProbe, which does what the
// generated code of a timed site does around the execution (its state,
// the pre-condition, an id, two clock reads, a deferred exit, a record of
// 24 bytes and TimedEnded), against batches of calls of plainProbe, the
// same call without it. Each cost is the least of its batches: a batch
// that was preempted or faulted measures the machine, not the code. The
// probe writes its records into a segment of its own in memory, never
// into the log; a real site's record goes to fresh pages of the log, so
// for an execution that records the figure is a lower bound (one that its
// end tests drop writes no record, and a few ns more than its cost are
// taken out: docs/RUNTIME.md).
const (
	probeBatch   = 256
	probeBatches = 8
	probeRecord  = logfmt.RecHeaderSize + 16
)

type probeState struct {
	on     bool
	id     uint64
	t0, t1 int64
}

var probeIDs uint64

func calibrateTimed() int64 {
	size := uint64(probeBatch * probeRecord)
	seg := &segment{size: size, data: make([]byte, size), mapped: true}
	l := &logger{cur: unsafe.Pointer(seg)}
	best, plain := int64(1)<<62, int64(1)<<62
	sink := 0
	for b := 0; b < probeBatches; b++ {
		atomic.StoreUint64(&seg.reserved, 0) // a batch fits: reserve never rotates
		t0 := nanotime()
		for i := 0; i < probeBatch; i++ {
			sink += timedProbe(l, i)
		}
		t1 := nanotime()
		for i := 0; i < probeBatch; i++ {
			sink += plainProbe(i)
		}
		t2 := nanotime()
		if c := (t1 - t0) / probeBatch; c < best {
			best = c
		}
		if c := (t2 - t1) / probeBatch; c < plain {
			plain = c
		}
	}
	probeSink = sink
	return best - plain
}

var probeSink int

//go:noinline
func plainProbe(x int) int { return x + 1 }

//go:noinline
func timedProbe(l *logger, x int) int {
	var s probeState
	if probeEnter(&s) {
		defer probeExit(&s, l)
	}
	return x + 1
}

func probeEnter(s *probeState) bool {
	Enabled() // what every site tests first; the probe runs either way
	s.on = true
	s.id = atomic.AddUint64(&probeIDs, 1)
	s.t0 = Now()
	return true
}

func probeExit(s *probeState, l *logger) {
	if !s.on {
		return
	}
	s.t1 = Now()
	TimedEnded()
	emitInts(l, 1, logfmt.FormatExecPair, 1, int64(s.id), s.t1-s.t0, 0)
}
