// Class: executions that began but whose end was not recorded (issue 10,
// class 6). Work runs on goroutines started by Spawn, with defer
// wg.Done(): Spawn's wg.Wait returns, and main may return and the
// process exit, before Work's own end (here it sleeps after wg.Done, so
// main returns first). Its begin is known (its parameter, its spawner),
// so the reference has every execution of Work; pmm, which recorded an
// execution at its end in --mode runtime, lost some or all of them,
// depending on timing. Found by the differential test (seed 21 of the
// full run: no row on one run, every row on the next). Now what is known
// at the begin is recorded, or added to the cells of an aggregate, at
// the begin; an execution that waits for a callee (works-calling-l) is
// recorded when the callee passes; one whose test needs its end
// (works-not-calling-m: a negated part) is missing, and the answer says
// so (pmm_incomplete).
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var wg sync.WaitGroup

var total atomic.Int64

func L(a int) int { return a + 1 }

func Work(a int) {
	defer time.Sleep(10 * time.Second) // after wg.Done: main returns first
	defer wg.Done()
	total.Add(int64(L(a)))
}

func M(a int) int { return a * 2 }

func Spawn(n int) int {
	for i := 0; i < n; i++ {
		wg.Add(1)
		go Work(i % 3)
	}
	wg.Wait()
	return int(total.Load())
}

func main() {
	fmt.Println(Spawn(3) + Spawn(4) + M(1))
}
