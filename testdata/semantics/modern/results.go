package main

import (
	"errors"
	"fmt"
)

func unnamed(a, b int) (int, string) {
	if a > b {
		return a - b, "gt"
	}
	return b - a, "le"
}

func named(a int) (x int, err error) {
	x = a * 2
	if a < 0 {
		err = errors.New("negative")
		return
	}
	return x + 1, nil
}

// bare sets its result, then a deferred closure changes it after return.
func bare(a int) (n int) {
	n = a
	defer func() { n *= 10 }()
	return
}

// deferAdds returns a, which a deferred closure then changes.
func deferAdds(a int) (n int) {
	defer func() { n += 100 }()
	return a
}

func multi(a int) (int, int, int) { return a, a + 1, a + 2 }

// passThrough returns a multi-valued call.
func passThrough(a int) (int, int, int) { return multi(a) }

func passThroughNamed(a int) (x, y, z int) {
	if a > 5 {
		return multi(a * 2)
	}
	x, y, z = multi(a)
	return
}

func blankResults(a int) (_ int, _ string) { return a, "blank" }

func mixedResults(a int) (_ int, err error) {
	defer func() {
		if a == 0 {
			err = errors.New("zero")
		}
	}()
	return a * 3, nil
}

func blankParams(_ int, b int, _ string) int { return b }

func unnamedParams(int, string) int { return 7 }

func shadow(a int) (r int) {
	{
		r := a * 3
		_ = r
	}
	r = a
	return
}

func empty() {}

func emptyWithParam(int) {}

func noResults(a int) {
	if a > 0 {
		fmt.Println("noResults positive")
		return
	}
	fmt.Println("noResults not positive")
}

func labelled(n int) (s int) {
loop:
	if n > 0 {
		s += n
		n--
		goto loop
	}
	return
}

func switchReturn(v any) string {
	switch v := v.(type) {
	case int:
		return fmt.Sprint("int ", v)
	case string:
		return "string " + v
	}
	return "other"
}

func results() {
	a, b := unnamed(3, 1)
	rec("main.unnamed", []any{3, 1}, 0, a, b)
	fmt.Println(unnamed(1, 3))
	x, err := named(4)
	rec("main.named", []any{4}, 0, x, err)
	x, err = named(-1)
	rec("main.named", []any{-1}, 0, x, err)
	n := bare(7)
	rec("main.bare", []any{7}, 0, n)
	n = deferAdds(5)
	rec("main.deferAdds", []any{5}, 0, n)
	fmt.Println(multi(1))
	p, q, r := passThrough(2)
	rec("main.passThrough", []any{2}, 0, p, q, r)
	fmt.Println(passThroughNamed(3))
	p, q, r = passThroughNamed(9)
	rec("main.passThroughNamed", []any{9}, 0, p, q, r)
	fmt.Println(blankResults(4))
	m, err := mixedResults(0)
	rec("main.mixedResults", []any{0}, 0, m, err)
	fmt.Println(mixedResults(2))
	fmt.Println(blankParams(1, 2, "x"), unnamedParams(1, "y"), shadow(6))
	empty()
	emptyWithParam(3)
	func() {}()
	noResults(1)
	noResults(-1)
	fmt.Println(labelled(4), switchReturn(3), switchReturn("s"), switchReturn(1.5))
}
