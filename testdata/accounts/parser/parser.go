// Package parser is an accounted principal: it asks pool for Bufs and
// keeps one in ten.
package parser

import (
	"sync"

	"example.com/accounts/pool"
)

var (
	kept  [45]*pool.Buf
	nkept int
	// Allocated counts the Bufs Parse asked for, by hand.
	Allocated int
)

// Parse asks pool for n Bufs and keeps every tenth.
func Parse(n int) {
	for i := 0; i < n; i++ {
		b := pool.Get()
		Allocated++
		if i%10 == 0 {
			kept[nkept] = b
			nkept++
		}
	}
}

// count is the number of Bufs kept. It calls nothing: it enters no
// account.
func count() int { return nkept }

var wg sync.WaitGroup

// Spawn has pool warm n Bufs on a goroutine it starts and waits for:
// the new goroutine does not inherit parser's account (it starts with
// none, as a thread does in ASGMemProf), so they are charged to no
// account.
func Spawn(n int) {
	wg.Add(1)
	go pool.Warm(n, &wg)
	wg.Wait()
}
