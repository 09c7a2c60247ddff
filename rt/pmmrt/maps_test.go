package pmmrt

import (
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// mapTally adds up the objects MapObjects give, and their heap bytes.
type mapTally struct{ objects, bytes int64 }

func (tl *mapTally) add(o MapObjects) {
	for o.Next() {
		tl.objects++
		tl.bytes += int64(HeapBytes(uintptr(o.Bytes), o.Pointers))
	}
}

// put assigns m[k] = v, as pmm's generated code does, and tallies what
// the assignment allocated.
func put[K comparable, V any](tl *mapTally, m map[K]V, k K, v V, nanPossible bool) {
	var w MapWrite
	w.Before(m, unsafe.Pointer(&k), nanPossible)
	m[k] = v
	tl.add(w.After(m))
}

var mapSink any

type bigKey [130]byte
type bigElem [200]byte

// TestMapObjects: the objects and heap bytes MapMade and MapWrite give
// for makes, literals and assignments are those runtime.MemStats counts,
// through the small map, its first table, growths, splits and the
// directory's, with deletions (tombstones), clears, updates, keys and
// values kept apart, NaN keys and maps kept in the frame.
func TestMapObjects(t *testing.T) {
	if !strings.HasPrefix(runtime.Version(), "go1.26") {
		t.Skipf("MapObjects read Go 1.26's maps; this is %s", runtime.Version())
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	strs := make([]string, 6000)
	for i := range strs {
		strs[i] = "key-" + strconv.Itoa(i)
	}
	cases := []struct {
		name string
		run  func(tl *mapTally)
	}{
		{"ints", func(tl *mapTally) {
			m := make(map[int]int)
			mapSink = m
			tl.add(MapMade(m, true))
			for i := range 5000 {
				put(tl, m, i, i, false)
			}
			for i := range 100 {
				put(tl, m, i, -i, false) // updates: nothing allocated
			}
		}},
		{"full", func(tl *mapTally) {
			// An update of a small map of 8 grows it to a table.
			for _, n := range []int{7, 8} {
				m := make(map[string]int)
				mapSink = m
				tl.add(MapMade(m, true))
				for i := range n {
					put(tl, m, strs[i], i, false)
				}
				put(tl, m, strs[0], 1, false)
				put(tl, m, strs[0], 2, false)
				mk := map[bigKey]int{{}: 1, {1}: 2, {2}: 3, {3}: 4, {4}: 5, {5}: 6, {6}: 7, {7}: 8}
				heapSink = mk
				tl.add(MapMade(mk, true))
				put(tl, mk, bigKey{}, 0, false)
			}
		}},
		{"strings", func(tl *mapTally) {
			m := make(map[string]int)
			mapSink = m
			tl.add(MapMade(m, true))
			for i, s := range strs {
				put(tl, m, s, i, false)
			}
		}},
		{"hints", func(tl *mapTally) {
			for _, hint := range []int{0, 5, 8, 9, 100, 2000, 5000} {
				m := make(map[int]string, hint)
				mapSink = m
				tl.add(MapMade(m, true))
				for i := range 2*hint + 20 {
					put(tl, m, i, "", false)
				}
			}
		}},
		{"apart", func(tl *mapTally) {
			mk := make(map[bigKey]int)
			me := make(map[int]bigElem, 20)
			mapSink, heapSink = mk, me
			tl.add(MapMade(mk, true))
			tl.add(MapMade(me, true))
			for i := range 300 {
				var k bigKey
				k[0], k[1] = byte(i), byte(i>>8)
				put(tl, mk, k, i, false)
				put(tl, me, i%200, bigElem{}, false)
			}
		}},
		{"tombstones", func(tl *mapTally) {
			m := make(map[int]int)
			mapSink = m
			tl.add(MapMade(m, true))
			next := 0
			for round := range 6 {
				for range 1500 {
					put(tl, m, next, round, false)
					next++
				}
				for k := range m {
					if k%3 != 0 {
						delete(m, k)
					}
				}
			}
			clear(m)
			for i := range 3000 {
				put(tl, m, i, i, false)
			}
		}},
		{"nan", func(tl *mapTally) {
			m := make(map[float64]int)
			mapSink = m
			tl.add(MapMade(m, true))
			for i := range 3000 {
				put(tl, m, math.NaN(), i, true)
				put(tl, m, float64(i), i, true)
			}
		}},
		{"frame", func(tl *mapTally) {
			// Kept in the frame: its header and first group too.
			m := make(map[int]int)
			tl.add(MapMade(m, false))
			for i := range 40 {
				put(tl, m, i, i, false)
			}
			n := 3
			m2 := make(map[int]int, n)
			tl.add(MapMade(m2, false))
			put(tl, m2, 1, 1, false)
		}},
		{"literals", func(tl *mapTally) {
			small := map[string]int{"a": 1, "b": 2, "c": 3}
			mapSink = small
			tl.add(MapMade(small, true))
			large := map[string]int{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7, "h": 8, "i": 9, "j": 10, "k": 11, "l": 12}
			heapSink = large
			tl.add(MapMade(large, true))
			apart := map[int]bigElem{1: {}, 2: {}, 3: {}, 4: {}, 5: {}, 6: {}, 7: {}, 8: {}, 9: {}, 10: {}}
			boxSink = apart
			tl.add(MapMade(apart, true))
			local := map[int]int{1: 1, 2: 2}
			tl.add(MapMade(local, false))
			put(tl, local, 3, 3, false)
		}},
	}
	for _, c := range cases {
		// The least of a few runs: the runtime and the testing package
		// allocate now and then in the background.
		var want mapTally
		objects, bytes := int64(math.MaxInt64), int64(math.MaxInt64)
		for try := 0; try < 5; try++ {
			var tl mapTally
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			c.run(&tl)
			runtime.ReadMemStats(&after)
			objects = min(objects, int64(after.Mallocs-before.Mallocs))
			bytes = min(bytes, int64(after.TotalAlloc-before.TotalAlloc))
			want = tl
		}
		if want.objects != objects || want.bytes != bytes {
			t.Errorf("%s: MapObjects give %d objects of %d bytes; MemStats counts %d of %d", c.name, want.objects, want.bytes, objects, bytes)
		}
	}
}
