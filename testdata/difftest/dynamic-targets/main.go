// Class: calls through function values that may reach several
// functions (issue 10, class 2). F calls ops[0] (always U1) three times
// with equal arguments and shapes[0].Area (always (*Sq).Area) twice: the
// reference has four repeated calls of U1, none of U2 or Circ.Area. pmm
// refuses the call site ops[0](a) ("may be any of 2 functions", a
// warning only) and answers that F never repeats a call of U1: silently
// incomplete. Found by the differential test (the cache question on a
// function value's target; in a larger program, seed 6 of the full run,
// pmm also counted calls of U2 that never happened).
package main

import "fmt"

func U1(a int) int { return a + 1 }

func U2(a int) int { return a + 2 }

var ops = []func(int) int{U1, U2}

type Shape interface{ Area(k int) int }

type Sq struct{ n int }

func (q *Sq) Area(k int) int { return q.n * k }

type Circ struct{ n int }

func (c Circ) Area(k int) int { return c.n + k }

var shapes = []Shape{&Sq{n: 2}, Circ{n: 3}}

func F(a int) int {
	acc := 0
	for i := 0; i < 3; i++ {
		acc += ops[0](a)
	}
	acc += shapes[0].Area(a) + shapes[0].Area(a)
	return acc
}

func main() {
	s := 0
	for i := 0; i < 2; i++ {
		s += F(i)
	}
	fmt.Println(s)
}
