// Package regionbench is what cmd/pmm's BenchmarkRegionCosts measures,
// instrumented and built plainly: a loop whose iterations a question
// records, the same loop never instrumented, and the same with
// hand-written timing of each iteration; an uncontended mutex and a send
// and receive that never block, recorded, and the same under a question
// that asks only for the operations that blocked; a labeled loop no question
// asks about; a go statement whose goroutine is recorded.
package regionbench

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// sink keeps the loops' results alive.
var sink uint64

func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 29
	return h
}

// Loop's iterations are the events of the question.
func Loop(n int) {
	h := sink
	//pmm:region steps
	for i := 0; i < n; i++ {
		h = mix(h)
	}
	sink = h
}

// LoopPlain is Loop, never instrumented.
func LoopPlain(n int) {
	h := sink
	for i := 0; i < n; i++ {
		h = mix(h)
	}
	sink = h
}

// times is the hand-written instrumentation's buffer of durations.
var times = make([]time.Duration, 0, 1<<20)

// LoopHand times each iteration by hand: time.Now at its top, and
// time.Since appended to a typed buffer at its end.
func LoopHand(n int) {
	h := sink
	for i := 0; i < n; i++ {
		t0 := time.Now()
		h = mix(h)
		if len(times) == cap(times) {
			times = times[:0]
		}
		times = append(times, time.Since(t0))
	}
	sink = h
}

// Unasked has a labeled loop that no question names.
func Unasked(n int) {
	h := sink
steps:
	for i := 0; i < n; i++ {
		if i < 0 {
			break steps
		}
		h = mix(h)
	}
	sink = h
}

var mu sync.Mutex

// Lock's Lock is a blocking operation of the question; it never blocks.
func Lock() {
	mu.Lock()
	sink++
	mu.Unlock()
}

var ch = make(chan int, 1)

// Send's send and receive are blocking operations of the question; the
// channel has room, and a value, each time.
func Send() {
	ch <- 1
	sink += uint64(<-ch)
}

var mu2 sync.Mutex

// LockWaited's Lock is a blocking operation of a question that asks only
// for those that blocked; it never blocks.
func LockWaited() {
	mu2.Lock()
	sink++
	mu2.Unlock()
}

var ch2 = make(chan int, 1)

// SendWaited's send and receive are blocking operations of a question
// that asks only for those that blocked; they never block.
func SendWaited() {
	ch2 <- 1
	sink += uint64(<-ch2)
}

// started is set by the goroutine Spawn starts.
var started atomic.Bool

// Spawn starts a goroutine, an event of the question, and waits until it
// ran by polling (a wait group's Wait or a receive would be a blocking
// operation of the question too).
func Spawn() {
	started.Store(false)
	go mark()
	for !started.Load() {
		runtime.Gosched()
	}
}

func mark() { started.Store(true) }
