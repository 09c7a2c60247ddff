// The traced twin of ../main.go (trace.go is internal/progen's tracer).
package main

import "fmt"

func U1(a int) (res int) {
	id, ok := trBegin("main.U1", a)
	defer trEnd(id, &ok, trRes(&res))
	res = a + 1
	ok = true
	return res
}

func U2(a int) (res int) {
	id, ok := trBegin("main.U2", a)
	defer trEnd(id, &ok, trRes(&res))
	res = a + 2
	ok = true
	return res
}

var ops = []func(int) int{U1, U2}

type Shape interface{ Area(k int) int }

type Sq struct{ n int }

func (q *Sq) Area(k int) (res int) {
	id, ok := trBegin("main.(*Sq).Area", k)
	defer trEnd(id, &ok, trRes(&res))
	res = q.n * k
	ok = true
	return res
}

type Circ struct{ n int }

func (c Circ) Area(k int) (res int) {
	id, ok := trBegin("main.Circ.Area", k)
	defer trEnd(id, &ok, trRes(&res))
	res = c.n + k
	ok = true
	return res
}

var shapes = []Shape{&Sq{n: 2}, Circ{n: 3}}

func F(a int) (res int) {
	id, ok := trBegin("main.F", a)
	defer trEnd(id, &ok, trRes(&res))
	acc := 0
	for i := 0; i < 3; i++ {
		acc += ops[0](a)
	}
	acc += shapes[0].Area(a) + shapes[0].Area(a)
	res = acc
	ok = true
	return res
}

func main() {
	id, ok := trBegin("main.main")
	defer trFinish()
	defer trEnd(id, &ok)
	s := 0
	for i := 0; i < 2; i++ {
		s += F(i)
	}
	fmt.Println(s)
	ok = true
}
