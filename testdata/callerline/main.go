// Command callerline starts executions of Square from several lines:
// plain calls, a call in a loop, in a goroutine and a deferred call. It
// counts for itself, with mark, how many executions each line started
// (mark takes the line of its own call, which is on the line of the call
// of Square whose argument it is), and prints the answers the questions of
// questions.pmm (caller-line) must give as "want NAME VALUE" lines.
package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

var started = map[string]int{} // file:line → executions of Square it started

// mark notes that the line it is called from starts one execution of
// Square, and returns n.
func mark(n int) int {
	_, file, line, _ := runtime.Caller(1)
	started[filepath.Base(file)+":"+strconv.Itoa(line)]++
	return n
}

// Square is the function whose executions the questions ask about.
func Square(n int) int { return n * n }

func deferred() {
	defer Square(mark(5))
}

func main() {
	total := Square(mark(1))
	for i := 0; i < 3; i++ {
		total += Square(mark(i))
	}
	total += Square(mark(2)) + Square(mark(3))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		total += Square(mark(4))
	}()
	wg.Wait()
	deferred()

	lines := make([]string, 0, len(started))
	for l := range started {
		lines = append(lines, l)
	}
	sort.Strings(lines)
	var perLine []string
	shared := 0
	for _, l := range lines {
		perLine = append(perLine, l+"="+strconv.Itoa(started[l]))
		if started[l] > 1 {
			shared += started[l]
		}
	}
	fmt.Println("total", total)
	fmt.Println("want square_lines", strings.Join(perLine, ","))
	fmt.Println("want shared_lines", shared)
}
