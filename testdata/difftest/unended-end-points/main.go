// Class: an end point asked for on its own, (exists (q) (end q x)), of
// executions and goroutines that never ended. Stuck blocks on a channel
// no one closes, on two goroutines Spawn starts and waits to have
// started; Quick runs and returns on main's goroutine. An interval that
// never ended has no end point (docs/LANGUAGE.md, "Events and points"),
// so "Stuck's goroutines with no end" are both and "those with an end"
// none. pmm's views read (end q x) as true whenever q was used nowhere
// else, and its sites did not record the end for it: every execution
// and goroutine had an end, silently (found by the audit of
// concurrent programs: a janitor goroutine blocked for ever was in no
// answer of "the goroutines that never ended").
package main

import (
	"fmt"
	"sync"
)

var ready sync.WaitGroup

var block = make(chan int)

func Stuck(a int) {
	ready.Done()
	<-block
}

func Quick(a int) int { return a + 1 }

func Spawn(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		ready.Add(1)
		go Stuck(i)
		s += Quick(i)
	}
	ready.Wait()
	return s
}

func main() {
	fmt.Println(Spawn(2) + Quick(5))
}
