// Package db is an accounted principal (by the pattern
// example.com/accounts/db/...): it fills Bufs through pool's callback,
// allocates in the callback (a function of db: its own frame),
// and calls parser, whose allocations are parser's.
package db

import (
	"example.com/accounts/parser"
	"example.com/accounts/pool"
)

var (
	kept  [45]*pool.Buf
	nkept int
	// last keeps the last row slice made: one live of RowsMade.
	last []int64
	// Allocated counts the Bufs Load had pool fill, by hand; RowsMade
	// the row slices its callback made.
	Allocated, RowsMade int
)

// Load has pool fill n Bufs, keeps every tenth, makes a row of 8
// int64s every 45th, and has parser parse m.
func Load(n, m int) {
	pool.Fill(n, fill)
	parser.Parse(m)
}

// fill is pool's callback: a frame of db's on the goroutine, below
// pool's, so that what it allocates is db's, and what pool allocates
// after it returns is db's again. Not inlined: pool calls it through
// a function value.
//
//go:noinline
func fill(i int, b *pool.Buf) {
	Allocated++
	if i%10 == 0 {
		kept[nkept] = b
		nkept++
	}
	if i%45 == 0 {
		last = make([]int64, 8)
		RowsMade++
	}
}

// LastRows is the number of row slices Load keeps: the last one made.
func LastRows() int {
	if last == nil {
		return 0
	}
	return 1
}

// Kept is the number of Bufs Load keeps.
func Kept() int { return nkept }
