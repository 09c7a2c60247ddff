package pmmrt

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// TestHeapBytesTable compares the size classes with the runtime's own
// table, in the sources of the Go that runs the test.
func TestHeapBytesTable(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "internal", "runtime", "gc", "sizeclasses.go"))
	if err != nil {
		t.Fatalf("the runtime's size classes: %v (a Go whose classes live elsewhere: update heapbytes.go)", err)
	}
	m := regexp.MustCompile(`SizeClassToSize = \[NumSizeClasses\]uint16\{([0-9, ]+)\}`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no SizeClassToSize in the runtime's sizeclasses.go")
	}
	var classes []uint16
	for _, f := range strings.Split(string(m[1]), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			t.Fatal(err)
		}
		classes = append(classes, uint16(n))
	}
	if len(classes) != len(sizeClasses) {
		t.Fatalf("the runtime has %d size classes, heapbytes.go %d", len(classes), len(sizeClasses))
	}
	for i := range classes {
		if classes[i] != sizeClasses[i] {
			t.Errorf("size class %d: runtime %d, heapbytes.go %d", i, classes[i], sizeClasses[i])
		}
	}
}

var heapSink interface{}

// TestHeapBytesMeasured allocates objects of many sizes, with and
// without pointers, and compares HeapBytes with what
// runtime.MemStats.TotalAlloc counts for them.
func TestHeapBytesMeasured(t *testing.T) {
	sizes := []uintptr{16, 17, 24, 100, 500, 504, 512, 513, 520, 1000, 1024, 1025, 4000, 8192, 9000, 32760, 32768, 32769, 40000, 100000}
	for n := uintptr(16); n <= 2048; n += 8 {
		sizes = append(sizes, n)
	}
	const runs = 64
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, pointers := range []bool{false, true} {
		for _, n := range sizes {
			elems := n / 8 // n is a multiple of 8 for the pointer case
			if n%8 != 0 && pointers {
				continue
			}
			// The least of a few measures: the runtime and the testing
			// package allocate now and then in the background.
			got := ^uint64(0)
			for try := 0; try < 5; try++ {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for i := 0; i < runs; i++ {
					if pointers {
						heapSink = make([]*byte, elems)
					} else {
						heapSink = make([]byte, n)
					}
				}
				runtime.ReadMemStats(&after)
				// The slice header boxed into heapSink: 24 bytes, class 24.
				if d := (after.TotalAlloc-before.TotalAlloc)/runs - 24; d < got {
					got = d
				}
			}
			if want := HeapBytes(n, pointers); uint64(want) != got {
				t.Errorf("HeapBytes(%d, pointers=%v) = %d, TotalAlloc counts %d", n, pointers, want, got)
			}
		}
	}
}

func TestHeapBytesSmall(t *testing.T) {
	for _, c := range []struct{ n, want uintptr }{{0, 0}, {1, 8}, {8, 8}, {9, 16}, {33, 48}, {32768, 32768}, {32769, 40960}} {
		if got := HeapBytes(c.n, false); got != c.want {
			t.Errorf("HeapBytes(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// TestHeapBytesOf: for generic code, the pointers of a type are those
// its values hold, as the collector sees them (strings, interfaces,
// maps and funcs are pointers; an empty array or struct holds none).
func TestHeapBytesOf(t *testing.T) {
	type pair struct {
		n int64
		s string
	}
	type flat struct {
		a [3]int32
		f float64
	}
	check := func(name string, got uintptr, pointers bool, n uintptr) {
		t.Helper()
		if want := HeapBytes(n, pointers); got != want {
			t.Errorf("HeapBytesOf[%s](%d) = %d, want HeapBytes(%d, %v) = %d", name, n, got, n, pointers, want)
		}
	}
	// Sizes where the two differ: a malloc header over 512 bytes.
	for _, n := range []uintptr{570, 1020} {
		check("int64", HeapBytesOf[int64](n), false, n)
		check("[3]int32", HeapBytesOf[[3]int32](n), false, n)
		check("flat", HeapBytesOf[flat](n), false, n)
		check("[0]*int", HeapBytesOf[[0]*int](n), false, n)
		check("struct{}", HeapBytesOf[struct{}](n), false, n)
		check("pair", HeapBytesOf[pair](n), true, n)
		check("*int", HeapBytesOf[*int](n), true, n)
		check("string", HeapBytesOf[string](n), true, n)
		check("any", HeapBytesOf[any](n), true, n)
		check("map[int]int", HeapBytesOf[map[int]int](n), true, n)
		check("func()", HeapBytesOf[func()](n), true, n)
		check("[2][]byte", HeapBytesOf[[2][]byte](n), true, n)
	}
	if HeapBytes(570, true) == HeapBytes(570, false) || HeapBytes(1020, true) == HeapBytes(1020, false) {
		t.Fatal("the check cannot tell pointers at these sizes")
	}
}

var chanSink, chanPtrSink any

// TestChanHeader: the heap bytes and objects of channels, as
// runtime.MemStats counts them, are those ChanHeader gives: one object
// of the header and the buffer without pointers, whatever its capacity
// (each class boundary it crosses pins the header's size), two for a
// buffer of pointers.
func TestChanHeader(t *testing.T) {
	if !strings.HasPrefix(runtime.Version(), "go1.26") {
		t.Skipf("ChanHeader is the header of Go 1.26's channels; this is %s", runtime.Version())
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const runs = 64
	measure := func(f func()) (objects, bytes uint64) {
		objects, bytes = ^uint64(0), ^uint64(0)
		for try := 0; try < 5; try++ {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := 0; i < runs; i++ {
				f()
			}
			runtime.ReadMemStats(&after)
			objects = min(objects, (after.Mallocs-before.Mallocs)/runs)
			bytes = min(bytes, (after.TotalAlloc-before.TotalAlloc)/runs)
		}
		return objects, bytes
	}
	for k := 0; k <= 40; k++ {
		// A channel is pointer-shaped: stored in an interface, boxed
		// without allocating.
		objects, bytes := measure(func() { chanSink = make(chan int64, k) })
		if want := uint64(HeapBytes(ChanHeader+8*uintptr(k), false)); objects != 1 || bytes != want {
			t.Errorf("make(chan int64, %d): %d objects, %d bytes; want 1 of %d", k, objects, bytes, want)
		}
	}
	for _, k := range []int{0, 1, 3, 20} {
		objects, bytes := measure(func() { chanPtrSink = make(chan *int, k) })
		wantObjects, wantBytes := uint64(1), uint64(HeapBytes(ChanHeader, true))
		if k > 0 {
			wantObjects, wantBytes = 2, wantBytes+uint64(HeapBytes(8*uintptr(k), true))
		}
		if objects != wantObjects || bytes != wantBytes {
			t.Errorf("make(chan *int, %d): %d objects, %d bytes; want %d of %d", k, objects, bytes, wantObjects, wantBytes)
		}
	}
}
