// Class: a panic that unwinds through a region of a function whose own
// deferred call recovers (regions, issue 14). M's switch, labeled sw,
// panics when M's parameter is 2; M's deferred closure (main.M.func1)
// recovers. The region ends at the first point where control leaves the
// statement (docs/LANGUAGE.md, Regions): at the panic, before M's
// deferred calls run, as it ends before them at a return. Found by the
// differential test (seed 8 of internal/progen with every feature, its
// question q11-region-before): in every mode pmm ends the region when its
// deferred unwind runs, which M registers at the top of its body, before
// the closure, so that it runs after the closure: pmm's region contains
// the closure's execution and does not end before it.
package main

import "fmt"

func L(a int) int { return a + 1 }

func M(a int) (res int) {
	defer func() {
		if r := recover(); r != nil {
			res = 9
		}
	}()
	acc := 0
sw:
	switch a {
	case 0:
		acc += L(a)
		if acc > 0 {
			break sw
		}
	case 2:
		panic("M")
	default:
		acc++
	}
	return acc
}

func main() {
	s := 0
	for i := 0; i < 4; i++ {
		s += M(i)
	}
	fmt.Println(s)
}
