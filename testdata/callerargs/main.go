// Program callerargs has questions that compare a callee's parameter with
// its caller's: Outer(n) calls Inner(i) for i from 0 to 4, for n from 0
// to 7. Inner's parameter equals its caller's 5 times (n = i = 0..4) and
// exceeds it 4+3+2+1 = 10 times.
package main

import "fmt"

// Outer calls Inner five times.
func Outer(n int) int {
	s := 0
	for i := 0; i < 5; i++ {
		s += Inner(i)
	}
	return s + n
}

// Inner does a little work.
func Inner(i int) int { return i * i }

func main() {
	t := 0
	for n := 0; n < 8; n++ {
		t += Outer(n)
	}
	fmt.Println("total", t)
}
