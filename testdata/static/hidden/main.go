// Command hidden has functions called only by calls static.db holds,
// and functions that other code may call (TestHiddenCallers).
package main

import (
	_ "unsafe" // for go:linkname

	"example.com/hidden/sub"
)

var kept func() int

type T struct{}

// M is a method: interface calls and reflection may call it.
func (T) M() int { return 1 }

//go:linkname linked
func linked() int { return 2 }

func static() int { return 3 }

func taken() int { return 4 }

func generic[X any](x X) X { return x }

// ranger's loop body is a value passed to its iterator, but its code is
// ranger's: that makes ranger no more callable.
func ranger() int {
	n := 0
	for v := range sub.Seq {
		n += v
	}
	return n
}

func main() {
	kept = taken
	g := generic[int]
	f := func() int { return static() + g(1) }
	println(T{}.M() + linked() + f() + kept() + ranger() + sub.Called())
}
