// Program fig41 is the source program of Figure 4.1 of SmartMonitor
// (Liao 1992) written in Go: BOTH calls FOO (when its argument is
// positive) and BAR; IR calls only BAR.
package main

import "fmt"

// BOTH calls FOO when c is positive, and BAR always.
func BOTH(c int) int {
	s := 0
	if c > 0 {
		s += FOO(c)
	}
	return s + BAR(c)
}

// IR calls only BAR.
func IR(d int) int {
	return BAR(d)
}

// FOO does a little work that depends on its argument.
func FOO(c int) int {
	s := 0
	for i := 0; i < c*1000; i++ {
		s += i % 7
	}
	return s
}

// BAR does a little work that depends on its argument.
func BAR(c int) int {
	s := 0
	for i := 0; i < (c+3)*500; i++ {
		s += i % 5
	}
	return s
}

func main() {
	total := 0
	for i := -2; i <= 4; i++ {
		total += BOTH(i)
		total += IR(i)
	}
	fmt.Println("total", total)
}
