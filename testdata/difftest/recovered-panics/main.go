// Class: executions that panic, and deferred closures that recover
// (issue 10, class 5). L panics when its parameter is 2; Area calls L
// and does not recover, so Area panics too and returns nothing; M calls
// Area and recovers in its deferred closure (main.M.func1), so M returns
// normally with the result the closure sets. Found by the differential
// test: in every mode pmm gives the executions that panicked a result
// (0), reports M as panicked, and misses the deferred closure as a
// callee of M.
package main

import "fmt"

func L(a int) int {
	if a == 2 {
		panic("L")
	}
	return a + 1
}

func Area(a int) int { return L(a) * 2 }

func M(a int) (res int) {
	defer func() {
		if r := recover(); r != nil {
			res = 9
		}
	}()
	return Area(a) + 1
}

func main() {
	s := 0
	for i := 0; i < 4; i++ {
		s += M(i)
	}
	fmt.Println(s)
}
