// Command accounts is seed 002's example in Go: three packages, of
// which the middle one (pool) is an unaccounted agent whose
// allocations go to its accounted caller (parser, db); 1000 Bufs are
// allocated and 100 kept to the end. It prints, as "want NAME VALUE"
// lines, what it counts of itself by hand (objects allocated and kept,
// bytes as their size), and, as "measured" lines, what
// runtime.MemStats says each call allocated (one goroutine, the
// collector off): the test checks the two agree in the plain program.
// With the argument "exit" it ends by os.Exit, before main returns.
package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"unsafe"

	"example.com/accounts/db"
	"example.com/accounts/parser"
	"example.com/accounts/pool"
)

var (
	kept  [10]*pool.Buf
	nkept int
)

// direct asks pool for n Bufs with no accounted frame on the
// goroutine, and keeps every tenth.
func direct(n int) int {
	for i := 0; i < n; i++ {
		b := pool.Get()
		if i%10 == 0 {
			kept[nkept] = b
			nkept++
		}
	}
	return n
}

// The phases the program measures: functions, not function literals,
// which would capture.
var mainAllocated int

func directPhase() { mainAllocated = direct(90) }
func parserPhase() { parser.Parse(400) }
func dbPhase()     { db.Load(450, 50) }

// want prints a count the program kept of itself.
func want(name string, v int) { say("want", name, "", uint64(v)) }

// line is what say writes. The program prints without fmt, whose
// arguments are values converted to interfaces: heap allocations pmm
// does not record, which would make the answers over every allocation
// say they may be incomplete; nor by concatenations or appends, which
// are allocation sites of their own.
var line [128]byte

// say prints "kind name+suffix v".
func say(kind, name, suffix string, v uint64) {
	n := copy(line[:], kind)
	line[n] = ' '
	n++
	n += copy(line[n:], name)
	n += copy(line[n:], suffix)
	line[n] = ' '
	n++
	var digits [20]byte
	i := len(digits)
	for {
		i--
		digits[i] = byte('0' + v%10)
		if v /= 10; v == 0 {
			break
		}
	}
	n += copy(line[n:], digits[i:])
	line[n] = '\n'
	os.Stdout.Write(line[:n+1])
}

// measure prints the objects and heap bytes MemStats counts during f.
func measure(name string, f func()) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	say("measured", name, "_objects", after.Mallocs-before.Mallocs)
	say("measured", name, "_bytes", after.TotalAlloc-before.TotalAlloc)
}

func main() {
	debug.SetGCPercent(-1)
	measure("direct", directPhase)
	measure("parser", parserPhase)
	measure("db", dbPhase)
	parser.Spawn(10)

	buf := int(unsafe.Sizeof(pool.Buf{}))
	row := int(unsafe.Sizeof([8]int64{}))
	parserLive := parser.Kept()
	// By phase, for the plain program's MemStats: db's phase holds the
	// Bufs parser asked for inside it.
	want("direct_objects", mainAllocated)
	want("direct_bytes", mainAllocated*buf)
	want("parser_objects", 400)
	want("parser_bytes", 400*buf)
	want("db_objects", db.Allocated+db.RowsMade+50)
	want("db_bytes", (db.Allocated+50)*buf+db.RowsMade*row)
	// By account and type: the Bufs parser asked for, inside db's
	// Load too, are parser's; db's are those pool's Fill made for it;
	// main's, with no accounted frame, are the account "".
	want("parser_Buf_total", parser.Allocated)
	want("parser_Buf_total_bytes", parser.Allocated*buf)
	want("parser_Buf_live", parserLive)
	want("parser_Buf_live_bytes", parserLive*buf)
	want("db_Buf_total", db.Allocated)
	want("db_Buf_total_bytes", db.Allocated*buf)
	want("db_Buf_live", db.Kept())
	want("db_Buf_live_bytes", db.Kept()*buf)
	want("db_rows_total", db.RowsMade)
	want("db_rows_total_bytes", db.RowsMade*row)
	want("db_rows_live", db.LastRows())
	want("db_rows_live_bytes", db.LastRows()*row)
	// The Bufs pool warmed on the goroutine parser's Spawn started:
	// no account either.
	none, noneLive := mainAllocated+pool.Warmed, nkept+pool.WarmKept
	want("none_Buf_total", none)
	want("none_Buf_total_bytes", none*buf)
	want("none_Buf_live", noneLive)
	want("none_Buf_live_bytes", noneLive*buf)
	want("all_total", none+parser.Allocated+db.Allocated)
	want("all_live", noneLive+parserLive+db.Kept())
	if len(os.Args) > 1 && os.Args[1] == "exit" {
		os.Exit(0) // before main returns: liveness is not read
	}
}
