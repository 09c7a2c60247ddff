// The traced twin of ../main.go: the same program, every execution
// recorded by hand (trace.go is internal/progen's tracer).
package main

import "fmt"

func A(n int) (res int) {
	id, ok := trBegin("main.A", n)
	defer trEnd(id, &ok, trRes(&res))
	res = n + 1
	ok = true
	return res
}

func B(n int) (res int) {
	id, ok := trBegin("main.B", n)
	defer trEnd(id, &ok, trRes(&res))
	res = n * 2
	ok = true
	return res
}

func main() {
	id, ok := trBegin("main.main")
	defer trFinish()
	defer trEnd(id, &ok)
	s := 0
	for i := 0; i < 3; i++ {
		s += A(i) + B(i%2)
	}
	fmt.Println(s)
	ok = true
}
