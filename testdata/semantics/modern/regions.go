package main

import (
	"errors"
	"fmt"
	"sync"
)

// Regions, loop iterations and blocking operations: every labeled
// statement, marked statement, loop and blocking operation here is a
// site of the questions, and the output must stay the program's.

// labels leaves its regions by every branch statement.
func labels(n int) (out []string) {
	i := 0
again:
	for {
		i++
		if i > n {
			break again
		}
	inner:
		for j := 0; j < 3; j++ {
			switch {
			case j == 1 && i%2 == 0:
				continue again
			case j == 2:
				break inner
			}
			out = append(out, fmt.Sprint(i, j))
		}
		if i == 3 {
			goto skip
		}
		out = append(out, "tail")
	skip:
	}
	return out
}

// deferInLoop defers inside a loop region, and returns from inside it
// with several results, one named by the deferred function.
func deferInLoop(xs []int) (sum int, err error) {
	defer func() {
		if sum > 10 {
			err = errors.New("big")
		}
	}()
walk:
	for i, x := range xs {
		defer func(i int) { sum += i }(i)
		if x < 0 {
			return sum, fmt.Errorf("negative at %d", i)
		}
		if x == 0 {
			break walk
		}
		sum += x
	}
	return sum, nil
}

// selects uses a select with default and receives from a closed channel.
func selects() []string {
	var out []string
	ch := make(chan int, 1)
	done := make(chan struct{})
	close(done)
poll:
	for k := 0; k < 3; k++ {
		select {
		case v := <-ch:
			out = append(out, fmt.Sprint("got ", v))
		default:
			out = append(out, "empty")
			ch <- k
		}
		if k == 2 {
			break poll
		}
	}
	v, ok := <-done
	out = append(out, fmt.Sprint("closed ", v, ok))
	var never chan int // a nil channel: its case never proceeds
	select {
	case <-done:
		out = append(out, "done")
	case x := <-never:
		out = append(out, fmt.Sprint("late ", x))
	}
	return out
}

// panicky panics inside a marked region; its caller recovers.
func panicky(fail bool) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint("recovered ", r)
		}
	}()
	//pmm:region risky
	if fail {
		panic("inside the region")
	}
	msg = "fine"
	//pmm:end risky
	return msg
}

// locked waits on a mutex, a wait group and a condition.
func locked() int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	cond := sync.NewCond(&mu)
	n := 0
	ready := false
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			for !ready {
				cond.Wait()
			}
			n++
			mu.Unlock()
		}()
	}
	mu.Lock()
	ready = true
	cond.Broadcast()
	mu.Unlock()
	wg.Wait()
	return n
}

// retry waits in a labeled select that a goto runs again: pmm cannot
// begin it where the goto lands, and skips it.
func retry(ch chan int) int {
	n := 0
again:
	select { // run again by goto
	case v := <-ch:
		n += v
		if n < 3 {
			goto again
		}
	}
	return n
}

// chooseOne breaks out of its labeled select.
func chooseOne(ch chan int) int {
choose:
	select {
	case v := <-ch:
		if v > 0 {
			break choose
		}
		return -v
	}
	return 1
}

func regionsCases() {
	five := make(chan int, 1)
	five <- 5
	fmt.Println(chooseOne(five))
	three := make(chan int, 3)
	three <- 1
	three <- 1
	three <- 1
	fmt.Println(retry(three))
	fmt.Println(labels(5))
	fmt.Println(deferInLoop([]int{1, 2, 3}))
	fmt.Println(deferInLoop([]int{4, -1, 9}))
	fmt.Println(deferInLoop([]int{5, 0, 7}))
	fmt.Println(selects())
	fmt.Println(panicky(false), panicky(true))
	fmt.Println(locked())
}
