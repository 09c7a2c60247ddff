package pmmrt

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Goroutine-local context: the run-time filter of (calls* f g) and the
// innermost instrumented execution of each goroutine. The site of f
// marks, for the executions of f that passed their own tests, that an
// execution of f is active in the calling goroutine (Enter, and Leave
// from a deferred function); the site of g asks Active and drops g's
// executions when none is. docs/RUNTIME.md ("Goroutine-local context")
// has the mechanism and its measured cost.
//
// Each goroutine that has entered something has an entry (ctxEntry) that
// only it reads and writes: its marks per slot and its innermost
// execution. Finding the entry is the only shared step: a lock-free table
// keyed by the goroutine's g (curG), or, where the g cannot be found or
// under the race detector, a map keyed by the goroutine id under a mutex.

// MaxSlots is the number of slots with a count and a used flag of their
// own (a power of 2). A slot k of MaxSlots or more shares those of k mod
// MaxSlots: its answers stay exact (the marks are kept per slot), only
// its fast path is taken less often.
const MaxSlots = 256

// ctxUsed holds, per slot, 1 once any goroutine has entered the slot
// (Enter, EnterG, EnterFlag): until then Active and MarkAll answer from
// one load, without looking for the goroutine. The flags are written
// once and only read afterwards, so they share cache lines.
var ctxUsed [MaxSlots]uint32

// ctxCount holds, per slot, the number of EnterAny not yet left, in
// every goroutine: the answer of Any. Each count has a cache line of its
// own, so that the EnterAny of different slots do not contend.
var ctxCount [MaxSlots]struct {
	n int64 // first in the element: 64-bit aligned on 32-bit systems too
	_ [56]byte
}

// execUsed is 1 once any goroutine has called ExecEnter.
var execUsed uint32

func slotIndex(k int) int { return k & (MaxSlots - 1) }

func countOf(k int) *int64 { return &ctxCount[slotIndex(k)].n }

// markUsed sets the used flag of slot k; a load once it is set.
func markUsed(flag *uint32) {
	if atomic.LoadUint32(flag) == 0 {
		atomic.StoreUint32(flag, 1)
	}
}

// ctxEntry is the context of one goroutine. Only that goroutine reads or
// writes it while it runs; a goroutine that reuses the g of one that
// ended finds it empty (fast store), because every Enter and ExecEnter is
// left by a deferred function before a goroutine ends.
type ctxEntry struct {
	// slots by slot number, grown on demand; each slot stays where it
	// was allocated, so that a Ctx can point to its own.
	slots []*ctxSlot
	exec  uint64 // the innermost ExecEnter not yet left, 0 if none
	busy  int    // the Enters, ExecEnters and TimedBegins not yet left
	goid  int64  // the owner's id in the id-keyed store, 0 in the fast one
	// pending is the function (its tag) whose definition may adopt exec:
	// exec was published by a call site of it (ExecEnterFor), and no
	// definition has adopted it yet; 0 if none.
	pending uint64
	// timed counts the timed executions that ended in the goroutine
	// (TimedEnded), for the compensation of durations around them.
	timed int64
	// acct are the goroutine's memory accounts, by account set
	// (accounts.go): the index of its innermost accounted frame's.
	acct []int32
}

// ctxSlot holds a goroutine's marks of one slot. The flags of the
// EnterFlags form a stack (innermost last) that MarkAll sets entirely,
// so it is always some set flags below some clear ones: a depth and the
// number of set flags describe it, with no allocation.
type ctxSlot struct {
	n      int32 // Enters (of both kinds) not yet left
	flags  int32 // EnterFlags not yet left
	marked int32 // how many of those, from the outermost, MarkAll set
}

// Ctx is an active Enter, returned by Enter and its variants; Leave ends
// it. The zero Ctx is no Enter: its Leave does nothing.
type Ctx struct {
	e    *ctxEntry
	s    *ctxSlot // the slot's marks in e; nil for EnterAny
	k    int32
	kind ctxKind // 0: none or left
}

// ctxKind says what a Ctx entered. It is a word, not bools: a Ctx is
// returned in registers and copied whole, and a copy that reads what
// narrower stores just wrote waits for them (store forwarding).
type ctxKind uint32

const (
	ctxMark     ctxKind = 1 + iota // Enter
	ctxFlag                        // EnterFlag: it pushed a flag
	ctxAny                         // EnterAny: it only counts
	ctxMarkFast                    // Enter's fast path: a mark of the fast store, not counted in busy
)

// Enter marks that an execution of slot k is active in the calling
// goroutine until the returned Ctx's Leave. Enters nest: the slot stays
// active until every one of them is left.
func Enter(k int) Ctx {
	// The fast path, one call (getm) and the rest inline: the slot is in
	// use and the goroutine's entry in the fast store has room for it.
	if atomic.LoadUint32(&calibrationDone) != 0 && ctxFast && atomic.LoadUint32(&ctxUsed[slotIndex(k)]) != 0 {
		var here byte
		if gp := gOn(getm(), uintptr(unsafe.Pointer(&here))); gp != 0 {
			if e := byG.find(gp); e != nil && k < len(e.slots) {
				s := e.slots[k]
				s.n++
				return Ctx{e: e, s: s, k: int32(k), kind: ctxMarkFast}
			}
		}
	}
	return ownEntry(true).enter(k, false)
}

// EnterG is Enter for a caller that knows its goroutine's id: g must be
// GoID() of the calling goroutine. The id-keyed store uses it instead of
// finding the id again.
func EnterG(k int, g int64) Ctx {
	if atomic.LoadUint32(&calibrationDone) != 0 && ctxFast {
		return Enter(k)
	}
	return entryOf(g).enter(k, false)
}

// EnterFlag is Enter for the ancestor of a negated (calls* f g), with a
// flag: MarkAll(k) in the same goroutine sets it while the Enter is
// active, which says an execution of g ran inside (the negation does not
// hold); LeaveMarked ends the Enter and reads it.
func EnterFlag(k int) Ctx { return ownEntry(true).enter(k, true) }

// EnterFlagG is EnterFlag for a caller that knows its goroutine's id.
func EnterFlagG(k int, g int64) Ctx { return entryOf(g).enter(k, true) }

func (e *ctxEntry) enter(k int, flag bool) Ctx {
	markUsed(&ctxUsed[slotIndex(k)])
	if k >= len(e.slots) {
		e.grow(k)
	}
	s := e.slots[k]
	s.n++
	if flag {
		s.flags++
	}
	e.busy++
	if flag {
		return Ctx{e: e, s: s, k: int32(k), kind: ctxFlag}
	}
	return Ctx{e: e, s: s, k: int32(k), kind: ctxMark}
}

// grow makes room for slot k in e.slots, with one allocation.
func (e *ctxEntry) grow(k int) {
	more := make([]ctxSlot, k+1-len(e.slots))
	for i := range more {
		e.slots = append(e.slots, &more[i])
	}
}

// EnterAny counts an execution of slot k as active until Leave, in no
// goroutine in particular: for (contains f g), which holds across
// goroutines, Any asks whether one is active anywhere. It is an atomic
// add.
func EnterAny(k int) Ctx {
	atomic.AddInt64(countOf(k), 1)
	return Ctx{k: int32(k), kind: ctxAny}
}

// Any reports whether an EnterAny of slot k is active in any goroutine:
// one atomic load.
func Any(k int) bool { return atomic.LoadInt64(countOf(k)) != 0 }

// Leave ends the Enter that returned c, and clears c: a second Leave, or
// the Leave of a zero Ctx, does nothing. Generated code calls it from a
// deferred function, so it runs when the execution returns, panics or
// calls runtime.Goexit. It does not look for the goroutine (c holds its
// entry), and it allocates nothing.
func (c *Ctx) Leave() {
	// The fast path, inlined into the site (inline cost 80, the budget:
	// keep it so): a mark of Enter's fast path, not counted in busy. c.s
	// is its slot (slots never move); its n is 0 if a copy of c was left
	// already.
	if c.kind == ctxMarkFast {
		c.kind = 0
		if c.s.n > 0 {
			c.s.n--
		}
		return
	}
	c.leave()
}

// LeaveMarked is Leave for an EnterFlag, and reports whether MarkAll set
// its flag. A zero Ctx's reports false.
func (c *Ctx) LeaveMarked() bool { return c.leave() }

// leave ends c, and returns its flag, if it has one.
func (c *Ctx) leave() (marked bool) {
	kind := c.kind
	if kind == 0 {
		return false
	}
	c.kind = 0
	if kind == ctxAny {
		atomic.AddInt64(countOf(int(c.k)), -1)
		return false
	}
	e, s := c.e, c.s
	if s.n == 0 {
		return false // a copy of c was left already
	}
	s.n--
	if kind == ctxMarkFast {
		return false // not counted in busy
	}
	if kind == ctxFlag && s.flags > 0 {
		// Enters nest in a goroutine: the innermost is left first.
		marked = s.flags <= s.marked
		s.flags--
		if s.marked > s.flags {
			s.marked = s.flags
		}
	}
	e.left()
	return marked
}

// left counts one Enter or ExecEnter of e as left; the id-keyed store
// drops an entry that has none left.
func (e *ctxEntry) left() {
	if e.busy > 0 {
		e.busy--
	}
	if e.busy == 0 && e.goid != 0 {
		byID.release(e.goid)
	}
}

// Active reports whether an Enter(k) that has not been left is active in
// the calling goroutine. Until some goroutine enters slot k it is one
// atomic load and a branch (inlined in the caller); then it finds the
// goroutine's entry.
func Active(k int) bool {
	if atomic.LoadUint32(&ctxUsed[slotIndex(k)]) == 0 {
		return false
	}
	return activeHere(k)
}

func activeHere(k int) bool {
	// The fast store's lookup inline: one call (getm).
	if atomic.LoadUint32(&calibrationDone) != 0 && ctxFast {
		var here byte
		if gp := gOn(getm(), uintptr(unsafe.Pointer(&here))); gp != 0 {
			return byG.find(gp).active(k)
		}
	}
	return ownEntry(false).active(k)
}

// ActiveG is Active for a caller that knows its goroutine's id: g must
// be GoID() of the calling goroutine.
func ActiveG(k int, g int64) bool {
	if atomic.LoadUint32(&ctxUsed[slotIndex(k)]) == 0 {
		return false
	}
	calibrated()
	if ctxFast {
		return ownEntry(false).active(k)
	}
	return byID.find(g).active(k)
}

func (e *ctxEntry) active(k int) bool {
	return e != nil && k < len(e.slots) && e.slots[k].n > 0
}

// MarkAll sets the flags of every EnterFlag(k) active in the calling
// goroutine: the executions that contain the caller's. Until some
// goroutine enters slot k it is one atomic load.
func MarkAll(k int) {
	if atomic.LoadUint32(&ctxUsed[slotIndex(k)]) == 0 {
		return
	}
	if e := ownEntry(false); e != nil && k < len(e.slots) {
		s := e.slots[k]
		s.marked = s.flags
	}
}

// ExecCtx is an active ExecEnter; Leave ends it. The zero ExecCtx is
// none: its Leave does nothing.
type ExecCtx struct {
	e       *ctxEntry // nil: none or left
	parent  uint64
	pending uint64 // the entry's pending tag before the ExecEnter
}

// ExecEnter makes id (an id of NextID, never 0) the innermost
// instrumented execution of the calling goroutine until the returned
// ExecCtx's Leave, and returns the execution it is inside, 0 if none.
// Generated code leaves it from a deferred function, so that it ends
// when the execution returns, panics or calls runtime.Goexit.
func ExecEnter(id uint64) (parent uint64, c ExecCtx) {
	c = execEnter(id, 0)
	return c.parent, c
}

// ExecEnterFor is ExecEnter at a call site, just before the call: id is
// the execution the call runs, of the function tag (never 0), and stays
// pending until that function's definition adopts it (Adopt). So one
// execution has one id, whether a question records it at the call or at
// the definition. Leave ends it as ExecEnter's.
func ExecEnterFor(id, tag uint64) ExecCtx { return execEnter(id, tag) }

func execEnter(id, tag uint64) ExecCtx {
	markUsed(&execUsed)
	e := ownEntry(true)
	c := ExecCtx{e: e, parent: e.exec, pending: e.pending}
	e.exec, e.pending = id, tag
	e.busy++
	return c
}

// Adopt is called on entry to every execution of a function whose call
// sites publish ids (ExecEnterFor), before its own tests: if the calling
// goroutine's innermost execution was published for this function (tag)
// and not yet adopted, the execution is that one, and Adopt returns its
// id (and marks it adopted); otherwise 0, and the execution takes an id
// of its own. A call site publishes only once it knows that the call runs
// that function, and the call enters it before any other instrumented
// code runs; a call that never reaches the definition (a panic before
// the callee's first statement) leaves the id pending only until the
// call site's Leave. Until some goroutine calls ExecEnter it is one
// atomic load.
func Adopt(tag uint64) uint64 {
	if atomic.LoadUint32(&execUsed) == 0 {
		return 0
	}
	return adopt(tag)
}

func adopt(tag uint64) uint64 {
	e := ownEntry(false)
	if e == nil || e.pending != tag || tag == 0 {
		return 0
	}
	e.pending = 0
	return e.exec
}

// Leave ends the ExecEnter that returned c: the innermost execution of
// the goroutine is again the one ExecEnter returned as its parent. A
// second Leave does nothing.
func (c *ExecCtx) Leave() {
	e := c.e
	if e == nil {
		return
	}
	c.e = nil
	e.exec, e.pending = c.parent, c.pending
	e.left()
}

// CurrentExec returns the innermost ExecEnter of the calling goroutine
// not yet left, 0 if none. Until some goroutine calls ExecEnter it is one
// atomic load.
func CurrentExec() uint64 {
	if atomic.LoadUint32(&execUsed) == 0 {
		return 0
	}
	if e := ownEntry(false); e != nil {
		return e.exec
	}
	return 0
}

// ctxFast chooses the store of the entries: the table keyed by g when the
// g can be found (curG) and the race detector is off, the id-keyed map
// otherwise. Under the race detector, an entry passed from a goroutine to
// the next one on the same g would be reported as a race (the detector
// does not know the runtime reuses a g only after its goroutine ended).
// calibrated sets it; tests switch it while no Enter is active.
var ctxFast bool

// ownEntry returns the calling goroutine's entry; without one it makes
// one if create, and returns nil otherwise.
func ownEntry(create bool) *ctxEntry {
	calibrated()
	if !ctxFast {
		return ownEntryByID(create)
	}
	var here byte
	gp := gOn(getm(), uintptr(unsafe.Pointer(&here)))
	if gp == 0 {
		gp = curGAgain()
	}
	if e := byG.find(gp); e != nil || !create {
		return e
	}
	return byG.insert(gp)
}

func ownEntryByID(create bool) *ctxEntry {
	if create {
		return byID.get(goid())
	}
	return byID.find(goid())
}

// entryOf is ownEntry(true) for a caller that knows its goroutine's id.
func entryOf(g int64) *ctxEntry {
	calibrated()
	if ctxFast {
		return ownEntry(true)
	}
	return byID.get(g)
}

// gTable is the fast store: an open-addressing table from a goroutine's
// g to its entry. Entries are never removed (a g outlives its goroutine:
// the runtime keeps every g it made, and reuses them), so a lookup stops
// at the first empty cell, readers take no lock, and a goroutine's Enter
// and Leave write nothing shared. Inserting, once per g, takes the mutex
// and publishes a larger copy when the table is half full.
type gTable struct {
	mu    sync.Mutex
	cells unsafe.Pointer // *gCells, read atomically
	n     int            // entries, under mu
}

type gCells struct {
	shift uint // 64 - log2(len(c))
	c     []gCell
}

type gCell struct {
	g uintptr        // the key, 0 if the cell is empty
	e unsafe.Pointer // *ctxEntry, set before g
}

var byG gTable

// gHash spreads the g pointers (a few hundred bytes apart) over the
// table: Fibonacci hashing keeps the top bits of a multiplication.
func gHash(gp uintptr, shift uint) uintptr {
	return uintptr((uint64(gp) * 0x9E3779B97F4A7C15) >> shift)
}

func (t *gTable) find(gp uintptr) *ctxEntry {
	cs := (*gCells)(atomic.LoadPointer(&t.cells))
	if cs == nil {
		return nil
	}
	mask := uintptr(len(cs.c) - 1)
	for i := gHash(gp, cs.shift); ; i = (i + 1) & mask {
		c := &cs.c[i]
		switch atomic.LoadUintptr(&c.g) {
		case gp:
			return (*ctxEntry)(atomic.LoadPointer(&c.e))
		case 0:
			return nil
		}
	}
}

// insert adds an empty entry for gp, which has none: only the goroutine
// running on gp inserts it.
func (t *gTable) insert(gp uintptr) *ctxEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	cs := (*gCells)(atomic.LoadPointer(&t.cells))
	if cs == nil || 2*(t.n+1) > len(cs.c) {
		size := 64
		if cs != nil {
			size = 2 * len(cs.c)
		}
		grown := &gCells{shift: 64, c: make([]gCell, size)}
		for s := size; s > 1; s >>= 1 {
			grown.shift--
		}
		if cs != nil {
			for i := range cs.c {
				if c := cs.c[i]; c.g != 0 {
					grown.put(c.g, c.e)
				}
			}
		}
		atomic.StorePointer(&t.cells, unsafe.Pointer(grown))
		cs = grown
	}
	e := &ctxEntry{}
	cs.put(gp, unsafe.Pointer(e))
	t.n++
	return e
}

func (cs *gCells) put(gp uintptr, e unsafe.Pointer) {
	mask := uintptr(len(cs.c) - 1)
	i := gHash(gp, cs.shift)
	for atomic.LoadUintptr(&cs.c[i].g) != 0 {
		i = (i + 1) & mask
	}
	atomic.StorePointer(&cs.c[i].e, e)
	atomic.StoreUintptr(&cs.c[i].g, gp)
}

// idTable is the other store: goroutine id → entry under a mutex. Ids
// are never reused, so an entry is dropped (kept for reuse) when its
// goroutine has left everything: the map holds only the goroutines
// inside an Enter, an ExecEnter or a TimedBegin. An entry is read and
// written by its goroutine alone without the mutex; passing it through
// the free list under the mutex orders its uses.
type idTable struct {
	mu   sync.Mutex
	m    map[int64]*ctxEntry
	free []*ctxEntry
}

var byID idTable

func (t *idTable) find(g int64) *ctxEntry {
	t.mu.Lock()
	e := t.m[g]
	t.mu.Unlock()
	return e
}

func (t *idTable) get(g int64) *ctxEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e := t.m[g]; e != nil {
		return e
	}
	if t.m == nil {
		t.m = make(map[int64]*ctxEntry)
	}
	e := &ctxEntry{}
	if n := len(t.free); n > 0 {
		e, t.free = t.free[n-1], t.free[:n-1]
	}
	e.goid = g
	t.m[g] = e
	return e
}

// release drops the entry of goroutine g, which has left everything.
// It takes the id, not the entry: an entry passed in would leak to the
// free list for the escape analysis, and with it whatever holds a Ctx
// whose Leave may release it, a site's state with the pointer to its
// caller's: every execution of the caller would move its state to the
// heap (testdata/stateescape).
func (t *idTable) release(g int64) {
	t.mu.Lock()
	e := t.m[g]
	if e == nil {
		t.mu.Unlock()
		return
	}
	delete(t.m, g)
	e.goid, e.exec, e.pending = 0, 0, 0
	for i := range e.acct {
		e.acct[i] = 0
	}
	for _, s := range e.slots {
		*s = ctxSlot{}
	}
	t.free = append(t.free, e)
	t.mu.Unlock()
}
