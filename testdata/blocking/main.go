// Command blocking blocks on a contended mutex, a full buffered channel,
// a select and a wait group, in plain and in generic code, with waits it measures itself around each
// operation, for cmd/pmm's TestBlocking: pmm's count of each operation
// must be the program's, and pmm's time blocked, measured inside the
// program's own measure, at most the program's.
package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Server's mutex is held by Hold while the handlers wait for it.
type Server struct {
	mu sync.Mutex
	n  int
}

// waited is the time each operation kind waited, by the program's own
// clock around it; count the operations.
var (
	waitMu sync.Mutex
	waited = map[string]time.Duration{}
	count  = map[string]int{}
)

func note(what string, t0 time.Time) {
	d := time.Since(t0)
	waitMu.Lock()
	waited[what] += d
	count[what]++
	waitMu.Unlock()
}

// Handle waits for the server's mutex.
func (s *Server) Handle() {
	t0 := time.Now()
	s.mu.Lock()
	note("lock", t0)
	s.n++
	s.mu.Unlock()
}

// Serve and Batch call Handle: the callers the waits are attributed to.
func Serve(s *Server, wg *sync.WaitGroup) { defer wg.Done(); s.Handle() }
func Batch(s *Server, wg *sync.WaitGroup) { defer wg.Done(); s.Handle() }

// Produce sends into a channel of one slot that Consume drains slowly.
func Produce(ch chan int, n int) {
	for i := 0; i < n; i++ {
		t0 := time.Now()
		ch <- i
		note("send", t0)
	}
	close(ch)
}

// Consume receives until the channel is closed.
func Consume(ch chan int, got chan<- int) {
	sum := 0
	for {
		time.Sleep(2 * time.Millisecond)
		t0 := time.Now()
		v, ok := <-ch
		note("recv", t0)
		if !ok {
			break
		}
		sum += v
	}
	got <- sum
}

// Pick waits in a select for the first of two channels.
func Pick(a, b chan int) int {
	t0 := time.Now()
	var v int
	select {
	case v = <-a:
	case v = <-b:
	}
	note("select", t0)
	return v
}

// Drain ranges over a channel, skipping some values by continue: a
// receive per value, and one that finds the channel closed.
func Drain(in <-chan int) (sum int) {
	n := 0
	for v := range in {
		n++
		if v%2 == 0 {
			continue
		}
		sum += v
	}
	ranged["Drain"] += n + 1
	return sum
}

// DrainUntil leaves its range by break: a receive per iteration.
func DrainUntil(in <-chan int, stop int) {
	n := 0
	for v := range in {
		n++
		if v == stop {
			break
		}
	}
	ranged["DrainUntil"] += n
}

// ranged counts, by function, the receives of its range over a channel.
var ranged = map[string]int{}

// Box is a generic type whose method locks the box's own mutex.
type Box[T any] struct {
	mu    sync.Mutex
	items []T
}

// Put waits for the box's mutex.
func (b *Box[T]) Put(x T) {
	b.mu.Lock()
	b.items = append(b.items, x)
	b.mu.Unlock()
	tally("(*Box[...]).Put", "lock", b, -1)
}

// Relay is generic: it receives values of its type parameter, with and
// without ok, sends one on, selects between in and quit, and ranges over
// the rest, putting what it receives in its box.
func Relay[T any](in chan T, out chan<- T, quit <-chan struct{}, box *Box[T]) {
	x := <-in
	tally("Relay[...]", "recv", in, -1)
	box.Put(x)
	out <- x
	tally("Relay[...]", "send", out, -1)
	if y, ok := <-in; ok {
		box.Put(y)
	}
	tally("Relay[...]", "recv", in, -1)
	select {
	case z := <-in:
		box.Put(z)
		tally("Relay[...]", "select", nil, 0)
	case <-quit:
		tally("Relay[...]", "select", nil, 1)
	}
	n := 0
	for z := range in {
		box.Put(z)
		n++
	}
	for ; n >= 0; n-- {
		tally("Relay[...]", "range", in, -1)
	}
}

// The blocking operations of the generic code, by function and kind
// ("main.Relay[...]:recv"); the channels and mutexes they are on, by
// function; the cases by which they proceeded, by kind ("select=0").
var (
	generic   = map[string]int{}
	genObject = map[string]map[any]bool{}
	genCase   = map[string]bool{}
)

func tally(f, k string, object any, c int) {
	f = "main." + f
	waitMu.Lock()
	generic[f+":"+k]++
	if object != nil {
		if genObject[f] == nil {
			genObject[f] = map[any]bool{}
		}
		genObject[f][object] = true
	}
	genCase[k+"="+fmt.Sprint(c)] = true
	waitMu.Unlock()
}

// sortedJoin joins the keys of m, sorted, by commas.
func sortedJoin[V any](m map[string]V, each func(string, V) string) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		out = append(out, each(k, m[k]))
	}
	return strings.Join(out, ",")
}

func main() {
	s := &Server{}
	var wg sync.WaitGroup
	s.mu.Lock()
	for i := 0; i < 4; i++ {
		wg.Add(1)
		if i%2 == 0 {
			go Serve(s, &wg)
		} else {
			go Batch(s, &wg)
		}
	}
	time.Sleep(20 * time.Millisecond) // the handlers block on s.mu meanwhile
	s.mu.Unlock()
	t0 := time.Now()
	wg.Wait()
	note("wait", t0)

	ch, got := make(chan int, 1), make(chan int)
	go Produce(ch, 5)
	go Consume(ch, got)
	fmt.Println("sum", <-got)

	a, b := make(chan int), make(chan int)
	go func() { time.Sleep(5 * time.Millisecond); b <- 7 }()
	fmt.Println("picked", Pick(a, b))

	vals := make(chan int, 5)
	for i := 1; i <= 5; i++ {
		vals <- i
	}
	close(vals)
	fmt.Println("drained", Drain(vals))
	more := make(chan int, 5)
	for i := 1; i <= 5; i++ {
		more <- i
	}
	DrainUntil(more, 3)
	fmt.Printf("want range_receives Drain=%d,DrainUntil=%d\n", ranged["Drain"], ranged["DrainUntil"])

	// Relay in two instantiations: ints, its box's mutex held by main
	// while it waits, and strings, on a channel closed after one value.
	ints, intsOut, box := make(chan int, 8), make(chan int, 8), &Box[int]{}
	for i := 1; i <= 6; i++ {
		ints <- i
	}
	close(ints)
	box.mu.Lock()
	relayed := make(chan bool)
	go func() { Relay(ints, intsOut, nil, box); relayed <- true }()
	time.Sleep(5 * time.Millisecond)
	box.mu.Unlock()
	<-relayed
	strs, strsOut, quit := make(chan string, 1), make(chan string, 1), make(chan struct{})
	strs <- "a"
	close(strs)
	Relay(strs, strsOut, quit, &Box[string]{})
	fmt.Println("relayed", len(box.items), <-intsOut, <-strsOut)
	fmt.Println("want generic_counts", sortedJoin(generic, func(k string, n int) string { return k + "=" + fmt.Sprint(n) }))
	fmt.Println("want generic_objects", sortedJoin(genObject, func(f string, o map[any]bool) string { return f + "=" + fmt.Sprint(len(o)) }))
	fmt.Println("want generic_cases", sortedJoin(genCase, func(k string, _ bool) string { return k }))

	fmt.Println("served", s.n)
	fmt.Printf("want counts lock=%d,recv=%d,select=%d,send=%d,wait=%d\n", count["lock"], count["recv"], count["select"], count["send"], count["wait"])
	fmt.Println("want lock_by_caller main.Batch=2,main.Serve=2")
	fmt.Println("want lock_under_serve 2")
	fmt.Println("want cases lock=-1,select=1") // Pick's b, its second case
	// One mutex locked in two functions, one channel used in two.
	fmt.Println("want mutex_objects 1:2")
	fmt.Println("want ch_objects 1:2")
	// pmm's time blocked lies within the program's measure of it: at
	// most the program's, and not below half of it.
	for _, k := range []string{"lock", "recv", "select", "send"} {
		fmt.Printf("want waited_%s %d\n", k, waited[k].Nanoseconds())
	}
}
