// Command manyruns has two fixed workloads, a and b, run by their names
// as arguments: the answers of a run of a and a run of b, merged, are
// those of one run of both (pmm answer -all-runs, pmm merge). "wait
// FILE" waits until FILE exists, so that a test can read the program's
// cells while it runs (pmm export).
package main

import (
	"fmt"
	"os"
	"time"
)

// Get is the function the questions ask about: its key and size.
func Get(key string, size int) int {
	return len(key) + size
}

func main() {
	total := 0
	args := os.Args[1:]
	for len(args) > 0 {
		w := args[0]
		args = args[1:]
		switch w {
		case "a":
			for i := 0; i < 10; i++ {
				total += Get("x", i)
				total += Get("y", 2*i)
			}
		case "b":
			for i := 0; i < 5; i++ {
				total += Get("x", 100+i)
				total += Get("z", 7)
			}
		case "wait":
			if len(args) > 0 {
				waitFor(args[0])
				args = args[1:]
			}
		}
	}
	fmt.Println(total)
}

// waitFor waits until file exists, for two minutes at most.
func waitFor(file string) {
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(file); err == nil {
			return
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "manyruns: no", file, "after 2 minutes")
			os.Exit(1)
		}
	}
}
