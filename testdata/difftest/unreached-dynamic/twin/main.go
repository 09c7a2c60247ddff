// The traced twin of ../main.go (trace.go is internal/progen's tracer).
package main

import "fmt"

type handler func(int) int

func (h handler) serve(a int) (res int) {
	id, ok := trBegin("main.handler.serve", a)
	defer trEnd(id, &ok, trRes(&res))
	res = (h(a) + 1) % 5
	ok = true
	return res
}

func u1(a int) (res int) {
	id, ok := trBegin("main.u1", a)
	defer trEnd(id, &ok, trRes(&res))
	res = (a + 1) % 4
	ok = true
	return res
}

func u2(a int) (res int) {
	id, ok := trBegin("main.u2", a)
	defer trEnd(id, &ok, trRes(&res))
	res = (a + 2) % 5
	ok = true
	return res
}

func m(a int) (res int) {
	id, ok := trBegin("main.m", a)
	defer trEnd(id, &ok, trRes(&res))
	f := u1
	if a > 1 {
		f = u2
	}
	cl := func(x int) (res int) {
		id, ok := trBegin("main.m.func1", x)
		defer trEnd(id, &ok, trRes(&res))
		res = u1(x) + 1
		ok = true
		return res
	}
	res = f(a) + cl(a) + u1(a%2)
	ok = true
	return res
}

func main() {
	id, ok := trBegin("main.main")
	defer trFinish()
	defer trEnd(id, &ok)
	s := 0
	for i := 0; i < 4; i++ {
		s += m(i)
	}
	fmt.Println(s)
	ok = true
}
