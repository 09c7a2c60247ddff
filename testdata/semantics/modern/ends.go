package main

import (
	"errors"
	"fmt"
	"os"
)

func panicDeep(n int) int {
	if n == 0 {
		panic(fmt.Sprintf("deep %d", n))
	}
	return panicDeep(n-1) + 1
}

func index(xs []int, i int) int {
	return xs[i]
}

func writeNil(m map[string]int, k string) {
	m[k]++
}

type codeError struct{ code int }

func (e *codeError) Error() string { return fmt.Sprint("code ", e.code) }

func panicError() {
	panic(fmt.Errorf("wrapped: %w", &codeError{7}))
}

func repanic() {
	defer func() {
		r := recover()
		panic(fmt.Sprint("again: ", r))
	}()
	panic(errors.New("first"))
}

// goPanic ends the program by a panic on another goroutine. main waits
// for nothing but that panic: had it waited on a WaitGroup that a
// deferred Done releases, Done would run while the goroutine panics, and
// main's return would race the panic's exit status (2 or 0, by timing,
// instrumented or not).
func goPanic() {
	go func() {
		index(nil, 1)
	}()
	select {}
}

func exitInside(code int) int {
	defer fmt.Println("not printed: deferred before os.Exit")
	fmt.Println("exiting with", code)
	fmt.Fprintln(os.Stderr, "stderr before exit")
	os.Exit(code)
	return 0
}
