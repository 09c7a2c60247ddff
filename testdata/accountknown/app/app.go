// Package app is accounted. OnlyKnown reaches only agents whose account
// is known from the call graph: it need not enter its account.
package app

import (
	"sync"

	"example.com/accountknown/db"
	"example.com/accountknown/lib"
)

// OnlyKnown calls lib.ForApp, whose account is known.
func OnlyKnown() { lib.ForApp() }

// Mixed reaches agents of every kind.
func Mixed() {
	lib.Shared()
	run(lib.ByValue)
	lib.T{}.Make()
	wg.Add(1)
	go lib.Spawned(&wg)
	wg.Wait()
	lib.Ranger(db.All)
}

var wg sync.WaitGroup

// run calls a function value.
func run(f func()) { f() }
