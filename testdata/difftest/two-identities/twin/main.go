// The traced twin of ../main.go (trace.go is internal/progen's tracer).
package main

import "fmt"

func L(a int) (res int) {
	id, ok := trBegin("main.L", a)
	defer trEnd(id, &ok, trRes(&res))
	res = a + 1
	ok = true
	return res
}

func M(a int) (res int) {
	id, ok := trBegin("main.M", a)
	defer trEnd(id, &ok, trRes(&res))
	res = L(a) + L(a+1)
	ok = true
	return res
}

func Fib(n int) (res int) {
	id, ok := trBegin("main.Fib", n)
	defer trEnd(id, &ok, trRes(&res))
	if n < 2 {
		res = n
		ok = true
		return res
	}
	res = Fib(n-1) + Fib(n-2)
	ok = true
	return res
}

func main() {
	id, ok := trBegin("main.main")
	defer trFinish()
	defer trEnd(id, &ok)
	s := 0
	for i := 0; i < 3; i++ {
		s += M(i) + L(i)
	}
	fmt.Println(s + Fib(4))
	ok = true
}
