package main

import (
	"fmt"
	"reflect"
	"runtime"
)

// The functions whose closures' names are printed are not inlined: the
// compiler names a closure after the function it is inlined into
// (main.closures.makeClosures.func2), and an instrumented function, which
// defers, is not inlined.

func funcName(f any) string { return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name() }

// self returns the name of the function that calls it, and the line.
func self() string {
	pc, _, line, _ := runtime.Caller(1)
	return fmt.Sprint(runtime.FuncForPC(pc).Name(), " ", line)
}

//go:noinline
func makeClosures() []func() int {
	a := func() int { return 1 }
	b := func() int {
		c := func() int { return 2 }
		d := func() int {
			e := func() int { return 3 }
			return e()
		}
		fmt.Println("inner", funcName(c), funcName(d))
		return c() + d()
	}
	return []func() int{a, b}
}

//go:noinline
func counterFunc() func() int {
	n := 0
	return func() int {
		n++
		pc, _, line, _ := runtime.Caller(0)
		fmt.Println("counter", runtime.FuncForPC(pc).Name(), line)
		return n
	}
}

//go:noinline
func call(f func()) { f() }

var pkgClosure = func(x int) int { return x * 2 }

//go:noinline
func closures() {
	for _, f := range makeClosures() {
		fmt.Println(funcName(f), f())
	}
	c := counterFunc()
	c()
	fmt.Println(funcName(c), c())
	fmt.Println(funcName(pkgClosure), pkgClosure(4))
	fmt.Println(funcName(makeClosures), funcName(counterFunc), funcName(fmt.Println))
	g := func() {
		pc, _, line, _ := runtime.Caller(0)
		fmt.Println("literal", runtime.FuncForPC(pc).Name(), line)
		h := func() {
			pc, _, line, _ := runtime.Caller(0)
			fmt.Println("nested literal", runtime.FuncForPC(pc).Name(), line)
		}
		call(h)
		fmt.Println(funcName(h))
	}
	call(g)
	fmt.Println(funcName(g))
}
