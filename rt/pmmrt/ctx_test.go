package pmmrt

import (
	"math/rand"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// ctxIdle fails the test unless no Enter is active in any goroutine:
// the counts of EnterAny are 0, the id-keyed store is empty and every
// entry of the g-keyed one is.
func ctxIdle(t *testing.T) {
	t.Helper()
	for k := range ctxCount {
		if n := atomic.LoadInt64(&ctxCount[k].n); n != 0 {
			t.Errorf("count of slot %d = %d, want 0", k, n)
		}
	}
	byID.mu.Lock()
	if len(byID.m) != 0 {
		t.Errorf("the id-keyed store holds %d goroutines", len(byID.m))
	}
	byID.mu.Unlock()
	if cs := (*gCells)(atomic.LoadPointer(&byG.cells)); cs != nil {
		for _, c := range cs.c {
			if e := (*ctxEntry)(c.e); c.g != 0 && (e.busy != 0 || e.exec != 0 || e.nonzero()) {
				t.Errorf("the entry of g %#x is not empty: %+v", c.g, *e)
			}
		}
	}
}

func (e *ctxEntry) nonzero() bool {
	for _, s := range e.slots {
		if *s != (ctxSlot{}) {
			return true
		}
	}
	return false
}

// inStores runs f with each store of entries this build can use: the
// g-keyed table (not under the race detector, which would report an entry
// passed between goroutines that reuse a g), the id-keyed map, and the
// id-keyed map with ids from runtime.Stack, as without offsets. f must
// leave no Enter active.
func inStores(t *testing.T, f func(t *testing.T)) {
	calibrated()
	savedFast, savedOff := ctxFast, curgOff
	defer func() { ctxFast, curgOff = savedFast, savedOff }()
	for _, store := range []string{"by-g", "by-id", "by-stack-id"} {
		if store == "by-g" && (savedOff == 0 || raceEnabled) {
			continue
		}
		ctxFast, curgOff = store == "by-g", savedOff
		if store == "by-stack-id" {
			curgOff = 0
		}
		t.Run(store, func(t *testing.T) {
			defer ctxIdle(t)
			if store == "by-stack-id" && (curG() != 0 || goid() != stackGoID()) {
				t.Fatalf("without offsets: curG %#x, goid %d, runtime.Stack %d", curG(), goid(), stackGoID())
			}
			f(t)
		})
	}
}

// marks is the number of Enters of slot k active in the calling
// goroutine, as its entry holds them.
func marks(k int) int32 {
	e := ownEntry(false)
	if e == nil || k >= len(e.slots) {
		return 0
	}
	return e.slots[k].n
}

func TestCtxNesting(t *testing.T) {
	inStores(t, func(t *testing.T) {
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
		if n := marks(0); n != 1 {
			t.Fatalf("%d marks after the inner Leave, want 1", n)
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
	})
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
	if n := marks(2); n != int32(depth+1) {
		t.Errorf("depth %d: %d marks", depth, n)
	}
}

func TestCtxRecursion(t *testing.T) {
	inStores(t, func(t *testing.T) {
		recurse(t, 0)
		if Active(2) {
			t.Error("active after the recursion")
		}
	})
}

// TestCtxOtherGoroutine has one goroutine inside f and another outside:
// the slot is in use, so the other goroutine's Active looks for its own
// entry, and must answer false there.
func TestCtxOtherGoroutine(t *testing.T) {
	inStores(t, func(t *testing.T) {
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
	})
}

// TestCtxGoroutineStarted checks that a goroutine started inside f is not
// inside f (calls* relates executions of one goroutine), nor inside its
// execution.
func TestCtxGoroutineStarted(t *testing.T) {
	inStores(t, func(t *testing.T) {
		c := Enter(4)
		_, x := ExecEnter(99)
		got := make(chan bool)
		go func() { got <- Active(4) || CurrentExec() != 0 }()
		if <-got {
			t.Error("a goroutine started inside f is inside f")
		}
		x.Leave()
		c.Leave()
	})
}

// panicsInside enters slot 5 and an execution, leaves from deferred
// functions, and panics (or calls runtime.Goexit) while they are active.
func panicsInside(t *testing.T, goexit bool) {
	c := Enter(5)
	defer c.Leave()
	_, x := ExecEnter(50)
	defer x.Leave()
	func() {
		inner := EnterFlag(5)
		defer inner.Leave()
		_, y := ExecEnter(51)
		defer y.Leave()
		if !Active(5) || CurrentExec() != 51 {
			t.Error("not active before the panic")
		}
		if goexit {
			runtime.Goexit()
		}
		panic("boom")
	}()
}

func TestCtxPanic(t *testing.T) {
	inStores(t, func(t *testing.T) {
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Errorf("recovered %v", r)
				}
				// The deferred Leaves ran before this one.
				if Active(5) || CurrentExec() != 0 {
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
	})
}

// TestCtxSlotsBeyondMax checks that slots sharing a used flag keep exact
// answers.
func TestCtxSlotsBeyondMax(t *testing.T) {
	inStores(t, func(t *testing.T) {
		c := Enter(MaxSlots + 7)
		if !Active(MaxSlots+7) || Active(7) || Active(2*MaxSlots+7) || Active(MaxSlots+8) {
			t.Error("slots that share a flag are not told apart")
		}
		if atomic.LoadUint32(&ctxUsed[7]) != 1 {
			t.Error("the shared flag was not set")
		}
		c.Leave()
	})
}

// TestCtxMany has goroutines, more than the cores, enter and leave
// slots (with and without flags) and executions at random, nested, mark
// and yield, and check Active, CurrentExec and the flags against what
// they did, at every step. Each round starts new goroutines, which
// reuse the g of ended ones.
func TestCtxMany(t *testing.T) {
	inStores(t, func(t *testing.T) {
		const rounds, goroutines, steps, slots = 4, 16, 1000, 3
		for r := 0; r < rounds; r++ {
			var wg sync.WaitGroup
			for i := 0; i < goroutines; i++ {
				wg.Add(1)
				go func(seed int64) {
					defer wg.Done()
					manySteps(t, rand.New(rand.NewSource(seed)), steps, slots)
				}(int64(r*goroutines + i))
			}
			wg.Wait()
		}
	})
}

// manyEnter is one Enter or ExecEnter of manySteps and what it expects.
type manyEnter struct {
	c      Ctx
	x      ExecCtx
	exec   bool
	marked bool // a MarkAll of its slot ran while it was active (flags)
}

func manySteps(t *testing.T, rnd *rand.Rand, steps, slots int) {
	g := GoID()
	depth := make([]int, slots)
	var stack []*manyEnter
	var execs []uint64
	for s := 0; s < steps; s++ {
		k := rnd.Intn(slots)
		switch op := rnd.Intn(8); {
		case op < 3 && len(stack) < 12:
			m := &manyEnter{}
			switch rnd.Intn(4) {
			case 0:
				m.c = Enter(20 + k)
			case 1:
				m.c = EnterG(20+k, g)
			case 2:
				m.c = EnterFlag(20 + k)
			default:
				m.c = EnterFlagG(20+k, g)
			}
			depth[k]++
			stack = append(stack, m)
		case op == 3 && len(stack) < 12:
			id := uint64(rnd.Int63n(1000) + 1)
			parent, x := ExecEnter(id)
			want := uint64(0)
			if len(execs) > 0 {
				want = execs[len(execs)-1]
			}
			if parent != want {
				t.Errorf("ExecEnter returned parent %d, want %d", parent, want)
			}
			execs = append(execs, id)
			stack = append(stack, &manyEnter{x: x, exec: true})
		case op == 4:
			MarkAll(20 + k)
			for _, m := range stack {
				if !m.exec && m.c.kind == ctxFlag && int(m.c.k) == 20+k {
					m.marked = true
				}
			}
		case op == 5:
			runtime.Gosched()
		case len(stack) > 0:
			m := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if m.exec {
				m.x.Leave()
				execs = execs[:len(execs)-1]
				break
			}
			depth[m.c.k-20]--
			want := m.marked && m.c.kind == ctxFlag
			if got := m.c.LeaveMarked(); got != want {
				t.Errorf("LeaveMarked %v, want %v", got, want)
			}
		}
		for k := range depth {
			if a, ag := Active(20+k), ActiveG(20+k, g); a != (depth[k] > 0) || ag != a {
				t.Errorf("slot %d at depth %d: Active %v, ActiveG %v", 20+k, depth[k], a, ag)
				return
			}
		}
		want := uint64(0)
		if len(execs) > 0 {
			want = execs[len(execs)-1]
		}
		if got := CurrentExec(); got != want {
			t.Errorf("CurrentExec %d, want %d", got, want)
			return
		}
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i].exec {
			stack[i].x.Leave()
		} else {
			stack[i].c.Leave()
		}
	}
}

// TestCtxGReuse starts goroutines one after the other, so that the
// runtime reuses their g: each must start with an empty context, and the
// g-keyed table must not grow with the number of goroutines.
func TestCtxGReuse(t *testing.T) {
	inStores(t, func(t *testing.T) {
		const goroutines = 2000
		before := tableSize()
		for i := 0; i < goroutines; i++ {
			done := make(chan struct{})
			ok := false
			go func() {
				defer close(done) // after the Leaves
				clean := !Active(6) && CurrentExec() == 0
				c := Enter(6)
				_, x := ExecEnter(uint64(i + 1))
				defer c.Leave()
				defer x.Leave()
				ok = clean && Active(6) && CurrentExec() == uint64(i+1)
			}()
			if <-done; !ok {
				t.Fatalf("goroutine %d: context not empty at start, or not kept", i)
			}
		}
		if grown := tableSize() - before; grown > goroutines/10 {
			t.Errorf("the table grew by %d entries for %d goroutines run one at a time", grown, goroutines)
		}
	})
}

// tableSize is the number of entries of the g-keyed table.
func tableSize() int {
	byG.mu.Lock()
	defer byG.mu.Unlock()
	return byG.n
}

// TestCtxCopyLeftTwice checks that a copy of a Ctx left after the Ctx
// (a misuse) changes nothing: a later Enter is active.
func TestCtxCopyLeftTwice(t *testing.T) {
	inStores(t, func(t *testing.T) {
		c := Enter(7)
		copied := c
		c.Leave()
		copied.Leave()
		d := Enter(7)
		if !Active(7) {
			t.Error("not active after a Ctx was left twice")
		}
		d.Leave()
	})
}

// TestCtxGoID checks the identity against runtime.Stack in goroutines
// that yield between the reads (so that they move between threads), and
// that calibration found the offsets where it must.
func TestCtxGoID(t *testing.T) {
	calibrated()
	if (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") && curgOff == 0 {
		t.Errorf("no offsets of m.curg and g.goid found on %s", runtime.GOARCH)
	}
	const goroutines, reads = 8, 200
	ids := make(chan int64, goroutines)
	var wg sync.WaitGroup
	for i := 0; i < goroutines; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := stackGoID()
			g := curG()
			for r := 0; r < reads; r++ {
				if id, gid := goid(), GoID(); id != want || gid != want {
					t.Errorf("goid %d, GoID %d, runtime.Stack %d", id, gid, want)
					return
				}
				if curG() != g {
					t.Error("the g of a goroutine changed")
					return
				}
				runtime.Gosched()
			}
			ids <- want
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		if id <= 0 || seen[id] {
			t.Errorf("goroutine id %d repeated or not positive", id)
		}
		seen[id] = true
	}
}

// TestCtxCalibrate checks that calibration is repeatable: the same
// offsets each time.
func TestCtxCalibrate(t *testing.T) {
	calibrated()
	for i := 0; i < 5; i++ {
		if c, g := calibrateG(); c != curgOff || g != goidOff {
			t.Errorf("calibration %d found %d, %d; at init %d, %d", i, c, g, curgOff, goidOff)
		}
	}
}

func TestCtxNoAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	inStores(t, func(t *testing.T) {
		g := GoID()
		warm := Enter(6) // the entry exists, in both stores, while measuring
		defer warm.Leave()
		for name, f := range map[string]func(){
			"Active":       func() { Active(6) },
			"Enter+Leave":  func() { c := Enter(6); c.Leave() },
			"EnterG+Leave": func() { c := EnterG(6, g); c.Leave() },
			"EnterFlag+LeaveMarked": func() {
				c := EnterFlag(6)
				MarkAll(6)
				c.LeaveMarked()
			},
			"ExecEnter+Leave": func() { _, x := ExecEnter(1); x.Leave() },
			"ExecEnterFor+Adopt+Leave": func() {
				x := ExecEnterFor(1, 2)
				Adopt(2)
				x.Leave()
			},
			"CurrentExec": func() { CurrentExec() },
			"GoID":        func() { GoID() },
		} {
			if n := testing.AllocsPerRun(1000, f); n != 0 {
				t.Errorf("%s: %v allocations", name, n)
			}
		}
	})
}

// TestCtxMarkAll checks the flags of negated parts: MarkAll sets the
// flags of every EnterFlag active in its goroutine, the outer ones of a
// recursion too, and not those left already or of another goroutine.
func TestCtxMarkAll(t *testing.T) {
	inStores(t, testMarkAll)
}

func testMarkAll(t *testing.T) {
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
}

// TestCtxAny checks the slots of contains: counted in every goroutine,
// marked in none, and not counted by Enter.
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
	d := Enter(k)
	if Any(k) {
		t.Error("Any counts an Enter")
	}
	d.Leave()
	ctxIdle(t)
}

// TestCtxAdopt checks the ids a call site publishes: the definition of
// the function it was published for adopts it once, and only that one,
// in the same goroutine; a nested publication hides it until its Leave;
// a Leave ends the publication whether or not it was adopted.
func TestCtxAdopt(t *testing.T) {
	inStores(t, func(t *testing.T) {
		if got := Adopt(7); got != 0 {
			t.Errorf("Adopt with nothing published: %d", got)
		}
		x := ExecEnterFor(40, 7)
		if got := Adopt(8); got != 0 {
			t.Errorf("Adopt(8) of an id published for 7: %d", got)
		}
		got := make(chan uint64)
		go func() { got <- Adopt(7) }()
		if id := <-got; id != 0 {
			t.Errorf("another goroutine adopted %d", id)
		}
		if id := Adopt(7); id != 40 {
			t.Errorf("Adopt(7) = %d, want 40", id)
		}
		if id := Adopt(7); id != 0 {
			t.Errorf("adopted twice: %d", id)
		}
		if CurrentExec() != 40 {
			t.Errorf("CurrentExec %d inside the adopted execution, want 40", CurrentExec())
		}
		// A recursive call site publishes again, inside the execution.
		y := ExecEnterFor(41, 7)
		z := ExecEnterFor(42, 9) // published, never adopted (a panic before the callee)
		z.Leave()
		if id := Adopt(7); id != 41 {
			t.Errorf("Adopt(7) after an unadopted inner publication = %d, want 41", id)
		}
		y.Leave()
		if id := Adopt(7); id != 0 || CurrentExec() != 40 {
			t.Errorf("after the inner Leave: Adopt %d, CurrentExec %d, want 0, 40", id, CurrentExec())
		}
		x.Leave()
		// Published and left without adoption: nothing pending after.
		w := ExecEnterFor(43, 7)
		_, plain := ExecEnter(44) // an execution entered inside hides it
		if id := Adopt(7); id != 0 {
			t.Errorf("adopted %d through an ExecEnter", id)
		}
		plain.Leave()
		w.Leave()
		if id := Adopt(7); id != 0 || CurrentExec() != 0 {
			t.Errorf("after every Leave: Adopt %d, CurrentExec %d", id, CurrentExec())
		}
	})
}
