package main

import (
	"encoding/json"
	"fmt"
)

// The part of class 5: executions that return, that panic, and that
// recover a panic in their own deferred closure and so return normally.
// Each prints what pmm must record of it, as it knows it: "outcome F
// PANICKED RESULTS", RESULTS the JSON of the results it returned, or
// none when it panicked.

func expect(f string, panicked bool, results ...any) {
	r := "none"
	if !panicked {
		b, err := json.Marshal(results)
		if err != nil {
			panic(err)
		}
		r = string(b)
	}
	p := 0
	if panicked {
		p = 1
	}
	fmt.Println("outcome", f, p, r)
}

// Div recovers in its own deferred closure: it returns normally, with
// its named results as the closure left them.
func Div(a, b int) (q int, ok bool) {
	defer func() {
		if recover() != nil {
			q, ok = -1, false
		}
	}()
	q = a / b
	return q, true
}

// Twice recovers too, its results unnamed: it returns their zero values.
func Twice(n int) int {
	defer func() { recover() }()
	if n < 0 {
		panic("negative")
	}
	return 2 * n
}

// Fail panics when n > 0, and does not recover: it returns nothing.
func Fail(n int) int {
	if n > 0 {
		panic(n)
	}
	return n
}

// Guard recovers the panics of Fail: Fail panicked, Guard returns.
func Guard(n int) (r int) {
	defer func() {
		if recover() != nil {
			expect("main.Fail", true)
			r = 100
		}
	}()
	v := Fail(n)
	expect("main.Fail", false, v)
	return v
}

func outcomes() {
	for _, b := range []int{2, 0} {
		q, ok := Div(7, b)
		expect("main.Div", false, q, ok)
	}
	for _, n := range []int{4, -1} {
		expect("main.Twice", false, Twice(n))
	}
	for _, n := range []int{0, 5} {
		expect("main.Guard", false, Guard(n))
	}
}
