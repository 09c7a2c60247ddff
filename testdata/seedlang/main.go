// Program seedlang exercises the parts of the seed's language that
// appendix A of seed 001 names beside function-execution: list values,
// aggregates used as relations, interval and point, and
// function-invocation with function-name. It counts for itself what pmm
// must answer (questions.pmm) and prints it as "want NAME VALUE" lines.
package main

import (
	"fmt"
	"strconv"
)

// Pair returns its arguments as a pair of results.
func Pair(a int, s string) (int, string) { return a, s }

// Add adds.
func Add(a, b int) int { return a + b }

// Lookup looks key up in a small table.
func Lookup(key int) int { return key * key }

// Work makes a few direct calls, the executions the interval and point
// questions ask about.
func Work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += Add(i, 1)
	}
	return s + Lookup(n)
}

var counts = map[string]int{}

func want(name string, v int) { counts[name] = v }

func main() {
	// List values: the calls of Add whose parameters are (3 1), and of
	// Pair whose results are (3 "a").
	add31, addOther := 0, 0
	for i := 0; i < 5; i++ {
		for j := 0; j < 3; j++ {
			Add(i, j)
			if i == 3 && j == 1 {
				add31++
			} else {
				addOther++
			}
		}
	}
	pair3a, pairQuote := 0, 0
	for i, s := range []string{"a", "b", "a", "a", `q"x`} {
		a, _ := Pair(3-i%2, s)
		if a == 3 && s == "a" {
			pair3a++
		}
		if a == 3 && s == `q"x` {
			pairQuote++
		}
	}

	// Aggregates used as relations: keys looked up more than twice.
	// The lookups of every key, and those main makes itself (Work below
	// looks keys up too).
	perKey, byMain := map[int]int{}, map[int]int{}
	for _, k := range []int{1, 2, 1, 3, 1, 3, 3, 3, 4, 2} {
		Lookup(k)
		perKey[k]++
		byMain[k]++
	}

	// Interval and point events: the executions Work calls directly,
	// and the points of executions inside Work.
	called, points := 0, 0
	for _, n := range []int{2, 0, 3} {
		Work(n)
		perKey[n]++           // Work(n) looks n up
		called += n + 1       // n calls of Add, one of Lookup
		points += 2 * (n + 1) // each begins and ends inside Work
	}

	hot, hotLookups, coldLookups := 0, 0, 0
	for k, n := range perKey {
		if n > 2 {
			hot++
			hotLookups += byMain[k]
		} else {
			coldLookups += byMain[k]
		}
	}

	want("list_params", add31)
	want("list_params_other", addOther)
	want("list_results", pair3a)
	want("list_results_quote", pairQuote)
	want("hot_keys", hot)
	want("hot_key_lookups", hotLookups)
	want("count_hot_keys", hot)
	want("cold_key_lookups", coldLookups)
	want("invocations_of_add", 5*3+called-3)
	want("called_by_work", called)
	want("named_adds", 5*3+called-3)
	want("named_lookups_in_work", 3) // one Lookup in each of the three Works
	want("not_add_in_work", 3)
	want("add_end_points", 5*3+called-3)
	want("points_in_work", points)
	for _, name := range []string{"list_params", "list_params_other", "list_results", "list_results_quote", "hot_keys", "hot_key_lookups", "count_hot_keys", "cold_key_lookups",
		"invocations_of_add", "named_adds", "named_lookups_in_work", "not_add_in_work", "add_end_points", "called_by_work", "points_in_work"} {
		fmt.Println("want " + name + " " + strconv.Itoa(counts[name]))
	}
	fmt.Println("want callee_names main.Add,main.Lookup")
}
