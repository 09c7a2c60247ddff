// Package pmmrt is the runtime that pmm injects into an instrumented
// program: the generated code calls it to record tuples.
//
// The process writes its own tuples into memory-mapped log files under
// $PMM_DIR/logs (or the directory pmm compiled in), one set of files per
// process. A record is committed by a single store once written, so
// it lives in the kernel's page cache from that moment: a panic, os.Exit,
// log.Fatal, a signal or even SIGKILL loses nothing that was committed, and
// no exit hook is needed. pmm loads the logs into SQLite after the run
// (package pmm.dev/pmm/rt/load). See docs/RUNTIME.md.
//
// The recording path takes no lock, makes no system call and allocates
// nothing: a record reserves its space with one atomic add. Opening and
// rotating log segments is the rare slow path.
//
// The package compiles under a go.mod `go 1.12` directive (it is placed in
// the user's module) and imports only the standard library. It prints one
// thing, once, on stderr: that recording stopped because the log could
// not be written (a full disk); the program goes on unrecorded.
package pmmrt

import (
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
	_ "unsafe" // for go:linkname

	"pmm.dev/pmm/rt/logfmt"
)

// Recording states, held in state.
const (
	stateOff    = 0 // Monitor-End, or PMM_RECORD=off at start
	stateOn     = 1 // recording
	stateBroken = 2 // the log could not be written: recording stays off
)

var (
	state     int32  // one of the state constants; read with one atomic load
	lastID    uint64 // the last event id handed out by NextID
	startNano = nanotime()
)

func init() { state = initialState(os.Getenv("PMM_RECORD")) }

// initialState is the recording state given $PMM_RECORD.
func initialState(env string) int32 {
	if env == "off" {
		return stateOff
	}
	return stateOn
}

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// procPin keeps the calling goroutine on its P (it cannot be preempted)
// until procUnpin, and returns the P's id: sync.Pool's own pin, which
// the runtime keeps linkable (Cell).
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// Enabled reports whether tuples are being recorded (the Monitor-Begin/End
// gate). Generated code tests it before recording anything.
func Enabled() bool { return atomic.LoadInt32(&state) == stateOn }

// Begin starts recording (Monitor-Begin). The program may call it, for
// instance when it was started with PMM_RECORD=off.
func Begin() { atomic.CompareAndSwapInt32(&state, stateOff, stateOn) }

// End stops recording (Monitor-End). Tuples already recorded are kept.
func End() { atomic.CompareAndSwapInt32(&state, stateOn, stateOff) }

// NextID returns a new event id, unique within this process and never 0.
// The loader makes ids from different processes of a run distinct.
func NextID() uint64 { return atomic.AddUint64(&lastID, 1) }

// Now returns the nanoseconds elapsed since the process started, from the
// monotonic clock.
func Now() int64 { return nanotime() - startNano }

// GoID returns the id of the calling goroutine: the runtime's own,
// never reused within the process. It costs a few nanoseconds (read from
// the goroutine's g; see docs/RUNTIME.md, "Goroutine identity");
// generated code calls it once per site execution.
func GoID() int64 { return goid() }

// Returning reports, called by a generated exit function that a
// function deferred, whether that function is returning normally: not
// unwound by a panic (a deferred call of its own that recovered lets it
// return) nor by runtime.Goexit. The runtime then calls deferred
// functions from gopanic or Goexit. It costs a stack walk: generated code
// calls it only when no return statement ran.
func Returning() bool {
	var pcs [8]uintptr
	n := runtime.Callers(2, pcs[:]) // from the exit function up
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		switch {
		case strings.Contains(f.Function, ".pmm__") || strings.Contains(f.Function, ".deferwrap"):
			// The exit function, or the wrapper of the deferred call.
		case f.Function == "runtime.gopanic" || f.Function == "runtime.Goexit":
			return false
		default:
			return true // the function itself, or the runtime's deferreturn
		}
		if !more {
			return true
		}
	}
}

// Emit appends the tuple built in r to the log as a row of the table with
// the given id, and resets r so that it can be reused.
func Emit(table uint16, r *Rec) {
	r.Finish()
	emitBody(table, r.Fields())
	r.Reset()
}

// emitBody appends a record of tagged fields.
func emitBody(table uint16, body []byte) {
	size := logfmt.RoundRecord(logfmt.RecHeaderSize + len(body))
	seg, off := std.reserve(size)
	if seg != nil {
		rec := seg.data[off : off+size]
		seg.begin(rec, size)
		logfmt.PutHeader(rec, table, logfmt.FormatFields)
		copy(rec[logfmt.RecHeaderSize:], body)
		seg.commit(rec, size)
	}
}

// Emit2 appends a tuple of two int64 fields: the commonest tuple (an event
// id and a time, a pair of ids), in a fixed layout.
func Emit2(table uint16, a, b int64) { emitInts(&std, table, logfmt.FormatInt2, 0, a, b, 0) }

// Emit3 appends a tuple of three int64 fields in a fixed layout.
func Emit3(table uint16, a, b, c int64) { emitInts(&std, table, logfmt.FormatInt3, 0, a, b, c) }

// EmitExecPair appends the tuple (id, site) of the execution table exec
// and the tuple (id, v) of table, in one record of 24 bytes where Emit2
// would write two (the loader reads both tuples): an execution with its
// duration (a timed event), its goroutine or its end, an allocation with
// its bytes or elements. Values that do not
// fit the packed layout (an id from 2^40, a site from 2^24, table not
// among the 255 tables after exec) take two Emit2 records instead.
func EmitExecPair(exec, table uint16, id uint64, site int, v int64) {
	second := int(table) - int(exec)
	if id >= 1<<logfmt.PackedIDBits || uint64(site) >= 1<<logfmt.PackedSiteBits || second <= 0 || second > 255 {
		Emit2(exec, int64(id), int64(site))
		Emit2(table, int64(id), v)
		return
	}
	emitInts(&std, exec, logfmt.FormatExecPair, byte(second), int64(id|uint64(site)<<logfmt.PackedIDBits), v, 0)
}

// EmitPoint appends what EmitExecPair does, the tuple (id, site) of
// exec and (id, v) of table, for an event whose id nothing needs but
// these two tuples (an allocation whose site plan marks ImpliedID): in
// one record of 16 bytes without the id, which the loader implies from
// the record's position in the log (docs/RUNTIME.md, "Ids"), and
// without the atomic add of NextID. It writes the record itself, not
// through emitInts: a call fewer on the path of every allocation it
// records (docs/PERFORMANCE.md). Values that do not fit
// the packed layout (a site from 2^24, v outside [0, 2^40), table not
// among the 255 tables after exec) take an id from NextID and
// EmitExecPair.
func EmitPoint(exec, table uint16, site int, v int64) {
	second := int(table) - int(exec)
	if uint64(site) >= 1<<logfmt.PackedSiteBits || uint64(v) >= 1<<logfmt.PackedIDBits || second <= 0 || second > 255 {
		EmitExecPair(exec, table, NextID(), site, v)
		return
	}
	const size = logfmt.RecHeaderSize + 8
	if seg, off := std.reserve(size); seg != nil {
		rec := seg.data[off : off+size]
		seg.begin(rec, size)
		logfmt.PutHeader(rec, exec, logfmt.FormatPoint)
		rec[logfmt.RecSecondTable] = byte(second)
		logfmt.PutInt64(rec[logfmt.RecHeaderSize:], int64(uint64(v)|uint64(site)<<logfmt.PackedIDBits))
		seg.commit(rec, size)
	}
}

// emitInts appends to l a record of format logfmt.FormatInt2 (a, b),
// logfmt.FormatInt3 (a, b, c) or logfmt.FormatExecPair (a, b; last is the
// header's last byte). l is std but for the calibration of the cost of a
// timed event (calibrateTimed).
func emitInts(l *logger, table uint16, format, last byte, a, b, c int64) {
	size := logfmt.RecHeaderSize + 16
	if format == logfmt.FormatInt3 {
		size += 8
	}
	seg, off := l.reserve(size)
	if seg == nil {
		return
	}
	rec := seg.data[off : off+size]
	seg.begin(rec, size)
	logfmt.PutHeader(rec, table, format)
	rec[logfmt.RecSecondTable] = last
	logfmt.PutInt64(rec[logfmt.RecHeaderSize:], a)
	logfmt.PutInt64(rec[logfmt.RecHeaderSize+8:], b)
	if format == logfmt.FormatInt3 {
		logfmt.PutInt64(rec[logfmt.RecHeaderSize+16:], c)
	}
	seg.commit(rec, size)
}

// Flush writes out what is buffered. With memory-mapped logs every
// committed record is already in the kernel's page cache, so there is
// nothing to do; on systems without mmap support it writes the buffer,
// the counters and the aggregate cells.
func Flush() {
	std.flush()
	flushCounters()
	flushAggs()
}

// Exit is what a rewritten os.Exit calls: it flushes, then exits.
func Exit(code int) {
	Flush()
	os.Exit(code)
}

// MainReturned ends the run when main returns normally, as the
// reference semantics does: the instrumented main defers it first, so
// that it runs after main's own records. It waits for the records being
// written to be committed and keeps every later writer waiting for a
// segment until the process exits, so that a normal exit tears no
// record (a goroutine still writing when the process exited left one
// reserved and not committed, and every answer of the run incomplete).
// What goroutines still running would record afterwards is dropped; an
// execution whose end is dropped stays open in the counters file, and
// the answers that wait for its end say so. Where a question asks, it
// writes the heap profile of allocations outside the module, after a
// collection (outside.go).
func MainReturned() {
	finishLive()
	finishAllocs()
	std.finishRun(time.Second)
	flushCounters()
	flushAggs()
}

// Close finishes the current log files: it waits for the records being
// written to be committed, unmaps and closes the files. Recording may go
// on: a later record opens new files (reading PMM_DIR again), and a later
// addition to an aggregate makes a new cell in a new chunk file. pmm's
// own tests use it; an instrumented program need not call it.
func Close() {
	std.close()
	flushCounters()
	closeAggs()
}
