// Command allocsilent holds heap allocations that pmm miscounted
// without saying so (found by the fifth audit, 2026-12-02): each
// function below allocates what its comment says, measured by the
// program itself (MemStats' Mallocs around a call, one goroutine, the
// collector off, the least of five calls). cmd/pmm's
// TestAllocationsNotSilent requires pmm's count of each function's
// allocations to equal the program's, or its answer to say, at the
// function's lines, why it may not.
package main

import (
	"fmt"
	"iter"
	"runtime"
	"runtime/debug"
)

type buf struct {
	b []byte
	s string
}

var (
	sinkS string
	sinkB []byte
	sinkR []rune
	kept  []*int
	keptA []*any
)

// Convert converts a field and a type assertion's value: four heap
// objects (the compiler reports each at the selector's or the
// assertion's dot, one column after the operand's start).
//
//go:noinline
func Convert(e *buf, x any) {
	sinkS = string(e.b)
	sinkB = []byte(e.s)
	sinkR = []rune(e.s)
	sinkS = string(x.([]byte))
}

// TypeSwitch's x is moved to the heap in the clause that runs: one
// object (the compiler reports it at the clause's type, or at default).
//
//go:noinline
func TypeSwitch(v any) {
	switch x := v.(type) {
	case int:
		kept = append(kept, &x)
	default:
		keptA = append(keptA, &x)
	}
}

func seq(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

// RangeInlined ranges over an iterator the compiler inlines: v and w
// of each of three iterations are moved to the heap, six objects (the
// compiler reports them at the for statement).
//
//go:noinline
func RangeInlined() {
	for v := range seq(3) {
		w := v * 10
		kept = append(kept, &v, &w)
	}
}

// RangeOpaque ranges over an iterator it is given: v and w of each of
// three iterations, the loop body's closure and its state: eight
// objects (the last two are the compiler's, at the for statement).
//
//go:noinline
func RangeOpaque(s iter.Seq[int]) {
	for v := range s {
		w := v * 10
		kept = append(kept, &v, &w)
	}
}

// Counters' two ints are moved to the heap in one block: Go 1.26 makes
// them one allocation of 16 bytes (cmd/compile/internal/ssagen's
// newHeapaddr aggregates pointer-free variables under 16 bytes, up to
// 16 bytes, in a basic block), where pmm counts two objects.
//
//go:noinline
func Counters() {
	hits, misses := 0, 0
	kept = append(kept, &hits, &misses)
}

func measure(name string, f func()) {
	var before, after runtime.MemStats
	objects := ^uint64(0)
	for range 5 {
		kept, keptA = kept[:0], keptA[:0]
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		objects = min(objects, after.Mallocs-before.Mallocs)
	}
	fmt.Printf("want %s %d\n", name, objects)
}

func main() {
	debug.SetGCPercent(-1)
	kept, keptA = make([]*int, 0, 16), make([]*any, 0, 16)
	e := &buf{b: make([]byte, 40), s: "a string of forty bytes, more or less.."}
	var x any = e.b
	s := seq(3)
	measure("Convert", func() { Convert(e, x) })
	measure("TypeSwitch", func() { TypeSwitch(2.5) })
	measure("RangeInlined", RangeInlined)
	measure("RangeOpaque", func() { RangeOpaque(s) })
	measure("Counters", Counters)
	fmt.Println(len(sinkS), len(sinkB), len(sinkR), len(kept), len(keptA))
}
