package pmmrt

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"pmm.dev/pmm/rt/logfmt"
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

// Benchmarks of the goroutine-local context: what a site pays to enter
// and leave a mark or an execution, and to ask whether one is active.
// Each candidate is the operation of a site inside a function that is
// not inlined, as a site is in the function it instruments; "call" is
// that call alone. The "-stack" candidates are the previous mechanism,
// kept as the fallback: the goroutine id parsed from runtime.Stack and
// the entries kept by id under a mutex.

// ctxFrame is the state of a site, kept in a local variable of the
// instrumented function: a direct callee's site reads its caller's
// through a pointer (the lexical case).
type ctxFrame struct {
	id uint64
	on bool
}

const (
	benchSlot       = 100 // a slot the tests do not use
	benchSlotUnused = 101 // a slot nothing enters
)

//go:noinline
func siteCall() bool { return false }

//go:noinline
func siteLexical(caller *ctxFrame) bool { return caller.on }

//go:noinline
func siteActive() bool { return Active(benchSlot) }

//go:noinline
func siteActiveUnused() bool { return Active(benchSlotUnused) }

//go:noinline
func siteGoID() int64 { return goid() }

//go:noinline
func siteStackGoID() int64 { return stackGoID() }

//go:noinline
func siteEnterLeave() {
	c := Enter(benchSlot)
	c.Leave()
}

// siteEnterLeaveGeneral is siteEnterLeave through the general paths
// that Enter and Leave take when their fast paths do not apply (and took
// always before them): finding the entry with ownEntry, then entering;
// leaving through leave.
//
//go:noinline
func siteEnterLeaveGeneral() {
	c := ownEntry(true).enter(benchSlot, false)
	c.leave()
}

//go:noinline
func siteEnterGLeave(g int64) {
	c := EnterG(benchSlot, g)
	c.Leave()
}

//go:noinline
func siteMarkAll() { MarkAll(benchSlot) }

//go:noinline
func siteExecEnterLeave(id uint64) uint64 {
	parent, c := ExecEnter(id)
	c.Leave()
	return parent
}

//go:noinline
func siteCurrentExec() uint64 { return CurrentExec() }

// atDepth runs f below depth more frames, as a site deep in a program's
// calls does: runtime.Stack formats every frame.
func atDepth(depth int, f func()) {
	if depth == 0 {
		f()
		return
	}
	atDepth(depth-1, f)
}

// ctxCandidate is one thing measured: setup prepares the context it is
// measured in and returns what undoes it; run runs it n times (its own
// loop, so that nothing but the site's call is added to it).
type ctxCandidate struct {
	name  string
	setup func() (undo func())
	run   func(n int, caller *ctxFrame, g int64) int
}

var ctxSink int

func noSetup() func() { return func() {} }

// byStack makes setup use the id-keyed store with runtime.Stack ids, as
// without calibrated offsets.
func byStack(setup func() func()) func() func() {
	return func() func() {
		calibrated()
		savedFast, savedOff := ctxFast, curgOff
		ctxFast, curgOff = false, 0
		undo := setup()
		return func() { undo(); ctxFast, curgOff = savedFast, savedOff }
	}
}

// enterHere makes the slot active in the calling goroutine, with a flag.
func enterHere() func() {
	c := EnterFlag(benchSlot)
	return func() { c.Leave() }
}

// enterElsewhere makes the slot active in another goroutine only.
func enterElsewhere() func() {
	entered, leave, left := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		c := Enter(benchSlot)
		close(entered)
		<-leave
		c.Leave()
		close(left)
	}()
	<-entered
	return func() { close(leave); <-left }
}

// execHere makes an execution current in the calling goroutine.
func execHere() func() {
	_, c := ExecEnter(7)
	return func() { c.Leave() }
}

func runActive(n int, _ *ctxFrame, _ int64) int {
	c := 0
	for i := 0; i < n; i++ {
		if siteActive() {
			c++
		}
	}
	return c
}

func runEnterLeave(n int, _ *ctxFrame, _ int64) int {
	for i := 0; i < n; i++ {
		siteEnterLeave()
	}
	return 0
}

func runEnterLeaveGeneral(n int, _ *ctxFrame, _ int64) int {
	for i := 0; i < n; i++ {
		siteEnterLeaveGeneral()
	}
	return 0
}

func runGoID(n int, _ *ctxFrame, _ int64) int {
	c := 0
	for i := 0; i < n; i++ {
		c += int(siteGoID())
	}
	return c
}

func runStackGoID(n int, _ *ctxFrame, _ int64) int {
	c := 0
	for i := 0; i < n; i++ {
		c += int(siteStackGoID())
	}
	return c
}

func runMarkAll(n int, _ *ctxFrame, _ int64) int {
	for i := 0; i < n; i++ {
		siteMarkAll()
	}
	return 0
}

func runExecEnterLeave(n int, _ *ctxFrame, _ int64) int {
	c := 0
	for i := 0; i < n; i++ {
		c += int(siteExecEnterLeave(uint64(i + 1)))
	}
	return c
}

var ctxCandidates = []ctxCandidate{
	{"call", noSetup, func(n int, _ *ctxFrame, _ int64) int {
		c := 0
		for i := 0; i < n; i++ {
			if siteCall() {
				c++
			}
		}
		return c
	}},
	{"lexical", noSetup, func(n int, p *ctxFrame, _ int64) int {
		c := 0
		for i := 0; i < n; i++ {
			if siteLexical(p) {
				c++
			}
		}
		return c
	}},
	{"active-unused", noSetup, func(n int, _ *ctxFrame, _ int64) int {
		c := 0
		for i := 0; i < n; i++ {
			if siteActiveUnused() {
				c++
			}
		}
		return c
	}},
	{"active-none", noSetup, runActive},
	{"active-here", enterHere, runActive},
	{"active-elsewhere", enterElsewhere, runActive},
	{"enter-leave", noSetup, runEnterLeave},
	{"enter-leave-nested", enterHere, runEnterLeave},
	{"enter-leave-general", noSetup, runEnterLeaveGeneral},
	{"enterG-leave", noSetup, func(n int, _ *ctxFrame, g int64) int {
		for i := 0; i < n; i++ {
			siteEnterGLeave(g)
		}
		return 0
	}},
	{"markall", enterHere, runMarkAll},
	{"exec-enter-leave", noSetup, runExecEnterLeave},
	{"exec-enter-leave-nested", execHere, runExecEnterLeave},
	{"current-exec", execHere, func(n int, _ *ctxFrame, _ int64) int {
		c := 0
		for i := 0; i < n; i++ {
			c += int(siteCurrentExec())
		}
		return c
	}},
	{"goid", noSetup, runGoID},
	{"goid-stack", noSetup, runStackGoID},
	{"active-here-stack", byStack(enterHere), runActive},
	{"enter-leave-stack", byStack(noSetup), runEnterLeave},
	{"markall-stack", byStack(enterHere), runMarkAll},
	{"exec-enter-leave-stack", byStack(noSetup), runExecEnterLeave},
}

// BenchmarkCtx measures each candidate on its own: ns/op and
// allocations. The -depth50 variants run 50 frames deeper, where
// runtime.Stack has more to format.
func BenchmarkCtx(b *testing.B) {
	for _, depth := range []int{0, 50} {
		for _, c := range ctxCandidates {
			name := c.name
			if depth > 0 {
				if c.name != "active-here" && c.name != "enter-leave" && c.name != "goid" && c.name != "goid-stack" {
					continue
				}
				name += "-depth50"
			}
			c := c
			b.Run(name, func(b *testing.B) {
				atDepth(depth, func() {
					undo := c.setup()
					defer undo()
					p, g := &ctxFrame{on: true}, GoID()
					b.ReportAllocs()
					b.ResetTimer()
					ctxSink += c.run(b.N, p, g)
				})
			})
		}
	}
}

// BenchmarkCtxRatios measures the candidates in one loop, alternating
// chunks of each, and reports each one's ns/op, the median over its
// chunks (a chunk that the machine stalled does not count more than
// another), and the ratios that matter: the old paths (runtime.Stack)
// against the new ones, and the site's tests against the lexical read.
func BenchmarkCtxRatios(b *testing.B) {
	cs := ctxCandidates
	chunks := make([][]float64, len(cs))
	p, g := &ctxFrame{on: true}, GoID()
	for done := 0; done < b.N; done += ctxChunk {
		k := ctxChunk
		if b.N-done < k {
			k = b.N - done
		}
		for j, c := range cs {
			undo := c.setup()
			t0 := time.Now()
			ctxSink += c.run(k, p, g)
			chunks[j] = append(chunks[j], float64(time.Since(t0).Nanoseconds())/float64(k))
			undo()
		}
	}
	ns := map[string]float64{}
	for j, c := range cs {
		sort.Float64s(chunks[j])
		ns[c.name] = chunks[j][len(chunks[j])/2]
		b.ReportMetric(ns[c.name], c.name+"-ns/op")
	}
	b.ReportMetric(ns["goid-stack"]/ns["goid"], "goid-stack-x")
	b.ReportMetric(ns["active-here-stack"]/ns["active-here"], "active-stack-x")
	b.ReportMetric(ns["enter-leave-stack"]/ns["enter-leave"], "enterleave-stack-x")
	b.ReportMetric(ns["markall-stack"]/ns["markall"], "markall-stack-x")
	b.ReportMetric(ns["exec-enter-leave-stack"]/ns["exec-enter-leave"], "exec-stack-x")
	b.ReportMetric(ns["active-none"]/ns["lexical"], "active-none-x-lexical")
	b.ReportMetric(ns["enter-leave"]-ns["call"], "enter-leave-net-ns/op")
	b.ReportMetric((ns["enter-leave"]-ns["call"])/(ns["enter-leave-general"]-ns["call"]), "enterleave-x-general")
	b.ReportMetric(ns["active-unused"]/ns["lexical"], "active-unused-x-lexical")
}

// ctxChunk is the number of operations a chunk of BenchmarkCtxRatios
// times at once: few enough that a chunk of the runtime.Stack candidates
// stays short.
const ctxChunk = 200

// BenchmarkCtxParallel measures the paths with a goroutine per core, all
// in the same slot: only the used flag and the table are shared.
func BenchmarkCtxParallel(b *testing.B) {
	b.Run("active-none", func(b *testing.B) {
		c := Enter(benchSlot) // the slot is in use
		c.Leave()
		b.RunParallel(func(pb *testing.PB) {
			c := 0
			for pb.Next() {
				if siteActive() {
					c++
				}
			}
			if c != 0 {
				b.Error("active")
			}
		})
	})
	b.Run("active-here", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			c := Enter(benchSlot)
			defer c.Leave()
			for pb.Next() {
				if !siteActive() {
					b.Error("not active")
				}
			}
		})
	})
	b.Run("enter-leave", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				siteEnterLeave()
			}
		})
	})
}

// A timed event as generated code records it (the definition site of a
// function asked for its durations): the site's state, an id, the clock
// read last at entry and first at exit, the execution and its duration
// in one record at the end (EmitExecPair), the exit deferred.
// timedBefore is the code generated before: the execution's tuple at the
// begin and the duration's at the end, an Emit2 each.
type timedState struct {
	on     bool
	id     uint64
	t0, t1 int64
}

func timedEnter(s *timedState, before bool) bool {
	if !Enabled() {
		return false
	}
	s.on = true
	s.id = NextID()
	if before {
		Emit2(benchTable, int64(s.id), 1) // the execution
	}
	s.t0 = Now()
	return true
}

func timedExit(s *timedState) {
	if !s.on {
		return
	}
	s.t1 = Now()
	EmitExecPair(benchTable, benchTable+1, s.id, 1, s.t1-s.t0)
}

func timedExitBefore(s *timedState) {
	if !s.on {
		return
	}
	s.t1 = Now()
	Emit2(benchTable+1, int64(s.id), s.t1-s.t0) // its duration
}

//go:noinline
func siteTimed(i int) {
	var s timedState
	if timedEnter(&s, false) {
		defer timedExit(&s)
	}
	work(i)
}

// timedExitAtomic is timedExit with the record committed by an atomic
// store, as before storeInOrder: emitExecPairAtomic is EmitExecPair's
// packed path with that commit.
func timedExitAtomic(s *timedState) {
	if !s.on {
		return
	}
	s.t1 = Now()
	emitExecPairAtomic(benchTable, benchTable+1, s.id, 1, s.t1-s.t0)
}

//go:noinline
func emitExecPairAtomic(exec, table uint16, id uint64, site int, v int64) {
	size := logfmt.RecHeaderSize + 16
	seg, off := std.reserve(size)
	if seg == nil {
		return
	}
	rec := seg.data[off : off+size]
	seg.begin(rec, size)
	logfmt.PutHeader(rec, exec, logfmt.FormatExecPair)
	rec[logfmt.RecSecondTable] = byte(table - exec)
	logfmt.PutInt64(rec[logfmt.RecHeaderSize:], int64(id|uint64(site)<<logfmt.PackedIDBits))
	logfmt.PutInt64(rec[logfmt.RecHeaderSize+8:], v)
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&rec[0])), uint32(size)|logfmt.CommitBit)
}

//go:noinline
func siteTimedAtomic(i int) {
	var s timedState
	if timedEnter(&s, false) {
		defer timedExitAtomic(&s)
	}
	work(i)
}

//go:noinline
func siteTimedBefore(i int) {
	var s timedState
	if timedEnter(&s, true) {
		defer timedExitBefore(&s)
	}
	work(i)
}

// siteClocks is the floor of a timed event: the two clock reads alone,
// the duration kept in a variable.
//
//go:noinline
func siteClocks(i int) {
	t0 := Now()
	work(i)
	sink += Now() - t0
}

// siteTicks is siteClocks with the processor's cycle counter instead
// of the monotonic clock: runtime.cputicks, which Go keeps linkable
// (RDTSCP on amd64, CNTVCT_EL0 on arm64), the cheaper clock a timed site
// could read. Only measured: docs/PERFORMANCE.md says why it is not used.
//
//go:noinline
func siteTicks(i int) {
	t0 := cputicks()
	work(i)
	sink += cputicks() - t0
}

//go:linkname cputicks runtime.cputicks
func cputicks() int64

//go:noinline
func sitePlain(i int) { work(i) }

// BenchmarkTimedEvent measures, in one run, a recorded timed event
// (siteTimed; siteTimedBefore as generated before EmitExecPair)
// against two reads of the clock (siteClocks), each less the function
// alone (sitePlain), alternating chunks of 1000 and taking each one's
// median chunk. It reports their ns/op, ticks-x-clocks (two reads of
// the cycle counter, siteTicks, over two of the clock), x-atomic-commit
// (the event over the same with an atomic commit), x-clocks (the event's cost as a
// multiple of the two reads: issue 12 asks at most 1.5), x-before (the
// event's cost over the one before) and the bytes of log per event of
// each; and the page faults the recording goroutine took per 1000 timed
// events (faults/1000-events, linux), which the median chunk can leave
// out. It runs twice, the segments mapped with huge pages (pages=huge)
// and without (pages=small, as PMM_HUGEPAGES=off does).
//
//	go test -run '^$' -bench TimedEvent -benchtime 1s -count 5 ./rt/pmmrt/
func BenchmarkTimedEvent(b *testing.B) {
	for _, huge := range []bool{true, false} {
		name := "pages=small"
		if huge {
			name = "pages=huge"
		}
		b.Run(name, func(b *testing.B) { benchmarkTimedEvent(b, huge) })
	}
}

func benchmarkTimedEvent(b *testing.B, huge bool) {
	useTestLog(b, true, firstSegmentSize, lastSegmentSize)
	std.mu.Lock()
	was := std.hugePages
	std.hugePages = huge
	std.mu.Unlock()
	defer func() {
		std.close()
		std.mu.Lock()
		std.hugePages = was
		std.mu.Unlock()
	}()
	runtime.LockOSThread() // so that the thread's page faults are the writer's
	defer runtime.UnlockOSThread()
	var faults, timedEvents int64
	sites := []struct {
		name string
		f    func(int)
	}{{"plain", sitePlain}, {"clocks", siteClocks}, {"ticks", siteTicks}, {"timed", siteTimed}, {"timed-atomic", siteTimedAtomic}, {"before", siteTimedBefore}}
	chunks := make([][]float64, len(sites))
	bytes, counted := make([]uint64, len(sites)), make([]int, len(sites))
	for done := 0; done < b.N; done += chunk {
		k := min(chunk, b.N-done)
		for j, s := range sites {
			seg, reserved := logEnd()
			f0 := threadPageFaults()
			t0 := time.Now()
			for i := 0; i < k; i++ {
				s.f(i)
			}
			chunks[j] = append(chunks[j], float64(time.Since(t0).Nanoseconds())/float64(k))
			if s.name == "timed" {
				faults += threadPageFaults() - f0
				timedEvents += int64(k)
			}
			// The bytes it reserved, from the chunks that stayed in one segment.
			if seg2, reserved2 := logEnd(); seg2 == seg {
				bytes[j] += reserved2 - reserved
				counted[j] += k
			}
		}
	}
	ns, perEvent := map[string]float64{}, map[string]float64{}
	for j, s := range sites {
		sort.Float64s(chunks[j])
		ns[s.name] = chunks[j][len(chunks[j])/2]
		if counted[j] > 0 {
			perEvent[s.name] = float64(bytes[j]) / float64(counted[j])
		}
	}
	cost := func(name string) float64 { return ns[name] - ns["plain"] }
	b.ReportMetric(cost("clocks"), "clocks-ns/op")
	b.ReportMetric(cost("ticks")/cost("clocks"), "ticks-x-clocks")
	b.ReportMetric(cost("timed"), "timed-ns/op")
	b.ReportMetric(cost("before"), "before-ns/op")
	b.ReportMetric(cost("timed")/cost("clocks"), "x-clocks")
	b.ReportMetric(cost("before")/cost("clocks"), "x-clocks-before")
	b.ReportMetric(cost("timed")/cost("before"), "x-before")
	b.ReportMetric(cost("timed")/cost("timed-atomic"), "x-atomic-commit")
	if threadPageFaults() >= 0 {
		b.ReportMetric(float64(faults)*1000/float64(timedEvents), "faults/1000-events")
	}
	b.ReportMetric(perEvent["timed"], "bytes/event")
	b.ReportMetric(perEvent["before"], "bytes/event-before")
}

// logEnd returns the current segment of the log and the bytes reserved
// in it.
func logEnd() (*segment, uint64) {
	s := (*segment)(atomic.LoadPointer(&std.cur))
	if s == nil {
		return nil, 0
	}
	return s, atomic.LoadUint64(&s.reserved)
}
