// A store whose map writer fills under the store's lock while reader,
// on another goroutine, never reads it: nothing orders the two. The
// questions walk the store and read its map's length only at Len, which
// main calls once both goroutines are done. In the modes without static
// approximation, every function is recorded, and pmm once evaluated the
// walk and the data-condition at every function with an s in scope,
// reader and writer included: a data race the program does not have
// (the race detector reports it on most runs), and a heap walk that
// iterates a map another goroutine writes may stop the program
// (concurrent map iteration and map write).
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

type Store struct {
	mu    sync.Mutex
	m     map[int]string
	reads atomic.Int64
}

func writer(s *Store, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < 3; i++ {
		s.mu.Lock()
		s.m[i] = "v"
		s.mu.Unlock()
	}
}

func reader(s *Store, wg *sync.WaitGroup) {
	defer wg.Done()
	s.reads.Add(1)
}

func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

func main() {
	s := &Store{m: map[int]string{}}
	var wg sync.WaitGroup
	wg.Add(2)
	go writer(s, &wg)
	go reader(s, &wg)
	wg.Wait()
	fmt.Println("len", s.Len())
}
