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
