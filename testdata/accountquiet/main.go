// Command accountquiet calls each function of app, whose pool's Bufs
// are app's, and starts a goroutine (Spawn's) whose Bufs are no
// account's, and prints what it counts by hand as "want NAME VALUE".
package main

import (
	"fmt"
	"log"

	"example.com/accountquiet/app"
	"example.com/accountquiet/pool"
)

func main() {
	log.SetFlags(0)
	log.SetOutput(pool.Writer{})
	app.Pure(3) // one Buf of app's own
	appBufs := 1
	before := pool.Made
	app.Direct()
	app.Outer()
	app.ViaSort([]int{5, 2, 4, 1, 3})
	app.ViaSortFunc([]int{5, 2, 4, 1, 3})
	app.ViaInterface(pool.Maker{})
	app.ViaLog()
	appBufs += pool.Made - before
	before = pool.Made
	app.Spawn(7)
	none := pool.Made - before
	pool.Get()
	none++
	fmt.Println("want app_bufs", appBufs)
	fmt.Println("want none_bufs", none)
}
