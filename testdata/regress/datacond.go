package main

import "fmt"

// The part of class 8: a queue whose length the questions read with
// data-conditions at the begin and at the end of executions. The
// expression names q, which only some functions have: in the others the
// event cannot match, and their sites must still be instrumented.

type queue struct{ items []int }

func (q *queue) push(v int) { q.items = append(q.items, v) }

func (q *queue) drain(n int) { q.items = q.items[:len(q.items)-n] }

// fill pushes n items.
func fill(q *queue, n int) {
	for i := 0; i < n; i++ {
		q.push(i)
	}
}

func dataConds() {
	q := &queue{}
	var beginSum, endSum, big, grows int
	for _, n := range []int{3, 2, 0} {
		before := len(q.items)
		fill(q, n)
		after := len(q.items)
		beginSum += before
		endSum += after
		if before >= 3 {
			big++
		}
		if after > before {
			grows++
		}
	}
	q.drain(4)
	fmt.Println("want fill_begin", beginSum)
	fmt.Println("want fill_end", endSum)
	fmt.Println("want big_fills", big)
	fmt.Println("want growing_fills", grows)
	fmt.Println("want drain_end", len(q.items))
}
