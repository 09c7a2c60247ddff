// Functions of the module that only code outside it calls: a closure
// sort.Slice calls, a function reflect.Value.Call calls, closures
// sync.WaitGroup.Go starts on goroutines of their own. Their direct
// caller (or spawner) is a function outside the module, called from
// outside it, which no site records: "who calls less" cannot be
// answered exactly, and pmm must say so. It found the questions empty,
// refused them ("can have no answer in this program") and, with
// -allow-empty, answered nothing without a word. What can be answered
// is: the executions themselves, and calls*, which follows callbacks.
// The program prints its own counts as "want NAME VALUE".
package main

import (
	"fmt"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
)

var lessCalls, doubles int
var jobs atomic.Int64

func less(a, b int) bool { lessCalls++; return a < b }

func sortAll(xs []int) {
	sort.Slice(xs, func(i, j int) bool { return less(xs[i], xs[j]) })
}

// Double is called through reflection only.
func Double(n int) int { doubles++; return 2 * n }

func viaReflect(n int) int {
	f := reflect.ValueOf(Double)
	s := 0
	for i := range n {
		s += int(f.Call([]reflect.Value{reflect.ValueOf(i)})[0].Int())
	}
	return s
}

func fanOut(n int) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { jobs.Add(1) })
	}
	wg.Wait()
}

func main() {
	xs := []int{5, 2, 8, 1, 9, 3}
	sortAll(xs)
	fmt.Println(xs, viaReflect(4))
	fanOut(3)
	fmt.Printf("want less_calls %d\nwant closure_calls %d\nwant doubles %d\nwant jobs %d\n", lessCalls, lessCalls, doubles, jobs.Load())
}
