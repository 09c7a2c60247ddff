// Command accountknown calls app and db, whose lib Bufs are theirs, and
// lib directly and on a goroutine, whose Bufs are no account's, and
// prints what it counts by hand as "want NAME VALUE".
package main

import (
	"fmt"

	"example.com/accountknown/app"
	"example.com/accountknown/db"
	"example.com/accountknown/lib"
)

func main() {
	var appBufs, dbBufs, none int
	count := func(n *int, f func()) {
		before := lib.Made
		f()
		*n += lib.Made - before
	}
	for range 3 {
		count(&appBufs, app.OnlyKnown) // ForApp and helper
	}
	count(&dbBufs, db.Query) // Shared and Rec(2), 3 times
	lib.FromMain()
	none++
	app.Mixed()
	// Of Mixed's: Shared's two, ByValue's, Make's and the one Ranger
	// makes before its loop are app's; Spawned's goroutine has none;
	// Ranger's two loop bodies run inside db.All, with InBody.
	appBufs += 5
	none++
	dbBufs += 4
	fmt.Println("want total", lib.Made)
	fmt.Println("want app", appBufs)
	fmt.Println("want db", dbBufs)
	fmt.Println("want none", none)
}
