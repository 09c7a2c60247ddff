// Package app is the accounted principal. Its functions that may reach
// pool's allocations on their goroutine enter their account, whatever
// the way (a direct call, a callback from the standard library, an
// interface call, a writer log kept); those that cannot (Pure, square,
// Spawn, whose goroutine starts with no account) need not.
package app

import (
	"log"
	"slices"
	"sort"
	"strings"
	"sync"

	"example.com/accountquiet/pool"
)

var kept *pool.Buf

// Pure reaches no allocation of pool: it makes its own Buf, whose
// account is app's without entering it.
func Pure(n int) int {
	kept = new(pool.Buf)
	return square(n) + strings.Count("banana", "a")
}

func square(n int) int { return n * n }

// Direct calls pool.
func Direct() { pool.Get() }

// Outer reaches pool through Inner, a function of app.
func Outer() { Inner() }

// Inner calls pool.
func Inner() { pool.Get() }

// ViaSort reaches pool through sort, by the methods of pool.Ints.
func ViaSort(x []int) { sort.Sort(pool.Ints(x)) }

// ViaSortFunc reaches pool through slices, by a function value.
func ViaSortFunc(x []int) { slices.SortFunc(x, pool.Compare) }

// Maker is what ViaInterface calls.
type Maker interface{ Make() *pool.Buf }

// ViaInterface reaches pool by an interface call.
func ViaInterface(m Maker) { m.Make() }

// ViaLog reaches pool through the writer log keeps.
func ViaLog() { log.Print("x") }

var wg sync.WaitGroup

// Spawn starts pool.Warm on a goroutine, which starts with no account,
// and waits for it: it reaches no allocation of pool on its goroutine.
func Spawn(n int) {
	wg.Add(1)
	go pool.Warm(n, &wg)
	wg.Wait()
}
