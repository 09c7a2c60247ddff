package pmmrt

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Goroutine-local context: the run-time filter of (calls* f g). The site
// of f marks, for the executions of f that passed their own tests, that
// an execution of f is active in the calling goroutine (Enter, and Leave
// from a deferred function); the site of g asks Active and drops g's
// executions when none is. docs/RUNTIME.md ("Goroutine-local context")
// has the mechanism and its measured cost.
//
// Go has no goroutine-local storage, and the only exact goroutine
// identity the standard library exposes is the id in the header of
// runtime.Stack (GoID), which costs microseconds. So Active answers from
// a global count of the active Enters of the slot when it is 0 (one
// atomic load: no execution of f is active anywhere, so none in this
// goroutine) and finds the goroutine only when it is not.

// MaxSlots is the number of slots with a count of their own (a power of
// 2). A slot k of MaxSlots or more shares the count of k mod MaxSlots:
// its answers stay exact (the marks are kept per slot), only its fast
// path is taken less often.
const MaxSlots = 256

// ctxCount holds, per slot, the number of Enters not yet left, in every
// goroutine. Each count has a cache line of its own, so that the Enters
// of different slots do not contend.
var ctxCount [MaxSlots]struct {
	n int64 // first in the element: 64-bit aligned on 32-bit systems too
	_ [56]byte
}

// The marks, (goroutine, slot) → the number of active Enters of the slot
// in the goroutine, in shards chosen by the goroutine id under a mutex
// each. An entry is deleted when its count returns to 0, so that the
// table holds only the goroutines inside a marked execution.
const ctxShards = 64 // a power of 2

var ctxShard [ctxShards]struct {
	mu sync.Mutex
	m  map[ctxKey]int64
	// flags are, for the slots of negated parts, the flags of the active
	// Enters of each (goroutine, slot), innermost last: MarkAll sets them,
	// LeaveMarked reads its own. The runtime keeps them, so that no
	// pointer into the generated state (a local variable of the user's
	// function) is stored: the state stays on the stack.
	flags map[ctxKey][]bool
	_     [40]byte
}

type ctxKey struct {
	g int64 // GoID
	k int
}

// Ctx is an active Enter, returned by Enter and EnterG; Leave ends it.
// The zero Ctx is no Enter: its Leave does nothing.
type Ctx struct {
	g    int64
	k    int
	on   bool
	flag bool // it pushed a flag (EnterFlag)
	any  bool // it only counts (EnterAny)
}

func countOf(k int) *int64 { return &ctxCount[k&(MaxSlots-1)].n }

// Enter marks that an execution of slot k is active in the calling
// goroutine until the returned Ctx's Leave. Enters nest: the slot stays
// active until every one of them is left. It finds the goroutine's id
// (as GoID does); a site that has taken it already passes it to EnterG.
func Enter(k int) Ctx {
	g := goid()
	return EnterG(k, g)
}

// EnterG is Enter for a caller that knows its goroutine's id: g must be
// GoID() of the calling goroutine.
func EnterG(k int, g int64) Ctx {
	atomic.AddInt64(countOf(k), 1)
	sh := &ctxShard[uint64(g)%ctxShards]
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = make(map[ctxKey]int64)
	}
	sh.m[ctxKey{g, k}]++
	sh.mu.Unlock()
	return Ctx{g: g, k: k, on: true}
}

// EnterAny counts an execution of slot k as active until Leave, in no
// goroutine in particular: for (contains f g), which holds across
// goroutines, Any asks whether one is active anywhere. It is an atomic
// add.
func EnterAny(k int) Ctx {
	atomic.AddInt64(countOf(k), 1)
	return Ctx{k: k, on: true, any: true}
}

// Any reports whether an Enter of slot k, of any kind, is active in any
// goroutine: one atomic load.
func Any(k int) bool { return atomic.LoadInt64(countOf(k)) != 0 }

// EnterFlag is Enter for the ancestor of a negated (calls* f g), with a
// flag: MarkAll(k) in the same goroutine sets it while the Enter is
// active, which says an execution of g ran inside (the negation does not
// hold); LeaveMarked ends the Enter and reads it.
func EnterFlag(k int) Ctx {
	g := goid()
	return EnterFlagG(k, g)
}

// EnterFlagG is EnterFlag for a caller that knows its goroutine's id.
func EnterFlagG(k int, g int64) Ctx {
	c := EnterG(k, g)
	sh := &ctxShard[uint64(g)%ctxShards]
	sh.mu.Lock()
	if sh.flags == nil {
		sh.flags = make(map[ctxKey][]bool)
	}
	key := ctxKey{g, k}
	sh.flags[key] = append(sh.flags[key], false)
	sh.mu.Unlock()
	c.flag = true
	return c
}

// LeaveMarked is Leave for an EnterFlag, and reports whether MarkAll set
// its flag. A zero Ctx's reports false.
func (c *Ctx) LeaveMarked() bool { return c.leave() }

// MarkAll sets the flags of every EnterFlag(k) active in the calling
// goroutine: the executions that contain the caller's. When none is
// active anywhere it is one atomic load.
func MarkAll(k int) {
	if atomic.LoadInt64(countOf(k)) == 0 {
		return
	}
	g := goid()
	sh := &ctxShard[uint64(g)%ctxShards]
	sh.mu.Lock()
	fs := sh.flags[ctxKey{g, k}]
	for i := range fs {
		fs[i] = true
	}
	sh.mu.Unlock()
}

// Leave ends the Enter that returned c, and clears c: a second Leave, or
// the Leave of a zero Ctx, does nothing. Generated code calls it from a
// deferred function, so it runs when the execution returns, panics or
// calls runtime.Goexit. It does not look for the goroutine (c holds its
// id), so it is cheap, and it allocates nothing.
func (c *Ctx) Leave() { c.leave() }

// leave ends c, and returns its flag, if it has one.
func (c *Ctx) leave() (marked bool) {
	if !c.on {
		return false
	}
	c.on = false
	if c.any {
		atomic.AddInt64(countOf(c.k), -1)
		return false
	}
	key := ctxKey{c.g, c.k}
	sh := &ctxShard[uint64(c.g)%ctxShards]
	sh.mu.Lock()
	n, ok := sh.m[key]
	if n > 1 {
		sh.m[key] = n - 1
	} else if ok {
		delete(sh.m, key)
	}
	if fs := sh.flags[key]; c.flag && len(fs) > 0 {
		// Enters nest in a goroutine: the innermost is left first.
		marked = fs[len(fs)-1]
		if len(fs) == 1 {
			delete(sh.flags, key)
		} else {
			sh.flags[key] = fs[:len(fs)-1]
		}
	}
	sh.mu.Unlock()
	// Enter counts before it marks, Leave counts down after it unmarks
	// and only if it did: a count is never below its slot's marks, even
	// if a copy of a Ctx is left twice.
	if ok {
		atomic.AddInt64(countOf(c.k), -1)
	}
	return marked
}

// Active reports whether an Enter(k) that has not been left is active in
// the calling goroutine. When no goroutine has one, it is one atomic load
// and a branch (inlined in the caller); otherwise it finds the
// goroutine's id (as GoID does) and looks it up. It never answers false
// while the calling goroutine has one.
func Active(k int) bool {
	if atomic.LoadInt64(countOf(k)) == 0 {
		return false
	}
	return activeSlow(k)
}

func activeSlow(k int) bool {
	g := goid()
	return activeIn(k, g)
}

// ActiveG is Active for a caller that knows its goroutine's id: g must
// be GoID() of the calling goroutine.
func ActiveG(k int, g int64) bool {
	if atomic.LoadInt64(countOf(k)) == 0 {
		return false
	}
	return activeIn(k, g)
}

func activeIn(k int, g int64) bool {
	sh := &ctxShard[uint64(g)%ctxShards]
	sh.mu.Lock()
	n := sh.m[ctxKey{g, k}]
	sh.mu.Unlock()
	return n > 0
}

// goid returns the calling goroutine's id from the header of
// runtime.Stack, with a pooled buffer. Its own frame is one more for
// runtime.Stack to format; the benchmarks of BenchmarkCtx do not tell
// the difference from the noise of the machine.
func goid() int64 {
	buf := goidBufs.Get().(*[64]byte)
	g := parseGoID(buf[:runtime.Stack(buf[:], false)])
	goidBufs.Put(buf)
	return g
}

// goidBufs holds the buffers of runtime.Stack for goid: runtime.Stack
// keeps its buffer (the compiler moves a local array passed to it to the
// heap, which is why GoID allocates 64 bytes a call), so they come from a
// pool.
var goidBufs = sync.Pool{New: func() interface{} { return new([64]byte) }}

// parseGoID reads the id in the header of runtime.Stack: "goroutine 18
// [running]:".
func parseGoID(b []byte) int64 {
	const prefix = "goroutine "
	var id int64
	if len(b) > len(prefix) {
		for _, c := range b[len(prefix):] {
			if c < '0' || c > '9' {
				break
			}
			id = id*10 + int64(c-'0')
		}
	}
	return id
}
