// Program faults is the subject of pmm's fault tests (cmd/pmm
// faults_test.go): it calls F -n times, then, with -wait, says "ready" on
// standard output and waits to be stopped by a signal; with -exit it
// exits with that status. The tests compare the executions of F that pmm
// recorded with -n.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

// F is the function whose executions the question counts.
func F(i int) int { return i * 2 }

func main() {
	n := flag.Int("n", 1000, "executions of F")
	wait := flag.Bool("wait", false, `say "ready" and wait for a signal`)
	exit := flag.Int("exit", 0, "exit status")
	flag.Parse()
	total := 0
	for i := 0; i < *n; i++ {
		total += F(i)
	}
	if *wait {
		fmt.Println("ready")
		time.Sleep(10 * time.Minute)
	}
	if *exit != 0 {
		os.Exit(*exit)
	}
	fmt.Println("total", total)
}
