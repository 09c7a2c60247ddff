// Executions whose return statement ran and whose deferred calls then
// panicked or called runtime.Goexit: they did not return, so they have
// no results and panicked (docs/LANGUAGE.md). Each count the program
// prints as "want NAME VALUE" is what pmm must answer, in every mode.
package main

import (
	"fmt"
	"runtime"
	"sync"
)

// lateFail returns n, then its deferred call panics when n > 1.
func lateFail(n int) (r int) {
	defer func() {
		if n > 1 {
			panic("late")
		}
	}()
	return n
}

func catchLate(n int) (r int, caught bool) {
	defer func() {
		if recover() != nil {
			r, caught = -1, true
		}
	}()
	return lateFail(n), false
}

// lateExit returns 7, then its deferred call ends its goroutine.
func lateExit() int {
	defer runtime.Goexit()
	return 7
}

// selfCatch returns 5, its deferred call panics, and one deferred
// before it recovers: it returns 5.
func selfCatch() (r int) {
	defer func() { recover() }()
	defer func() { panic("again") }()
	return 5
}

func main() {
	returned, panicked, sum := 0, 0, 0
	for n := range 4 {
		r, caught := catchLate(n)
		if caught {
			panicked++
		} else {
			returned++
			sum += r
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	exited := true
	go func() {
		defer wg.Done()
		lateExit()
		exited = false
	}()
	wg.Wait()
	exits := 0
	if exited {
		exits = 1
	}
	fmt.Printf("want late_returned %d\nwant late_panicked %d\nwant late_sum %d\n", returned, panicked, sum)
	fmt.Printf("want exit_panicked %d\nwant exit_results %d\n", exits, 1-exits)
	fmt.Printf("want self_returned 1\nwant self_result %d\n", selfCatch())
}
