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
	defer func() {
		id1, ok1 := trBegin("main.M.func1")
		defer trEnd(id1, &ok1)
		if r := recover(); r != nil {
			res = 9
			ok = true // M returns normally
		}
		ok1 = true
	}()
	// Registered after the closure, the unwind runs before it.
	var r1 int64
	defer trRUnwind(&r1)
	acc := 0
	r1 = trRB("main.M", "sw")
sw:
	switch a {
	case 0:
		acc += L(a)
		if acc > 0 {
			break sw
		}
	case 2:
		panic("M")
	default:
		acc++
	}
	trRE(&r1)
	res = acc
	ok = true
	return res
}

func main() {
	id, ok := trBegin("main.main")
	defer trFinish()
	defer trEnd(id, &ok)
	s := 0
	for i := 0; i < 4; i++ {
		s += M(i)
	}
	fmt.Println(s)
	ok = true
}
