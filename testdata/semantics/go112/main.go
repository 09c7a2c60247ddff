// Program old is instrumented under a go 1.12 directive: the code pmm
// injects may use no generics, any, min, max or range over an int.
package main

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
)

type shape interface{ area() float64 }

type rect struct{ w, h float64 }

func (r rect) area() float64 { return r.w * r.h }

type circle struct{ r float64 }

func (c *circle) area() float64 { return 3 * c.r * c.r }

func total(shapes ...shape) (t float64) {
	for _, s := range shapes {
		t += s.area()
	}
	return
}

func divide(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	q = a / b
	return
}

func recoverer() {
	if r := recover(); r != nil {
		fmt.Println("recovered", r)
	}
}

func guarded() {
	defer recoverer()
	panic("guarded")
}

func pair(a int) (int, error) {
	if a < 0 {
		return 0, errors.New("negative")
	}
	return a * 2, nil
}

func pass(a int) (int, error) { return pair(a) }

func noop() {}

//go:noinline
func closures() []func() string {
	name := func(f interface{}) string { return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name() }
	inner := func() string {
		nested := func() string { return "nested" }
		return nested() + " " + name(nested)
	}
	return []func() string{inner, func() string { return name(inner) }}
}

func join(sep string, parts ...string) string { return strings.Join(parts, sep) }

func work(n int, wg *sync.WaitGroup, out chan<- int) {
	defer wg.Done()
	out <- n * n
}

func crash(n int) int {
	if n == 0 {
		var m map[string]int
		m["x"] = 1
	}
	return crash(n-1) + 1
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "panic" {
		fmt.Println(crash(2))
		return
	}
	fmt.Println(total(rect{2, 3}, &circle{1}), total())
	fmt.Println(divide(7, 2))
	fmt.Println(divide(1, 0))
	guarded()
	fmt.Println(pair(-1))
	q, err := pass(4)
	fmt.Println(q, err)
	noop()
	for _, f := range closures() {
		fmt.Println(f())
	}
	fmt.Println(join("-", "a", "b"), join("+"), join(",", []string{"x", "y"}...))
	var wg sync.WaitGroup
	out := make(chan int, 3)
	for i := 1; i <= 3; i++ {
		wg.Add(1)
		go work(i, &wg, out)
	}
	wg.Wait()
	close(out)
	var got []int
	for v := range out {
		got = append(got, v)
	}
	sort.Ints(got)
	fmt.Println(got)
	fmt.Fprintln(os.Stderr, "stderr line")
}
