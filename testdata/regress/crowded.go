package main

import "fmt"

// The part of class 1: a dozen questions and the branches of an or
// meet at each of these sites, in every mode. It counts for itself what
// each question answers and prints it as "want QUESTION N" lines.

// Counters kept by the program itself, for the want lines.
var (
	nA, nB, nC       int // executions
	nBfromA, nBfromC int // executions of B called directly by A, by C
	nCfromA          int
	sumA             int // the sum of A's parameters
	nAnoC            int // executions of A that call no C
	nEvenA           int // executions of A whose parameter is 0, 2 or 4
	nMaxInPick       int // executions of Max called by Pick
	nPickNoMax       int // executions of Pick that call no Max
)

// A calls B, and C when n is even.
func A(n int) int {
	nA++
	sumA += n
	if n == 0 || n == 2 || n == 4 {
		nEvenA++
	}
	nBfromA++
	s := B(n)
	if n%2 == 0 {
		nCfromA++
		s += C(n)
	} else {
		nAnoC++
	}
	return s
}

// B is a leaf.
func B(n int) int {
	nB++
	return n + 1
}

// C calls B.
func C(n int) int {
	nC++
	nBfromC++
	return B(n) * 2
}

// Max is generic, and a leaf.
func Max[T int | float64](a, b T) T {
	if a > b {
		return a
	}
	return b
}

// Pick is generic, and its call of Max is a call site inside a generic
// function, whose state cannot reach its caller's. (Questions about
// generic functions are issue 10's class 4, generics.go.)
func Pick[T int | float64](xs []T) T {
	m := xs[0]
	if len(xs) == 1 {
		nPickNoMax++
	}
	for _, x := range xs[1:] {
		nMaxInPick++
		m = Max(m, x)
	}
	return m
}

func crowded() {
	t := 0
	for i := 0; i < 6; i++ {
		t += A(i)
	}
	t += B(10) + C(3)
	t += Pick([]int{3, 1, 4, 1, 5}) + int(Pick([]float64{2, 7})) + Pick([]int{9})
	fmt.Println("total", t)
	fmt.Println("want a_or_b", nA+nB)
	fmt.Println("want a_or_c_under_main", nA+nC)
	fmt.Println("want b_called_by_a_or_c", nBfromA+nBfromC)
	fmt.Println("want b_in_a", nBfromA)
	fmt.Println("want a_calling_c", nCfromA)
	fmt.Println("want a_without_c", nAnoC)
	fmt.Println("want count_b", nB)
	fmt.Println("want sum_a", sumA)
	fmt.Println("want b_under_a_or_c", nBfromA+nBfromC)
	fmt.Println("want even_a", nEvenA)
	fmt.Println("want max_in_pick", nMaxInPick)
	fmt.Println("want pick_without_max", nPickNoMax)
}
