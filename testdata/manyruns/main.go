// Command manyruns has two fixed workloads, a and b, run by their names
// as arguments: the answers of a run of a and a run of b, merged, are
// those of one run of both (pmm answer -all-runs, pmm merge).
package main

import (
	"fmt"
	"os"
)

// Get is the function the questions ask about: its key and size.
func Get(key string, size int) int {
	return len(key) + size
}

func main() {
	total := 0
	for _, w := range os.Args[1:] {
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
		}
	}
	fmt.Println(total)
}
