// Command dynamic calls functions through function values and
// interfaces whose call graph has several targets: functions, a
// closure, method values, a generic function, a method of a function
// type that calls its receiver, interface methods of a pointer and of a
// value receiver. Each function counts its executions; each is called
// from one caller only (callerOf), so the program's counts are the
// answers to the questions, which it prints as "CALLER CALLEE N".
package main

import (
	"fmt"
	"sort"
)

var runs = map[string]int{}

// callerOf is the one caller of each function.
var callerOf = map[string]string{
	"main.U1": "main.apply", "main.U2": "main.apply", "main.main.func1": "main.apply",
	"main.Val.M": "main.apply", "main.(*Ptr).M": "main.apply", "main.Twice[...]": "main.apply",
	"main.U3": "main.Handler.Serve", "main.U5": "main.Handler.Serve", "main.U4": "main.main.func1",
	"main.(*Sq).Area": "main.total", "main.Circ.Area": "main.total",
}

func U1(a int) int { runs["main.U1"]++; return a + 1 }
func U2(a int) int { runs["main.U2"]++; return a * 2 }
func U3(a int) int { runs["main.U3"]++; return a - 1 }
func U4(a int) int { runs["main.U4"]++; return a * 3 }
func U5(a int) int { runs["main.U5"]++; return a * 5 }

// Twice is generic: apply calls an instantiation.
func Twice[T int | float64](a T) T { runs["main.Twice[...]"]++; return a + a }

type Val struct{ n int }

func (v Val) M(a int) int { runs["main.Val.M"]++; return v.n + a }

type Ptr struct{ n int }

func (p *Ptr) M(a int) int { runs["main.(*Ptr).M"]++; return p.n * a }

// apply calls a function value that may be any of seven functions.
func apply(f func(int) int, n int) int { return f(n) }

// Handler is a function type whose method calls its receiver.
type Handler func(int) int

func (h Handler) Serve(a int) int { return h(a) + 1 }

type Shape interface{ Area(k int) int }

type Sq struct{ n int }

func (q *Sq) Area(k int) int { runs["main.(*Sq).Area"]++; return q.n * k }

type Circ struct{ n int }

func (c Circ) Area(k int) int { runs["main.Circ.Area"]++; return c.n + k }

// total calls Area through the interface.
func total(ss []Shape, k int) int {
	t := 0
	for _, s := range ss {
		t += s.Area(k)
	}
	return t
}

func main() {
	k := 3
	closure := func(a int) int { runs["main.main.func1"]++; return U4(a) * k }
	v, p := Val{1}, &Ptr{2}
	fs := []func(int) int{U1, U2, closure, v.M, p.M, Twice[int]}
	s := 0
	for i := 0; i < 12; i++ {
		s += apply(fs[(i*i+i/3)%len(fs)], i)
	}
	for i := 0; i < 5; i++ {
		h := Handler(U5)
		if i%2 == 0 {
			h = Handler(U3)
		}
		s += h.Serve(i)
	}
	shapes := []Shape{&Sq{2}, Circ{3}, &Sq{4}}
	for i := 0; i < 4; i++ {
		s += total(shapes[:1+i%3], i)
	}
	fmt.Println("sum", s)
	var lines []string
	for fn, n := range runs {
		lines = append(lines, fmt.Sprintf("%s %s %d", callerOf[fn], fn, n))
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
}
