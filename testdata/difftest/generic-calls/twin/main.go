// The traced twin of ../main.go (trace.go is internal/progen's tracer).
package main

import "fmt"

func Pick[E int | string](a, b E, first bool) (res E) {
	id, ok := trBegin("main.Pick[...]", a, b, first)
	defer trEnd(id, &ok, trRes(&res))
	if first {
		res = a
		ok = true
		return res
	}
	res = b
	ok = true
	return res
}

type Box[E any] struct{ v E }

func (bx *Box[E]) Put(x E, n int) (res int) {
	id, ok := trBegin("main.(*Box[...]).Put", x, n)
	defer trEnd(id, &ok, trRes(&res))
	bx.v = x
	res = n + 1
	ok = true
	return res
}

func M(n int) (res int) {
	id, ok := trBegin("main.M", n)
	defer trEnd(id, &ok, trRes(&res))
	acc := Pick(n, 2, n%2 == 0)
	acc += len(Pick("a", "bc", false))
	acc += (&Box[int]{}).Put(n, 1)
	acc += (&Box[string]{}).Put("a", 2)
	res = acc
	ok = true
	return res
}

func main() {
	id, ok := trBegin("main.main")
	defer trFinish()
	defer trEnd(id, &ok)
	s := 0
	for i := 0; i < 3; i++ {
		s += M(i)
	}
	fmt.Println(s)
	ok = true
}
