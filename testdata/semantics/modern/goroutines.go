package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"sync"
)

func worker(id int, wg *sync.WaitGroup, out chan<- int) {
	defer wg.Done()
	out <- id * id
}

func goroutines() {
	var wg sync.WaitGroup
	out := make(chan int, 10)
	for i := 1; i <= 4; i++ {
		wg.Add(1)
		go worker(i, &wg, out)
	}
	wg.Add(1)
	go func(n int) {
		defer wg.Done()
		out <- n
	}(100)
	c := &counter{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.Add(1)
	}()
	wg.Wait()
	close(out)
	var got []int
	for v := range out {
		got = append(got, v)
	}
	sort.Ints(got)
	fmt.Println(got, c.n)
}

func goexitWorker(done chan<- string) (res int) {
	defer func() { done <- fmt.Sprint("deferred ran, res=", res, " recover=", recover()) }()
	res = 1
	runtime.Goexit()
	return 2
}

func goexitWorkerCase() {
	done := make(chan string)
	go goexitWorker(done)
	fmt.Println(<-done)
}

// goexitMain ends the main goroutine with runtime.Goexit; another
// goroutine ends the program.
func goexitMain() {
	release := make(chan bool)
	go func() {
		<-release
		fmt.Println("other goroutine exits the program")
		os.Exit(4)
	}()
	defer close(release)
	defer fmt.Println("main's deferred calls run")
	runtime.Goexit()
}

// goShapes starts goroutines by go statements of every shape: a method
// value of a pointer and of a value receiver, a method expression, a
// generic function (inferred and instantiated), a variadic call with
// and without a spread, a function value, and arguments with effects
// whose order of evaluation shows: each reads and bumps seq, and the
// go statement evaluates them, in order, before the goroutine runs.
func goShapes() {
	var wg sync.WaitGroup
	seq := 0
	next := func() int { seq++; return seq }
	got := make(chan string, 16)
	note := func(what string, vs ...int) {
		defer wg.Done()
		got <- fmt.Sprint(what, vs)
	}
	c := &counter{n: 5}
	wg.Add(9)
	go c.Add(next()).note(&wg, got, "method value", next())
	v := counter{n: 7}
	go v.report(&wg, got, next())
	v.n = 8 // the receiver was copied at the go statement
	go (*counter).note(c, &wg, got, "method expression", next())
	go sendSum(&wg, got, next(), next())
	go sendSum[int64](&wg, got, 10, int64(next()))
	go note("variadic", next(), next(), next())
	go note("spread", []int{next(), next()}...)
	f := note
	go f("function value", seq)
	go func(a, b int) {
		defer wg.Done()
		got <- fmt.Sprint("literal ", a, b)
	}(next(), next())
	wg.Wait()
	for _, l := range spawnEach([]string{"x", "y"}, func(s string) string { return "in a generic function " + s }) {
		got <- l
	}
	close(got)
	var lines []string
	for l := range got {
		lines = append(lines, l)
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
}

func (c *counter) note(wg *sync.WaitGroup, got chan<- string, what string, k int) {
	defer wg.Done()
	got <- fmt.Sprint(what, " n=", c.n, " k=", k)
}

func (c counter) report(wg *sync.WaitGroup, got chan<- string, k int) {
	defer wg.Done()
	got <- fmt.Sprint("value receiver n=", c.n, " k=", k)
}

// spawnEach is a generic function whose go statements start a generic
// function and a literal, each once per element.
func spawnEach[T any](xs []T, f func(T) string) []string {
	var wg sync.WaitGroup
	out := make([]string, 2*len(xs))
	for i, x := range xs {
		wg.Add(2)
		go fillAt(&wg, out, 2*i, f, x)
		go func(i int, x T) {
			defer wg.Done()
			out[i] = "literal " + f(x)
		}(2*i+1, x)
	}
	wg.Wait()
	return out
}

func fillAt[T any](wg *sync.WaitGroup, out []string, i int, f func(T) string, x T) {
	defer wg.Done()
	out[i] = f(x)
}

// sendSum is a generic function a go statement starts.
func sendSum[T int | int64](wg *sync.WaitGroup, got chan<- string, a, b T) {
	defer wg.Done()
	got <- fmt.Sprint("generic ", a+b)
}
