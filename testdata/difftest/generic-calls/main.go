// Class: calls made to a generic function and to a method of a generic
// type are not seen (issue 10, class 4). M calls Pick (a generic
// function) and (*Box[...]).Put (a method of a generic type) directly,
// twice each; pmm answers, in every mode, that M calls neither, that
// Pick returns nothing and that Put never runs, and in --mode straightforward and static that
// the negation "M calls no Pick" holds for every M. Found by the
// differential test.
package main

import "fmt"

func Pick[E int | string](a, b E, first bool) E {
	if first {
		return a
	}
	return b
}

type Box[E any] struct{ v E }

func (bx *Box[E]) Put(x E, n int) int {
	bx.v = x
	return n + 1
}

func M(n int) int {
	acc := Pick(n, 2, n%2 == 0)
	acc += len(Pick("a", "bc", false))
	acc += (&Box[int]{}).Put(n, 1)
	acc += (&Box[string]{}).Put("a", 2)
	return acc
}

func main() {
	s := 0
	for i := 0; i < 3; i++ {
		s += M(i)
	}
	fmt.Println(s)
}
