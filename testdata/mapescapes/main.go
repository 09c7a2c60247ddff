// Program mapescapes assigns maps' elements in the forms pmm rewrites
// (cmd/pmm TestCallSitesKeepEscapes): maps that escape and maps kept in
// the frame, keys converted from bytes, values that escape into the
// map, a memo filled by recursion, ++ and op-assignments, a map of
// maps, a field's map and a map in a slice. The instrumented build
// must put on the heap what the plain build does, no more. Its
// functions are not inlined, in either build: pmm keeps a function whose
// allocations it records from being inlined (docs/MEMORY.md).
package main

import "fmt"

type node struct {
	next *node
	v    int
}

type index struct {
	byName map[string]*node
}

var sinkIndex *index

//go:noinline
func keys(words [][]byte) int {
	m := make(map[string]int) // kept in the frame
	for i, w := range words {
		m[string(w)] = i
		m[string(w)] += len(w)
	}
	return len(m)
}

//go:noinline
func nodes(n int) *index {
	ix := &index{byName: map[string]*node{}}
	for i := range n {
		ix.byName[fmt.Sprint(i)] = &node{v: i}
	}
	return ix
}

//go:noinline
func fib(memo map[int]int, n int) int {
	if v, ok := memo[n]; ok {
		return v
	}
	memo[n] = fib(memo, n-1) + fib(memo, n-2)
	return memo[n]
}

//go:noinline
func counts(text []string) map[string]int {
	c := map[string]int{}
	for _, w := range text {
		c[w]++
	}
	return c
}

//go:noinline
func grid(n int) int {
	rows := []map[int]bool{{}, {}}
	nested := map[int]map[int]int{}
	for i := range n {
		rows[i%2][i] = true
		if nested[i%3] == nil {
			nested[i%3] = map[int]int{}
		}
		nested[i%3][i] <<= 1
		nested[i%3][i] |= i
	}
	return len(rows[0]) + len(rows[1]) + len(nested)
}

func main() {
	words := [][]byte{[]byte("a"), []byte("bb"), []byte("ccc")}
	sinkIndex = nodes(20)
	memo := map[int]int{0: 0, 1: 1}
	c := counts([]string{"x", "y", "x", "z"})
	fmt.Println(keys(words), len(sinkIndex.byName), fib(memo, 50), c["x"], grid(30))
}
