// Command callescapes calls functions and methods in every form a call
// site's wrapper passes its receiver (cmd/pmm TestCallSitesKeepEscapes):
// a pointer method of a variable, a value method through a pointer, a
// method promoted through an embedded value and through an embedded
// pointer, another package's method and function, a variadic call, and
// a package function named like the wrapper's own variables. None of
// main's values escapes in the plain build.
package main

import (
	"fmt"

	"example.com/callescapes/lib"
)

// Counter is kept in its callers' frames.
type Counter struct {
	n   int
	buf [48]byte
}

func (c *Counter) Add(k int) { c.n += k }

func (c Counter) Get() int { return c.n + int(c.buf[0]) }

// bump adds one to c and returns k: its call is an argument of a call of
// c's value method, which reads c after it (the order gc gives).
func (c *Counter) bump(k int) int {
	c.n++
	return k
}

func (c Counter) Plus(k int) int { return c.n + k }

// Outer promotes Counter's methods through an embedded value.
type Outer struct {
	Counter
	name string
}

// Wrap promotes them through an embedded pointer.
type Wrap struct{ *Counter }

//go:noinline
func s(x *int) { *x += 10 } // the wrapper's state is s

//go:noinline
func f(x *int) { *x += 100 } // the wrapper's function value is f

//go:noinline
func p1(x *int) int { return *x } // the wrapper's first parameter is p1

//go:noinline
func use() int {
	var c Counter
	c.Add(2)
	p := &c
	v := p.Get()
	var o Outer
	o.Add(4)
	inner := Counter{n: 1}
	w := Wrap{&inner}
	w.Add(5)
	n := 0
	s(&n)
	f(&n)
	var st lib.State
	st.Bump(&n, 3)
	lib.Inc(&n)
	t := lib.Sum(n, v, 7)
	order := c.Plus(c.bump(1))
	return c.n + v + o.Get() + w.Get() + p1(&n) + st.Value() + t + order
}

func main() {
	total := 0
	for range 3 {
		total += use()
	}
	fmt.Println("total", total)
}
