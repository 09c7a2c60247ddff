package main

import (
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"
)

// The part of class 4: generic functions and methods of generic types,
// instantiated with several types, which the questions name with and
// without their type arguments (main.Sum and main.Sum[...],
// main.(*Stack).Push and main.(*Stack[...]).Push): their parameters,
// results, the calls made inside them, negations over those calls, and
// the names the answers print, which are pprof's. It counts for itself
// what each question answers and prints it as "want QUESTION VALUE"
// lines.

// Counters kept by the program itself, for the want lines.
var (
	nPush, nPop, nPopEmpty, nLen int
	pushIntSum                   int // the int parameters of Push
	pushResultSum                int // the results of Push (the lengths)
	popIntSum                    int // the int results of the Pops that found an item
	nAdd, addIntSum              int // executions of Add, and the sum of their int results
	nSum, nSumNoAdd, nAddFromSum int
	nFill, nFillNoPush           int
	nPushFromFill, fromFillSum   int // the Pushes Fill calls, and the sum of their int parameters
	nLenUnderFill                int // executions of Len under an execution of Fill
	inFill                       bool
)

// funcName is the name the runtime gives the function value f (not the
// name of a frame: the instrumented program runs the calls of the
// questions' functions through pmm's wrappers).
func funcName(f any) string {
	return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
}

// Stack is a generic type whose methods take and return its type
// parameter.
type Stack[T any] struct{ items []T }

// Push calls Len, a call made inside a method of a generic type.
func (s *Stack[T]) Push(v T) int {
	nPush++
	if n, ok := any(v).(int); ok {
		pushIntSum += n
		if inFill {
			fromFillSum += n
		}
	}
	s.items = append(s.items, v)
	n := s.Len()
	pushResultSum += n
	return n
}

func (s *Stack[T]) Pop() (T, bool) {
	nPop++
	var zero T
	if len(s.items) == 0 {
		nPopEmpty++
		return zero, false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	if n, ok := any(v).(int); ok {
		popIntSum += n
	}
	return v, true
}

// Len has a value receiver.
func (s Stack[T]) Len() int {
	nLen++
	if inFill {
		nLenUnderFill++
	}
	return len(s.items)
}

// Add is a generic leaf.
func Add[T int | float64](a, b T) T {
	nAdd++
	r := a + b
	if n, ok := any(r).(int); ok {
		addIntSum += n
	}
	return r
}

// Sum calls Add inside a generic function, once per element after the
// first: not at all for fewer than two.
func Sum[T int | float64](xs []T) T {
	nSum++
	var s T
	if len(xs) < 2 {
		nSumNoAdd++
	}
	for i, x := range xs {
		if i == 0 {
			s = x
			continue
		}
		nAddFromSum++
		s = Add(s, x)
	}
	return s
}

// Fill pushes the values of xs other than skip: a generic function
// calling a method of a generic type.
func Fill[T comparable](s *Stack[T], xs []T, skip T) {
	nFill++
	inFill = true
	pushed := false
	for _, x := range xs {
		if x != skip {
			pushed = true
			nPushFromFill++
			s.Push(x)
		}
	}
	inFill = false
	if !pushed {
		nFillNoPush++
	}
}

func generics() {
	ints := &Stack[int]{}
	strs := &Stack[string]{}
	ints.Push(7)
	Fill(ints, []int{3, -1, 5}, -1)
	Fill(ints, []int{-1, -1}, -1)
	Fill(strs, []string{"a", "", "b"}, "")
	strs.Push("c")
	t := ints.Len() + strs.Len()
	for i := 0; i < 5; i++ {
		v, ok := ints.Pop()
		if ok {
			t += v
		}
	}
	if s, ok := strs.Pop(); ok {
		t += len(s)
	}
	t += Sum([]int{1, 2, 3}) + Sum([]int{4}) + int(Sum([]float64{1.5, 2.5})) + Sum([]int(nil))
	t += Add(10, 20) + int(Add(0.5, 0.25))
	fmt.Println("total", t)
	fmt.Println("want push_count", nPush)
	fmt.Println("want push_params", nPush)
	fmt.Println("want push_int_sum", pushIntSum)
	fmt.Println("want push_result_sum", pushResultSum)
	fmt.Println("want pops_found", nPop-nPopEmpty)
	fmt.Println("want pop_int_sum", popIntSum)
	fmt.Println("want empty_pops", nPopEmpty)
	fmt.Println("want len_count", nLen)
	fmt.Println("want add_results", nAdd)
	fmt.Println("want add_int_sum", addIntSum)
	fmt.Println("want add_in_sum", nAddFromSum)
	fmt.Println("want sum_without_add", nSumNoAdd)
	fmt.Println("want push_from_fill", nPushFromFill)
	fmt.Println("want push_from_fill_sum", fromFillSum)
	fmt.Println("want fill_without_push", nFillNoPush)
	fmt.Println("want len_under_fill", nLenUnderFill)
	fmt.Println("want callee_of_sum", funcName(Add[int]))
	callers := []string{funcName((*Stack[int]).Push), funcName(generics)} // the callers of Len, sorted
	sort.Strings(callers)
	fmt.Println("want callers_of_len", strings.Join(callers, ","))
}
