// Command blockedops runs blocking operations of which it is known by
// construction which block, for cmd/pmm's TestBlocked: Lock of a mutex
// that main holds while goroutines wait for it (they block) and of one
// no one else holds (it does not); sends on a buffered channel with room
// (they do not block) and on a full one that a goroutine drains later
// (it blocks); receives from a channel with a value (they do not block)
// and from an empty one that a goroutine fills later (it blocks); a
// select with a ready case (it does not block) and one with none until a
// goroutine sends later (it blocks); Wait of a wait group already done
// and of one that is not; a range over a channel whose receives find
// values (they do not block) and then wait for its close (it blocks). It counts each, and prints the
// counts pmm's answers must equal.
package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Lock, Send and Recv are the operations of the question that asks
// whether each blocked; Guarded, GuardedSend and GuardedRecv the same,
// under a question that asks only for those that blocked.
func Lock(m *sync.Mutex)             { m.Lock(); m.Unlock() }
func Send(c chan int, v int)         { c <- v }
func Recv(c chan int) int            { return <-c }
func Guarded(m *sync.Mutex)          { m.Lock(); m.Unlock() }
func GuardedSend(c chan int, v int)  { c <- v }
func GuardedRecv(c chan int) (v int) { v = <-c; return v }
func Pick(a, b chan int) (v int) {
	select {
	case v = <-a:
	case v = <-b:
	}
	return v
}
func Wait(wg *sync.WaitGroup) { wg.Wait() }

// Drain ranges over c until it is closed.
func Drain(c chan int) (n int) {
	for range c {
		n++
	}
	return n
}

// counts is, by function and whether it blocked, the operations.
var counts = map[string]int{}

func count(f string, blocked bool) { counts[fmt.Sprintf("%s:%v", f, blocked)]++ }

// later runs f after the others had time to block.
func later(f func()) {
	go func() {
		time.Sleep(50 * time.Millisecond)
		f()
	}()
}

func main() {
	var free, mu sync.Mutex
	// Uncontended: none blocks.
	for i := 0; i < 5; i++ {
		Lock(&free)
		count("main.Lock", false)
		Guarded(&free)
		count("main.Guarded", false)
	}
	// Contended: main holds mu until every waiter is about to lock it,
	// and 50 ms more: every one blocks.
	mu.Lock()
	var wg sync.WaitGroup
	var arrived atomic.Int32
	for i := 0; i < 3; i++ {
		wg.Add(2)
		go func() { defer wg.Done(); arrived.Add(1); Lock(&mu) }()
		go func() { defer wg.Done(); arrived.Add(1); Guarded(&mu) }()
	}
	for arrived.Load() < 6 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	mu.Unlock()
	Wait(&wg) // not done yet, most likely: pmm counts it as blocked anyway
	for i := 0; i < 3; i++ {
		count("main.Lock", true)
		count("main.Guarded", true)
	}

	// Channels: two sends with room, then one on the full channel that
	// a goroutine drains later; two receives of the values left, then
	// one from the empty channel that a goroutine fills later.
	for _, g := range []struct {
		name, send, recv string
		send1            func(chan int, int)
		recv1            func(chan int) int
	}{{"", "main.Send", "main.Recv", Send, Recv}, {"guarded", "main.GuardedSend", "main.GuardedRecv", GuardedSend, GuardedRecv}} {
		c := make(chan int, 2)
		g.send1(c, 1)
		g.send1(c, 2)
		count(g.send, false)
		count(g.send, false)
		drained := make(chan int)
		later(func() { drained <- <-c })
		g.send1(c, 3) // full until the goroutine drains one
		count(g.send, true)
		<-drained
		g.recv1(c)
		g.recv1(c)
		count(g.recv, false)
		count(g.recv, false)
		later(func() { c <- 4 })
		g.recv1(c) // empty until the goroutine fills it
		count(g.recv, true)
	}

	// A select with a ready case, one with none until later; a wait
	// group already done.
	a, b := make(chan int, 1), make(chan int, 1)
	a <- 1
	Pick(a, b)
	count("main.Pick", false)
	later(func() { b <- 2 })
	Pick(a, b) // no case ready until the goroutine sends
	count("main.Pick", true)
	var done sync.WaitGroup
	Wait(&done)
	// A range over a channel with two values, closed later: its two
	// receives of them do not block, the one that finds it closed does.
	r := make(chan int, 2)
	r <- 1
	r <- 2
	later(func() { close(r) })
	Drain(r)
	count("main.Drain", false)
	count("main.Drain", false)
	count("main.Drain", true)

	// ops: the operations of Lock, Send and Recv by function and
	// whether they blocked; guarded: those of Guarded, GuardedSend and
	// GuardedRecv that blocked, and that did not.
	var ops, guarded, unguarded, picks, drains []string
	for k, n := range counts {
		f, blocked, _ := strings.Cut(k, ":")
		switch {
		case f == "main.Pick":
			picks = append(picks, fmt.Sprintf("%s=%d", blocked, n))
		case f == "main.Drain":
			drains = append(drains, fmt.Sprintf("%s=%d", blocked, n))
		case !strings.HasPrefix(f, "main.Guarded"):
			ops = append(ops, fmt.Sprintf("%s=%d", k, n))
		case blocked == "true":
			guarded = append(guarded, fmt.Sprintf("%s=%d", f, n))
		default:
			unguarded = append(unguarded, fmt.Sprintf("%s=%d", f, n))
		}
	}
	sort.Strings(ops)
	sort.Strings(guarded)
	sort.Strings(unguarded)
	sort.Strings(picks)
	sort.Strings(drains)
	fmt.Println("want ops", strings.Join(ops, ","))
	fmt.Println("want guarded", strings.Join(guarded, ","))
	fmt.Println("want unguarded", strings.Join(unguarded, ","))
	fmt.Println("want picks", strings.Join(picks, ","))
	fmt.Println("want drains", strings.Join(drains, ","))
}
