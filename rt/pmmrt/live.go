package pmmrt

import (
	"runtime"
	"sync"
	"unsafe"
)

// Liveness of allocated objects (allocation-live): the allocation site
// hands the object to TrackLive, which keeps only a weak pointer to it
// (weak.Make, Go 1.24; live_weak.go), so that pmm keeps nothing alive.
// When main returns (MainReturned), a full collection runs and each
// tracked object's tuple says whether it survived. Each tracked object
// is counted open at its site until its tuple is written: a run that
// ends otherwise (os.Exit, a panic, a signal), or a Go without weak
// pointers, leaves them open, and the answer says it is incomplete.

type trackedObject struct {
	tables []uint16 // the liveness tables of the questions that ask
	site   int
	id     uint64
	w      weakRef
}

// trackedChunk is the number of tracked objects per chunk: the list
// grows by chunks, never copied.
const trackedChunk = 4096

var (
	liveMu  sync.Mutex
	tracked [][]trackedObject // chunks of trackedChunk objects, the last one filling
)

// TrackLive keeps a weak pointer to the object at p, allocated as event
// id at site, whose tuple (id, live) is written to each of tables (the
// questions that ask its liveness; generated code passes a slice of its
// own, never changed) when main returns.
func TrackLive(tables []uint16, id uint64, site int, p unsafe.Pointer) {
	if p == nil || !Enabled() {
		return
	}
	w := makeWeak(p)
	Began(site)
	liveMu.Lock()
	if n := len(tracked); n == 0 || len(tracked[n-1]) == trackedChunk {
		tracked = append(tracked, make([]trackedObject, 0, trackedChunk))
	}
	last := &tracked[len(tracked)-1]
	*last = append(*last, trackedObject{tables: tables, site: site, id: id, w: w})
	liveMu.Unlock()
}

// finishLive collects the heap and writes the liveness of every tracked
// object. Objects tracked after it began (by goroutines still running)
// stay open.
func finishLive() {
	liveMu.Lock()
	ts := tracked
	tracked = nil
	liveMu.Unlock()
	if len(ts) == 0 || !weakPointers {
		return
	}
	runtime.GC()
	for _, chunk := range ts {
		for _, t := range chunk {
			live := int64(0)
			if weakAlive(t.w) {
				live = 1
			}
			for _, table := range t.tables {
				Emit2(table, int64(t.id), live)
			}
			Ended(t.site)
		}
	}
}
