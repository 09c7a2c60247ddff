// Class: a record torn at a normal exit (issue 10; seed 27 of the long
// run, every answer flagged in --mode straightforward on one run of
// two). Goroutines still running when main returns may be writing a
// record when the process exits: reserved, not committed. The loader
// counted it torn, as if a process had been killed, and flagged every
// answer of the run. Here four goroutines call leaf until the process
// exits, so one is often writing then (in --mode straightforward and
// runtime, where leaf is a site). The run ends when main returns, as the
// reference's does: since the fix, main's deferred MainReturned waits
// for the records being written and keeps later writers out.
package main

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

var total atomic.Int64

func leaf(a int) int { return a%3 + 1 }

// spin never returns: it runs until the process exits.
func spin(a int) {
	for {
		total.Add(int64(leaf(a)))
		// Yield, so that main is not kept waiting by four spinners on
		// fewer cores: the run stays short, the records few.
		runtime.Gosched()
	}
}

func step(a int) int { return a * 2 }

func main() {
	for i := 0; i < 4; i++ {
		go spin(i)
	}
	s := 0
	for i := 0; i < 5; i++ {
		s += step(i)
	}
	time.Sleep(5 * time.Millisecond)
	fmt.Println(s, total.Load() >= 0)
}
