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
