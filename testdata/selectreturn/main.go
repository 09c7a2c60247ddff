// Selects that are the last statement of a function returning a value:
// a select whose cases all end in a return or a panic, and select {},
// are terminating statements, and need no return after them. pmm
// rewrote each select into a switch on the case that fired, which is
// terminating only with a default: the generated code did not compile
// ("missing return"), in every mode. Each function's results say which
// case fired.
package main

import "fmt"

// Recv returns by its second case: b is closed.
func Recv(a, b chan int) int {
	select {
	case x := <-a:
		return x
	case y, ok := <-b:
		if !ok {
			return -1
		}
		return y
	}
}

// Send returns by its first case: c has room.
func Send(c, d chan int) int {
	select {
	case c <- 1:
		return 1
	case v := <-d:
		if v > 0 {
			return v
		}
		panic("not positive")
	}
}

// Forever returns 2 unless c is nil, where it blocks for ever.
func Forever(c chan int) int {
	if c != nil {
		return 2
	}
	select {}
}

func main() {
	b := make(chan int)
	close(b)
	fmt.Println(Recv(make(chan int), b), Send(make(chan int, 1), nil), Forever(make(chan int)))
}
