// Program e2e exercises calls* through a method, spawns, and aggregates
// grouped by a parameter, on fixed workloads that the end-to-end tests
// know too.
package main

import (
	"fmt"
	"sync"
)

type store struct{ m map[string]int }

func (s *store) lookup(k string) int { return s.m[k] }

func handle(s *store, k string) int { return s.lookup(k) + 1 }

// Serve looks up keys through handle: lookup runs under Serve, two calls
// down.
func Serve(s *store, keys []string) int {
	t := 0
	for _, k := range keys {
		t += handle(s, k)
	}
	return t
}

// Get is called with keys whose counts the aggregate question groups.
func Get(s *store, key string) int { return s.m[key] }

func work(n int) int {
	s := 0
	for i := 0; i < n*1000; i++ {
		s += i % 3
	}
	return s
}

// job is a worker's work. It returns before the worker's deferred
// wg.Done, so its end comes before main can return; the worker's own end
// does not (nothing in Go happens after a goroutine's end), and a
// question that needs it may find it never came.
func job(n int) int { return work(n) }

func worker(n int, wg *sync.WaitGroup, out chan<- int) {
	defer wg.Done()
	out <- job(n)
}

// spawnMore starts workers that main does not start itself.
func spawnMore(wg *sync.WaitGroup, out chan<- int) {
	wg.Add(2)
	go worker(100, wg, out)
	go worker(200, wg, out)
}

// The workloads, which the tests repeat.
var (
	serveKeys = [][]string{{"a", "b"}, {"c"}, {"a", "b", "c", "d"}}
	getKeys   = []string{"x", "y", "x", "z", "x", "y"}
	workSizes = []int{1, 2, 3, 5, 8}
)

func main() {
	s := &store{m: map[string]int{"a": 1, "b": 2, "c": 3, "d": 4, "x": 5, "y": 6, "z": 7}}
	total := 0
	for _, keys := range serveKeys {
		total += Serve(s, keys)
	}
	total += s.lookup("a") // a lookup outside Serve
	for _, k := range getKeys {
		total += Get(s, k)
	}
	var wg sync.WaitGroup
	out := make(chan int, len(workSizes)+2)
	for _, n := range workSizes {
		wg.Add(1)
		go worker(n, &wg, out)
	}
	spawnMore(&wg, out)
	wg.Wait()
	close(out)
	for v := range out {
		total += v
	}
	fmt.Println("total", total)
}
