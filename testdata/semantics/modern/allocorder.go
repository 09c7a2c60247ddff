package main

import "fmt"

type boxed struct{ v int }

var boxes []*boxed

// allocOrder's allocations read variables a call after them in their
// statement changes: Go evaluates such an operand after the call, so
// pmm leaves them unwrapped (its helper, a call, would read them
// before); those no call follows are wrapped.
func allocOrder() {
	x := make([]int, 1)
	x[0] = 1
	x = append(x, func() int { x = []int{9, 9}; return 3 }())
	fmt.Println("append", x)

	bs := []byte("hello")
	s := fmt.Sprint(string(bs), func() int { bs = []byte("world"); return 1 }())
	fmt.Println("conversion", s)

	v := 1
	p, q := &boxed{v: v}, func() int { v = 5; return 0 }()
	boxes = append(boxes, p)
	fmt.Println("composite", p.v, q)

	w := 2
	r := &boxed{v: w}
	boxes = append(boxes, r)
	fmt.Println("no call after", r.v, string(bs)+"!")
}

// allocConstOrder's allocation reads no variable: a call after it in
// its statement changes nothing it reads, and it is wrapped.
func allocConstOrder() {
	p, n := &boxed{v: 3}, func() int { return len(boxes) }()
	boxes = append(boxes, p)
	fmt.Println("constant", p.v, n)
}
