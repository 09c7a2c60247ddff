// A call through an interface of another package whose implementations
// include an unexported type of that package (pb.circ): main cannot name
// it in a type switch, so pmm's call site once left the call out, and
// the answers about the executions it runs were flagged incomplete (the
// differential test, programs spread over packages, seeds 21, 23, 40
// and 46). m1 calls Shapes[i%2].Area(i) for i = 0, 1, 2: (*Sq).Area(0),
// circ.Area(1), (*Sq).Area(2).
package main

import "example.com/gen/pb"

func m1(a int) int {
	acc := 0
	for i := 0; i < 3; i++ {
		acc += pb.Shapes[i%2].Area(i + a - 1)
	}
	return acc
}

func main() {
	println("result", m1(1))
}
