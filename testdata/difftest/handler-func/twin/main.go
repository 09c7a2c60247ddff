// The traced twin of ../main.go (trace.go is internal/progen's tracer).
package main

import "fmt"

type Handler func(int) int

func (h Handler) Serve(a int) (res int) {
	id, ok := trBegin("main.Handler.Serve", a)
	defer trEnd(id, &ok, trRes(&res))
	res = h(a) + 1
	ok = true
	return res
}

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
	res = a * 2
	ok = true
	return res
}

func main() {
	id, ok := trBegin("main.main")
	defer trFinish()
	defer trEnd(id, &ok)
	s := 0
	for i := 0; i < 3; i++ {
		s += Handler(U1).Serve(i) + Handler(U2).Serve(1)
	}
	fmt.Println(s)
	ok = true
}
