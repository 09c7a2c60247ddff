// Program recoverdep defers a function of another package that recovers,
// in a function whose calls are instrumented.
package main

import (
	"fmt"
	"sync"

	"example.com/recoverdep/util"
)

// F recovers its own panic through util.Recover.
func F() (err error) {
	defer util.Recover(&err)
	defer util.Plain()
	var wg sync.WaitGroup
	wg.Add(1)
	func() { defer wg.Done() }()
	wg.Wait()
	panic("boom")
}

func main() { fmt.Println(F()) }
