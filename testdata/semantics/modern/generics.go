package main

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

type Number interface {
	~int | ~int64 | ~float64
}

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Max[T cmp.Ordered](a, b T) T {
	if a > b {
		return a
	}
	return b
}

func Sum[T Number](xs ...T) (t T) {
	for _, x := range xs {
		t += x
	}
	return
}

func Identity[T any](x T) T { return x }

// Outer calls a generic function with its own type parameter.
func Outer[T any](x T) T { return Identity(x) }

func Keys[M ~map[K]V, K cmp.Ordered, V any](m M) []K {
	var ks []K
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(v T) {
	s.items = append(s.items, v)
	s.note(v)
}

func (s *Stack[T]) note(v T) { _ = v }

func (s *Stack[T]) Pop() (T, bool) {
	var zero T
	if len(s.items) == 0 {
		return zero, false
	}
	v := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}

// Len names the type parameter differently from the declaration.
func (st *Stack[E]) Len() int { return len(st.items) }

// Size leaves the type parameter blank.
func (s *Stack[_]) Size() int { return len(s.items) }

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func (p Pair[K, V]) String() string { return fmt.Sprint(p.Key, "=", p.Val) }

func MakePair[K comparable, V any](k K, v V) Pair[K, V] { return Pair[K, V]{k, v} }

// Pass is generic in its channel's type: pmm does not time a send or a
// receive on a channel whose type is a type parameter.
func Pass[C ~chan int](c C) int {
	c <- 1
	return <-c
}

type myInt int

func generics() {
	fmt.Println(Map([]int{1, 2, 3}, strconv.Itoa))
	fmt.Println(Map([]string{"a", "bb"}, func(s string) int { return len(s) }))
	fmt.Println(Max(3, 7), Max("a", "b"), Max[int64](4, 2))
	f := Max(1, 2.5)
	rec("main.Max[...]", []any{1, 2.5}, 0, f)
	fmt.Println(Sum(1, 2, 3), Sum(1.5, 2), Sum[myInt](), Sum([]myInt{4, 5}...))
	fmt.Println(Outer(9), Outer("o"), Identity[error](nil))
	fmt.Println(Keys(map[string]bool{"b": true, "a": false}))
	s := &Stack[string]{}
	s.Push("x")
	s.Push("y")
	fmt.Println(s.Len(), s.Size())
	fmt.Println(s.Pop())
	fmt.Println(s.Pop())
	fmt.Println(s.Pop())
	p := MakePair("k", 1)
	fmt.Println(p.String(), MakePair(1, []int{2}))
	fmt.Println(Pass(make(chan int, 1)))
	fmt.Println(slices.Index([]int{5, 6, 7}, 6), slices.Contains([]string{"a"}, "a"))
}
