package main

import (
	"fmt"
	"strings"
)

var (
	evalLog    []string
	traceCalls int
)

func trace(s string, v int) int {
	traceCalls++
	evalLog = append(evalLog, s)
	return v
}

func add(a, b int) int { return a + b }
func mul(a, b int) int { return a * b }

func truthy(s string, v bool) bool {
	evalLog = append(evalLog, s)
	return v
}

func pick(s string) func(int) int {
	evalLog = append(evalLog, "pick "+s)
	return func(x int) int { return x + len(s) }
}

func expressions() {
	evalLog = nil
	x := add(mul(trace("a", 2), trace("b", 3)), mul(trace("c", 4), add(trace("d", 1), trace("e", 1))))
	fmt.Println(x, strings.Join(evalLog, ","))
	evalLog = nil
	if truthy("t1", true) || truthy("t2", true) {
		fmt.Println("or short-circuits", evalLog)
	}
	evalLog = nil
	if truthy("f1", false) && truthy("f2", true) {
		fmt.Println("unreachable")
	}
	fmt.Println("and short-circuits", evalLog)
	evalLog = nil
	fmt.Println(pick("ab")(trace("arg", 1)), evalLog)
	evalLog = nil
	m := map[int]int{trace("k", 1): trace("v", 2)}
	arr := []int{trace("i0", 0), add(trace("i1", 1), 0)}
	fmt.Println(m, arr, evalLog)
	y := 1
	y += add(y, trace("y", y))
	fmt.Println(y, len(fmt.Sprint(add(1, 2))))
	ch := make(chan int, 1)
	ch <- add(2, 3)
	fmt.Println(<-ch, func() int { return add(7, 8) }())
	fmt.Println("count main.trace", traceCalls)
}
