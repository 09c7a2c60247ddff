package pmmrt

import (
	"testing"
	"unsafe"
)

var boxSink any

//go:noinline
func boxOf[T any](v T) { boxSink = v }

// boxCase converts v to an interface in a generic function, as the
// instrumented programs' generic code does, and compares BoxBytes with
// what the runtime allocated (testing.AllocsPerRun): an object of the
// type's size, or none.
func boxCase[T any](t *testing.T, name string, v T) {
	t.Helper()
	allocs := testing.AllocsPerRun(100, func() { boxOf(v) })
	got := BoxBytes(v)
	switch {
	case allocs == 0 && got != 0:
		t.Errorf("%s: BoxBytes = %d, the runtime allocated nothing", name, got)
	case allocs == 1 && got != unsafe.Sizeof(v):
		t.Errorf("%s: BoxBytes = %d, the runtime allocated an object of %d bytes", name, got, unsafe.Sizeof(v))
	case allocs != 0 && allocs != 1:
		t.Errorf("%s: the runtime allocated %g objects", name, allocs)
	}
}

// TestBoxBytes: for values of every rule's types, in and out of what
// each runtime function leaves unallocated.
func TestBoxBytes(t *testing.T) {
	type pair struct{ a, b int64 }
	type one struct{ b byte }
	type wrapped struct{ p *int }
	type name string
	x := 3
	boxCase(t, "int 7", 7)
	boxCase(t, "int 700", 700)
	boxCase(t, "int -1", -1)
	boxCase(t, "float64 0", 0.0)
	boxCase(t, "float64 1.5", 1.5)
	boxCase(t, "uint16 3", uint16(3))
	boxCase(t, "uint16 300", uint16(300))
	boxCase(t, "int32 1000", int32(1000))
	boxCase(t, "int32 10", int32(10))
	boxCase(t, "[2]uint8", [2]uint8{1, 2})
	boxCase(t, "byte", byte(200))
	boxCase(t, "bool", true)
	boxCase(t, "one", one{9})
	boxCase(t, "[1]int8", [1]int8{-3})
	boxCase(t, "string empty", "")
	boxCase(t, "string", "abc")
	boxCase(t, "name", name("n"))
	boxCase(t, "slice nil", []int(nil))
	boxCase(t, "slice", []int{1})
	boxCase(t, "pointer", &x)
	boxCase(t, "wrapped pointer", wrapped{&x})
	boxCase(t, "[1]*int", [1]*int{&x})
	boxCase(t, "map", map[int]int{})
	boxCase(t, "func", func() {})
	boxCase(t, "chan", make(chan int))
	boxCase(t, "struct{}", struct{}{})
	boxCase(t, "[0]int", [0]int{})
	boxCase(t, "pair", pair{1, 2})
	boxCase(t, "complex64", complex64(1))
	boxCase(t, "complex128", complex(1, 2))
	boxCase(t, "[2]string", [2]string{"a", ""})
	boxCase(t, "struct{s string}", struct{ s string }{""})
	boxCase(t, "unsafe.Pointer", unsafe.Pointer(&x))
}
