// Command goroutines starts goroutines whose lifetimes it knows by
// construction, for cmd/pmm's TestGoroutines: Serve starts workers of
// which the first ones wait on a channel that main closes only after
// Serve returned (they outlive it) and the others end before Serve
// returns (Serve waits until the number of goroutines is back where it
// was: a goroutine is counted until it has ended); Batch and main start
// others, one of which ends by runtime.Goexit; Pool starts its workers
// through a function value, Work or Rest by turns. It prints what pmm
// must answer ("want NAME VALUE"), and measures each waiting worker's life
// from just after its go statement to just before it returns, which
// pmm's duration of its goroutine must include.
package main

import (
	"fmt"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"
)

const (
	workers  = 7 // started by Serve's loop
	outlive  = 3 // of which wait for main's release
	batchers = 4 // started by Batch
)

// after[i] is the time just after the go statement of waiting worker i;
// ended[i] just before it returns.
var after, ended [outlive]time.Time

// Wait is a worker that waits for release.
func Wait(i int, release chan struct{}, done *sync.WaitGroup) {
	defer done.Done()
	<-release
	ended[i] = time.Now()
}

// Work is a worker that ends at once.
func Work(i int, done *sync.WaitGroup) {
	defer done.Done()
	_ = spin(i)
}

// Fill is a generic worker.
func Fill[T int | int64](n T, done *sync.WaitGroup) {
	defer done.Done()
	_ = spin(int(n))
}

// Quit ends its goroutine by runtime.Goexit.
func Quit(done *sync.WaitGroup) {
	defer done.Done()
	runtime.Goexit()
}

func spin(n int) int {
	s := 0
	for i := 0; i < 1000*(n+1); i++ {
		s += i
	}
	return s
}

// settle waits until at most n of the goroutines creator started run:
// those that called Done have ended by then (a goroutine ends after its
// deferred calls, so Done returning is not its end).
func settle(creator string, n int) {
	for deadline := time.Now().Add(10 * time.Second); started(creator) > n; time.Sleep(50 * time.Microsecond) {
		if time.Now().After(deadline) {
			panic(fmt.Sprintf("%d goroutines of %s still run, want %d", started(creator), creator, n))
		}
	}
}

// started counts the goroutines that creator's go statements started and
// that still run, by their stacks: runtime.NumGoroutine would count the
// goroutines of a profiler's runtime too, which may come and go.
func started(creator string) int {
	var b strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&b, 2); err != nil {
		panic(err)
	}
	return strings.Count(b.String(), "\ncreated by "+creator+" in goroutine ")
}

// Serve starts the workers and a function literal; it returns once all
// but the waiting ones have ended.
func Serve(release chan struct{}, waiting *sync.WaitGroup) {
	var quick sync.WaitGroup
	for i := 0; i < workers; i++ {
		if i < outlive {
			waiting.Add(1)
			go Wait(i, release, waiting)
			after[i] = time.Now()
		} else {
			quick.Add(1)
			go Work(i, &quick)
		}
	}
	quick.Add(1)
	go func() {
		defer quick.Done()
		_ = spin(1)
	}()
	quick.Wait()
	settle("main.Serve", outlive)
}

// Batch starts workers that end before it returns, one by Goexit, two
// of a generic function (instantiated, and inferred).
func Batch() {
	var done sync.WaitGroup
	done.Add(batchers)
	go Work(10, &done)
	go Quit(&done)
	go Fill[int](2, &done)
	go Fill(int64(3), &done)
	done.Wait()
	settle("main.Batch", 0)
}

func main() {
	release := make(chan struct{})
	var waiting, other sync.WaitGroup
	Serve(release, &waiting)
	close(release)
	waiting.Wait()
	Batch()
	other.Add(1)
	go Work(20, &other)
	other.Wait()
	var pool sync.WaitGroup
	Pool(&pool)
	settle("main.Serve", 0)
	settle("main.main", 0)

	fmt.Println("want outliving", outlive)
	fmt.Println("want within", workers-outlive+1)
	fmt.Println("want per_spawner", fmt.Sprintf("main.Batch=%d,main.Pool=%d,main.Serve=%d,main.main=1", batchers, pooled, workers+1))
	fmt.Println("want spawned_count", fmt.Sprintf("main.Batch=%d,main.Pool=%d,main.Serve=%d,main.main=1", batchers, pooled, workers+1))
	fmt.Println("want rest_lines", pooled/2)
	fmt.Println("want per_name", fmt.Sprintf("main.Fill[...]=2,main.Quit=1,main.Rest=%d,main.Serve.func1=1,main.Wait=%d,main.Work=%d", pooled/2, outlive, workers-outlive+2+(pooled+1)/2))
	var lives []string
	for i := range outlive {
		lives = append(lives, fmt.Sprintf("%d=%d", i, ended[i].Sub(after[i]).Nanoseconds()))
	}
	sort.Strings(lives)
	fmt.Println("lives", strings.Join(lives, ","))
}

// Rest is a worker that ends at once, as Work does.
func Rest(i int, done *sync.WaitGroup) {
	defer done.Done()
	_ = spin(i + 1)
}

// pooled is the number of workers Pool starts.
const pooled = 5

// jobs are the functions Pool starts, by turns.
var jobs = []func(int, *sync.WaitGroup){Work, Rest}

// Pool starts its workers through a function value: which function a
// go statement starts is known only when it runs (Work for even i, Rest
// for odd).
func Pool(done *sync.WaitGroup) {
	for i := range pooled {
		done.Add(1)
		job := jobs[i%len(jobs)]
		go job(30+i, done)
	}
	done.Wait()
	settle("main.Pool", 0)
}
