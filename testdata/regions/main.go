// Command regions runs labeled regions whose executions it counts itself,
// for the region questions of cmd/pmm's TestRegions: every way out of a
// region (its end, break, continue, goto, return, panic) ends it once.
package main

import (
	"fmt"
	"sort"
	"strings"
)

// counts are the executions of each region the program ran, by
// "function/label", counted by the program itself.
var counts = map[string]int{}

func ran(name string) { counts[name]++ }

// Scan has three loops of known iteration counts, one left by break,
// one by continue to an outer label, and one left by goto.
func Scan(n int) int {
	sum := 0
	ran("Scan/outer")
outer:
	for i := 0; i < n; i++ {
		ran("Scan/inner")
	inner:
		for j := 0; j < 10; j++ {
			if j == i {
				continue outer
			}
			if j > 5 {
				break inner
			}
			sum += j
		}
	}
	ran("Scan/settle")
settle:
	for {
		if sum%2 == 0 {
			goto done
		}
		sum++
		if sum > 0 {
			break settle
		}
	}
done:
	return sum
}

// Find returns from inside its region, with a result computed inside it.
func Find(xs []int, want int) (int, bool) {
	ran("Find/search")
search:
	for i, x := range xs {
		if x == want {
			return i, true
		}
		if x < 0 {
			break search
		}
	}
	return -1, false
}

// Risky panics inside its region when asked: the region ends anyway.
func Risky(fail bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	ran("Risky/guarded")
guarded:
	switch {
	case fail:
		panic("failing")
	default:
		break guarded
	}
	return nil
}

// Handle calls Find twice: the regions of Find under Handle, and in
// the region its comments mark.
func Handle(xs []int) int {
	ran("Handle/lookups")
	//pmm:region lookups
	a, _ := Find(xs, 3)
	b, _ := Find(xs, 7)
	//pmm:end lookups
	return a + b
}

// Sum's loop is a region its comment marks, left by a bare return.
func Sum(xs []int) (s int) {
	ran("Sum/loop")
	//pmm:region loop
	for _, x := range xs {
		if x < 0 {
			return
		}
		s += x
	}
	return
}

// Largest is generic: its labeled loop is left by its end, by a break,
// and by a return of a value of its type parameter from inside it.
func Largest[T int | float64](xs []T, stop T) (T, bool) {
	var best T
	found := false
	ran("Largest[...]/scan")
scan:
	for _, x := range xs {
		switch {
		case x == stop:
			return x, true
		case x < 0:
			break scan
		case !found || x > best:
			best, found = x, true
		}
	}
	return best, found
}

func main() {
	total := 0
	for n := 0; n < 5; n++ {
		total += Scan(n)
	}
	xs := []int{1, 2, 3, -1, 7}
	for k := 0; k < 4; k++ {
		total += Handle(xs)
	}
	for _, w := range []int{2, -5, 9} {
		if i, ok := Find(xs, w); ok {
			total += i
		}
	}
	total += Sum(xs) + Sum(xs[:2])
	for _, stop := range []int{2, 100} {
		if v, ok := Largest(xs, stop); ok {
			total += v
		}
	}
	if v, ok := Largest([]float64{0.5, 2.5}, -1); ok {
		total += int(v)
	}
	for k := 0; k < 3; k++ {
		if err := Risky(k == 1); err != nil {
			total++
		}
	}
	fmt.Println("total", total)
	var names []string
	for name, c := range counts {
		names = append(names, fmt.Sprintf("%s=%d", name, c))
	}
	sort.Strings(names)
	fmt.Println("want region_counts", strings.Join(names, ","))
	fmt.Println("want find_under_handle", 2*4)
	fmt.Println("want search_in_lookups", 2*counts["Handle/lookups"])
	fmt.Println("want scan_inner_in_scan", counts["Scan/inner"])
	// Each Scan's settle loop begins after each of its inner loops ended:
	// the inner loops of Scan(n) are n of them (n = 0..4).
	fmt.Println("want settle_after_inner", counts["Scan/inner"])
	fmt.Println("want region_time_matches", len(counts))
}
