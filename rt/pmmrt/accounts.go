package pmmrt

import (
	"sync/atomic"
	"unsafe"
)

// Memory accounts (seed 002, ASGMemProf): per goroutine and account set,
// the account of the innermost accounted frame. The functions of an
// accounted package enter their account on entry and restore the one
// before on exit (AccountEnter, and Leave from a deferred call); an
// allocation site of an unaccounted package reads it (Account). The
// account is kept in the goroutine's context entry (ctx.go), so a
// goroutine starts with none: a go statement's function enters its own
// when it is accounted. docs/MEMORY.md has the rule and its choices.

// acctUsed is 1 once any goroutine has entered an account: until then
// Account is one atomic load.
var acctUsed uint32

// AccountCtx is an active AccountEnter; Leave ends it. The zero
// AccountCtx is none: its Leave does nothing.
type AccountCtx struct {
	e       *ctxEntry
	k, prev int32
}

// AccountEnter makes a (an index from 1 among set k's patterns) the
// calling goroutine's account of set k until the returned AccountCtx's
// Leave, which restores the account before it.
func AccountEnter(k, a int) AccountCtx {
	// The fast path, one call (getm) and the rest inline, as Enter's:
	// the goroutine's entry in the fast store has room for set k.
	if atomic.LoadUint32(&calibrationDone) != 0 && ctxFast && atomic.LoadUint32(&acctUsed) != 0 {
		var here byte
		if gp := gOn(getm(), uintptr(unsafe.Pointer(&here))); gp != 0 {
			if e := byG.find(gp); e != nil && k < len(e.acct) {
				c := AccountCtx{e: e, k: int32(k), prev: e.acct[k]}
				e.acct[k] = int32(a)
				return c
			}
		}
	}
	return accountEnter(k, a)
}

func accountEnter(k, a int) AccountCtx {
	markUsed(&acctUsed)
	e := ownEntry(true)
	if k >= len(e.acct) {
		e.acct = append(e.acct, make([]int32, k+1-len(e.acct))...)
	}
	c := AccountCtx{e: e, k: int32(k), prev: e.acct[k]}
	e.acct[k] = int32(a)
	if e.goid != 0 {
		e.busy++ // the id-keyed store keeps the entry while it is entered
	}
	return c
}

// Leave restores the account that was the goroutine's before the
// AccountEnter that returned c. Generated code defers it, so that it
// runs when the function returns, panics or calls runtime.Goexit.
func (c AccountCtx) Leave() {
	if c.e == nil {
		return
	}
	c.e.acct[c.k] = c.prev
	if c.e.goid != 0 {
		c.e.left()
	}
}

// Account returns the calling goroutine's account of set k: the index
// of the pattern its innermost accounted frame entered, 0 if none.
func Account(k int) int {
	if atomic.LoadUint32(&acctUsed) == 0 {
		return 0
	}
	if atomic.LoadUint32(&calibrationDone) != 0 && ctxFast {
		var here byte
		if gp := gOn(getm(), uintptr(unsafe.Pointer(&here))); gp != 0 {
			return byG.find(gp).account(k)
		}
	}
	return ownEntry(false).account(k)
}

// AccountOnce is Account read once per execution of a function: its
// allocation sites share *cache, -1 until the first of them reads the
// account. The account of a goroutine does not change during an
// execution of an unaccounted function (accounted callees restore the
// one before on return, panic or Goexit), but inside a range-over-func
// loop's body, which runs in the iterator's execution: sites there read
// Account.
func AccountOnce(k int, cache *int) int {
	if *cache < 0 {
		*cache = Account(k)
	}
	return *cache
}

func (e *ctxEntry) account(k int) int {
	if e == nil || k >= len(e.acct) {
		return 0
	}
	return int(e.acct[k])
}
