// Class: a method on a function type that calls its receiver (issue 10,
// class 2): Serve calls U1 or U2 through h(a), whichever function the
// handler was made of. pmm sees no call from Serve. Found by the
// differential test (the callees of handler.Serve by name).
package main

import "fmt"

type Handler func(int) int

func (h Handler) Serve(a int) int { return h(a) + 1 }

func U1(a int) int { return a + 1 }

func U2(a int) int { return a * 2 }

func main() {
	s := 0
	for i := 0; i < 3; i++ {
		s += Handler(U1).Serve(i) + Handler(U2).Serve(1)
	}
	fmt.Println(s)
}
