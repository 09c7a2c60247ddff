package main

import (
	"errors"
	"fmt"
	"os"
	"sync"
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

func goPanic() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		index(nil, 1)
	}()
	wg.Wait()
}

func exitInside(code int) int {
	defer fmt.Println("not printed: deferred before os.Exit")
	fmt.Println("exiting with", code)
	fmt.Fprintln(os.Stderr, "stderr before exit")
	os.Exit(code)
	return 0
}
