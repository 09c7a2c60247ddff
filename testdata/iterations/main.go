// Command iterations is VMProfiler's experiment (seed 004) in Go: one
// function with three loops of the same body and known iteration
// counts, in the ratio 1:3:6, and loops left early, for cmd/pmm's
// TestIterations, which compares pmm's iteration counts with the
// program's; with -n 1000000 -reps R it is the experiment of cmd/pmm's
// BenchmarkVMProfiler (-cpuprofile for pprof's side).
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"strings"
)

// mix is the loops' body: a few nanoseconds of arithmetic the compiler
// cannot drop.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 29
	return h
}

// Interp runs its three loops n, 3n and 6n times.
func Interp(n int) uint64 {
	h := uint64(1)
	//pmm:region first
	for i := 0; i < n; i++ {
		h = mix(h)
	}
	//pmm:region second
	for i := 0; i < 3*n; i++ {
		h = mix(h)
	}
	//pmm:region third
	for i := 0; i < 6*n; i++ {
		h = mix(h)
	}
	return h
}

// iterations counts, by loop, the iterations the program ran, and
// perExecution the iterations of each execution of cols, in order.
var (
	iterations   = map[string]int{}
	perExecution []int
)

// Early leaves its loops early: by break at k (k+1 iterations), by a
// continue to the outer loop, and by return.
func Early(rows [][]int, k int) (found int) {
rows:
	for r, row := range rows {
		iterations["rows"]++
		perExecution = append(perExecution, 0)
	cols:
		for c, x := range row {
			iterations["cols"]++
			perExecution[len(perExecution)-1]++
			if c == k {
				break cols
			}
			if x < 0 {
				continue rows
			}
			if x == 99 {
				return r
			}
		}
	}
	return -1
}

func main() {
	n := flag.Int("n", 1000, "iterations of Interp's first loop")
	reps := flag.Int("reps", 1, "runs of Interp")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the runs of Interp to this file")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
	}
	var h uint64
	for r := 0; r < *reps; r++ {
		h += Interp(*n)
	}
	if *profile != "" {
		pprof.StopCPUProfile()
	}
	fmt.Println("h", h)
	rows := [][]int{{1, 2, 3, 4}, {5, -1, 7}, {8, 9}, {1, 99, 3}, {4, 4, 4, 4}}
	// cols: row 0 breaks at c=2 (3 iterations), row 1 continues rows at
	// c=1 (2), row 2 ends (2), row 3 returns at c=1 (2).
	fmt.Println("found", Early(rows, 2), Early(rows[:3], 2), Early(rows[4:], 2))
	fmt.Printf("want iterations first=%d,second=%d,third=%d,rows=%d,cols=%d\n", *n, 3**n, 6**n, iterations["rows"], iterations["cols"])
	fmt.Printf("want last_index first=%d,second=%d,third=%d\n", *n-1, 3**n-1, 6**n-1)
	var per []string
	for _, c := range perExecution {
		per = append(per, fmt.Sprint(c))
	}
	fmt.Println("want cols_per_execution", strings.Join(per, ","))
}
