package pmmrt

import (
	"math/rand"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ctxIdle fails the test unless no Enter is active in any goroutine: the
// counts are 0 and the table of marks is empty.
func ctxIdle(t *testing.T) {
	t.Helper()
	for k := range ctxCount {
		if n := atomic.LoadInt64(&ctxCount[k].n); n != 0 {
			t.Errorf("count of slot %d = %d, want 0", k, n)
		}
	}
	for i := range ctxShard {
		sh := &ctxShard[i]
		sh.mu.Lock()
		if len(sh.m) != 0 || len(sh.flags) != 0 {
			t.Errorf("shard %d holds %v and flags %v", i, sh.m, sh.flags)
		}
		sh.mu.Unlock()
	}
}

func TestCtxNesting(t *testing.T) {
	defer ctxIdle(t)
	if Active(0) || Active(1) {
		t.Fatal("active before any Enter")
	}
	outer := Enter(0)
	if !Active(0) || Active(1) {
		t.Fatalf("after Enter(0): Active(0) %v, Active(1) %v", Active(0), Active(1))
	}
	inner := Enter(0)
	other := Enter(1)
	if !Active(0) || !Active(1) {
		t.Fatal("nested Enters not active")
	}
	inner.Leave()
	inner.Leave() // a second Leave does nothing
	if !Active(0) {
		t.Fatal("Leave of the inner Enter ended the outer one")
	}
	if n := atomic.LoadInt64(&ctxCount[0].n); n != 1 {
		t.Fatalf("count %d after the inner Leave, want 1", n)
	}
	outer.Leave()
	if Active(0) || !Active(1) {
		t.Fatalf("after the outer Leave: Active(0) %v, Active(1) %v", Active(0), Active(1))
	}
	other.Leave()
	var zero Ctx
	zero.Leave() // no Enter: nothing to do
	if Active(0) || Active(1) {
		t.Fatal("active after every Leave")
	}
}

// recurse is f calling itself, with a mark per execution as generated
// code makes it: Enter, and Leave from a deferred function.
func recurse(t *testing.T, depth int) {
	if Active(2) != (depth > 0) {
		t.Errorf("depth %d: Active %v before Enter", depth, !(depth > 0))
	}
	c := Enter(2)
	defer c.Leave()
	if !Active(2) {
		t.Errorf("depth %d: not active", depth)
	}
	if depth < 20 {
		recurse(t, depth+1)
	}
	if !Active(2) {
		t.Errorf("depth %d: not active after the recursive call returned", depth)
	}
	if n := atomic.LoadInt64(&ctxCount[2].n); n != int64(depth+1) {
		t.Errorf("depth %d: count %d", depth, n)
	}
}

func TestCtxRecursion(t *testing.T) {
	defer ctxIdle(t)
	recurse(t, 0)
	if Active(2) {
		t.Error("active after the recursion")
	}
}

// TestCtxOtherGoroutine has one goroutine inside f and another outside:
// the count is not 0, so the other goroutine's Active takes the precise
// path, and must answer false there.
func TestCtxOtherGoroutine(t *testing.T) {
	defer ctxIdle(t)
	entered, asked, done, left := make(chan struct{}), make(chan struct{}), make(chan bool), make(chan struct{})
	go func() {
		defer close(left)
		c := Enter(3)
		defer c.Leave()
		close(entered)
		<-asked
		done <- Active(3)
	}()
	<-entered
	if n := atomic.LoadInt64(&ctxCount[3].n); n != 1 {
		t.Fatalf("count %d, want 1: the precise path is not exercised", n)
	}
	if Active(3) || ActiveG(3, GoID()) {
		t.Error("active in a goroutine that did not Enter")
	}
	// This goroutine enters too, and each sees its own.
	c := Enter(3)
	if !Active(3) {
		t.Error("not active in this goroutine after its Enter")
	}
	c.Leave()
	if Active(3) {
		t.Error("active in this goroutine after its Leave")
	}
	close(asked)
	if !<-done {
		t.Error("not active in the goroutine that entered")
	}
	<-left
}

// TestCtxGoroutineStarted checks that a goroutine started inside f is not
// inside f (calls* relates executions of one goroutine).
func TestCtxGoroutineStarted(t *testing.T) {
	defer ctxIdle(t)
	c := Enter(4)
	got := make(chan bool)
	go func() { got <- Active(4) }()
	if <-got {
		t.Error("a goroutine started inside f is active")
	}
	c.Leave()
}

// panicsInside enters slot 5, Leaves from a deferred function, and
// panics (or calls runtime.Goexit) while the slot is active.
func panicsInside(t *testing.T, goexit bool) {
	c := Enter(5)
	defer c.Leave()
	func() {
		inner := Enter(5)
		defer inner.Leave()
		if !Active(5) {
			t.Error("not active before the panic")
		}
		if goexit {
			runtime.Goexit()
		}
		panic("boom")
	}()
}

func TestCtxPanic(t *testing.T) {
	defer ctxIdle(t)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v", r)
			}
			// The deferred Leaves ran before this one.
			if Active(5) {
				t.Error("active in the deferred function that recovers")
			}
		}()
		panicsInside(t, false)
	}()
	if Active(5) {
		t.Error("active after the recovered panic")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		panicsInside(t, true)
	}()
	<-done
}

// TestCtxSlotsBeyondMax checks that slots sharing a count keep exact
// answers.
func TestCtxSlotsBeyondMax(t *testing.T) {
	defer ctxIdle(t)
	c := Enter(MaxSlots + 7)
	if !Active(MaxSlots+7) || Active(7) || Active(2*MaxSlots+7) || Active(MaxSlots+8) {
		t.Error("slots that share a count are not told apart")
	}
	if atomic.LoadInt64(&ctxCount[7].n) != 1 {
		t.Error("the shared count was not taken")
	}
	c.Leave()
}

// TestCtxMany has goroutines enter and leave slots at random, nested,
// and check Active against their own depths at every step.
func TestCtxMany(t *testing.T) {
	defer ctxIdle(t)
	const goroutines, steps, slots = 16, 2000, 3
	var wg sync.WaitGroup
	for i := 0; i < goroutines; i++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(seed))
			g := GoID()
			var depth [slots]int
			var stack []Ctx
			for s := 0; s < steps; s++ {
				k := rnd.Intn(slots)
				switch {
				case rnd.Intn(2) == 0 && len(stack) < 8:
					if rnd.Intn(2) == 0 {
						stack = append(stack, Enter(10+k))
					} else {
						stack = append(stack, EnterG(10+k, g))
					}
					depth[k]++
				case len(stack) > 0:
					c := &stack[len(stack)-1]
					depth[c.k-10]--
					c.Leave()
					stack = stack[:len(stack)-1]
				}
				for k := range depth {
					if a, ag := Active(10+k), ActiveG(10+k, g); a != (depth[k] > 0) || ag != a {
						t.Errorf("slot %d at depth %d: Active %v, ActiveG %v", 10+k, depth[k], a, ag)
						return
					}
				}
			}
			for i := len(stack) - 1; i >= 0; i-- {
				stack[i].Leave()
			}
		}(int64(i))
	}
	wg.Wait()
}

// TestCtxCopyLeftTwice checks that a copy of a Ctx left after the Ctx
// (a misuse) does not take the count below 0: the fast path would then
// answer false for a later Enter.
func TestCtxCopyLeftTwice(t *testing.T) {
	defer ctxIdle(t)
	c := Enter(7)
	copied := c
	c.Leave()
	copied.Leave()
	d := Enter(7)
	if !Active(7) {
		t.Error("not active after a Ctx was left twice")
	}
	d.Leave()
}

func TestCtxGoID(t *testing.T) {
	ids := make(chan [2]int64)
	for i := 0; i < 4; i++ {
		go func() { ids <- [2]int64{goid(), GoID()} }()
	}
	seen := map[int64]bool{}
	for i := 0; i < 4; i++ {
		id := <-ids
		if id[0] != id[1] || id[0] <= 0 || seen[id[0]] {
			t.Errorf("goid %d, GoID %d", id[0], id[1])
		}
		seen[id[0]] = true
	}
}

func TestCtxNoAllocation(t *testing.T) {
	defer ctxIdle(t)
	g := GoID()
	for name, f := range map[string]func(){
		"Active/fast": func() { Active(6) },
		"Enter+Leave": func() { c := Enter(6); c.Leave() },
		"EnterG+Leave": func() {
			c := EnterG(6, g)
			c.Leave()
		},
		"Active/precise": func() {
			c := EnterG(6, g)
			Active(6)
			c.Leave()
		},
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s: %v allocations", name, n)
		}
	}
}

// Benchmarks of the run-time filter of (calls* f g): what the site of g
// pays to decide whether an execution of f is active. Each candidate is
// the test of a site in a callee that is not inlined, as a site is in
// the function it instruments; "call" is that call alone.

// ctxFrame is the state of a site, kept in a local variable of the
// instrumented function: a direct callee's site reads its caller's
// through a pointer (the lexical case).
type ctxFrame struct {
	id uint64
	on bool
}

const benchSlot = 100 // a slot the tests do not use

//go:noinline
func siteCall() bool { return false }

//go:noinline
func siteLexical(caller *ctxFrame) bool { return caller.on }

//go:noinline
func siteActive() bool { return Active(benchSlot) }

//go:noinline
func siteActiveG(g int64) bool { return ActiveG(benchSlot, g) }

//go:noinline
func siteGoID() int64 { return goid() }

//go:noinline
func siteGoIDAlloc() int64 { return GoID() }

//go:noinline
func siteEnterLeave() {
	c := Enter(benchSlot)
	c.Leave()
}

//go:noinline
func siteEnterGLeave(g int64) {
	c := EnterG(benchSlot, g)
	c.Leave()
}

// atDepth runs f below depth more frames, as a site deep in a program's
// calls does: finding the goroutine's id formats the stack.
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

// enterHere makes the slot active in the calling goroutine.
func enterHere() func() {
	c := Enter(benchSlot)
	return func() { c.Leave() }
}

// enterElsewhere makes the slot active in another goroutine only: the
// count is not 0, the answer is false.
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

func runGoID(n int, _ *ctxFrame, _ int64) int {
	c := 0
	for i := 0; i < n; i++ {
		c += int(siteGoID())
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
	{"active-fast", noSetup, runActive},
	{"active-precise", enterHere, runActive},
	{"active-precise-other", enterElsewhere, runActive},
	{"activeG-precise", enterHere, func(n int, _ *ctxFrame, g int64) int {
		c := 0
		for i := 0; i < n; i++ {
			if siteActiveG(g) {
				c++
			}
		}
		return c
	}},
	{"enter-leave-first", noSetup, runEnterLeave},
	{"enter-leave-nested", enterHere, runEnterLeave},
	{"enterG-leave", noSetup, func(n int, _ *ctxFrame, g int64) int {
		for i := 0; i < n; i++ {
			siteEnterGLeave(g)
		}
		return 0
	}},
	{"goid", noSetup, runGoID},
	{"GoID", noSetup, func(n int, _ *ctxFrame, _ int64) int {
		c := 0
		for i := 0; i < n; i++ {
			c += int(siteGoIDAlloc())
		}
		return c
	}},
}

// BenchmarkCtx measures each candidate on its own: ns/op and allocations.
// The -depth50 variants run 50 frames deeper: finding the goroutine's id
// formats its stack.
func BenchmarkCtx(b *testing.B) {
	for _, depth := range []int{0, 50} {
		for _, c := range ctxCandidates {
			name := c.name
			if depth > 0 {
				if c.name != "active-fast" && c.name != "active-precise" && c.name != "enter-leave-first" && c.name != "goid" {
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
// chunks of each, and reports each one's ns/op and the ratios that
// matter: the fast path and the precise path against the lexical read,
// the precise path and Enter+Leave against finding the goroutine.
func BenchmarkCtxRatios(b *testing.B) {
	cs := ctxCandidates
	total := make([]time.Duration, len(cs))
	p, g := &ctxFrame{on: true}, GoID()
	n := 0
	for done := 0; done < b.N; done += chunk {
		k := chunk
		if b.N-done < k {
			k = b.N - done
		}
		for j, c := range cs {
			undo := c.setup()
			t0 := time.Now()
			ctxSink += c.run(k, p, g)
			total[j] += time.Since(t0)
			undo()
		}
		n += k
	}
	ns := map[string]float64{}
	for j, c := range cs {
		ns[c.name] = float64(total[j].Nanoseconds()) / float64(n)
		b.ReportMetric(ns[c.name], c.name+"-ns/op")
	}
	b.ReportMetric(ns["active-fast"]/ns["lexical"], "fast-x-lexical")
	b.ReportMetric(ns["active-precise"]/ns["lexical"], "precise-x-lexical")
	b.ReportMetric(ns["active-precise"]/ns["goid"], "precise-x-goid")
	b.ReportMetric(ns["activeG-precise"]/ns["lexical"], "preciseG-x-lexical")
	b.ReportMetric(ns["enter-leave-first"]/ns["goid"], "enterleave-x-goid")
	b.ReportMetric(ns["enterG-leave"]/ns["lexical"], "enterGleave-x-lexical")
	b.ReportMetric(ns["GoID"]/ns["goid"], "GoID-x-goid")
}

// BenchmarkCtxParallel measures the paths with a goroutine per core, all
// in the same slot: the count's cache line and the shards' mutexes are
// shared.
func BenchmarkCtxParallel(b *testing.B) {
	b.Run("active-fast", func(b *testing.B) {
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
	b.Run("active-precise", func(b *testing.B) {
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
	b.Run("enterG-leave", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			g := GoID()
			for pb.Next() {
				siteEnterGLeave(g)
			}
		})
	})
}

// TestCtxMarkAll checks the flags of negated parts: MarkAll sets the
// flags of every EnterFlag active in its goroutine, the outer ones of a
// recursion too, and not those left already or of another goroutine.
func TestCtxMarkAll(t *testing.T) {
	const k = 7
	var outer, inner, left, other bool
	MarkAll(k) // none active: nothing to set
	c1 := EnterFlag(k)
	c2 := EnterFlag(k)
	left = c2.LeaveMarked()
	c3 := EnterFlag(k)
	done := make(chan bool)
	go func() {
		c := EnterFlag(k)
		done <- true
		<-done
		other = c.LeaveMarked()
		done <- true
	}()
	<-done
	MarkAll(k)
	done <- true
	<-done
	inner = c3.LeaveMarked()
	outer = c1.LeaveMarked()
	if c1.LeaveMarked() {
		t.Error("a second LeaveMarked reports the flag")
	}
	if !outer || !inner || left || other {
		t.Errorf("outer %v inner %v (want both set), left %v other goroutine %v (want neither)", outer, inner, left, other)
	}
	MarkAll(k) // nothing active any more
	ctxIdle(t)
}

// TestCtxAny checks the slots of contains: counted in every goroutine,
// marked in none.
func TestCtxAny(t *testing.T) {
	const k = 9
	if Any(k) {
		t.Fatal("Any before any Enter")
	}
	c := EnterAny(k)
	seen := make(chan bool)
	go func() { seen <- Any(k) && !Active(k) }()
	if !<-seen {
		t.Error("another goroutine: Any false or Active true while an EnterAny is active")
	}
	c.Leave()
	c.Leave()
	if Any(k) {
		t.Error("Any after Leave")
	}
	ctxIdle(t)
}
