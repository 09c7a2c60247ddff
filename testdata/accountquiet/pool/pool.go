// Package pool is the unaccounted agent: every Buf it makes is
// charged to its nearest accounted caller, however pool is reached.
package pool

import "sync"

// Buf is 64 bytes.
type Buf struct {
	data [7]int64
	next *Buf
}

var (
	sink *Buf
	// Made counts the Bufs pool made, by hand.
	Made int
)

// Get makes a Buf.
//
//go:noinline
func Get() *Buf {
	b := new(Buf)
	sink = b
	Made++
	return b
}

// Ints sorts by sort.Sort, making a Buf at each comparison: reached
// through the standard library, by the methods of a value passed to it.
type Ints []int

func (x Ints) Len() int           { return len(x) }
func (x Ints) Swap(i, j int)      { x[i], x[j] = x[j], x[i] }
func (x Ints) Less(i, j int) bool { Get(); return x[i] < x[j] }

// Compare is slices.SortFunc's callback: it makes a Buf.
func Compare(a, b int) int { Get(); return a - b }

// Maker makes a Buf through an interface call.
type Maker struct{}

func (Maker) Make() *Buf { return Get() }

// Writer makes a Buf at each Write: log, once given it, calls it from
// log.Print, with nothing passed to that call that tells.
type Writer struct{}

func (Writer) Write(p []byte) (int, error) { Get(); return len(p), nil }

// Warm makes n Bufs on a goroutine of its own.
func Warm(n int, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < n; i++ {
		Get()
	}
}
