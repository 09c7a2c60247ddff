package main

import "fmt"

// The part of class 6 (the lost workers of TestSemantics): goroutines
// that never end. main returns while they block, and the process ends.
// Their executions began, so they are executions: what is known when
// they begin (that they exist, their parameters, who spawned them) is in
// the answers, and what is known only at their end (their duration) is
// absent.

// blocked says it started, then blocks forever.
func blocked(n int, started chan<- int) {
	started <- n
	select {}
}

// finished ends before main does.
func finished(n int, done chan<- int) {
	done <- n
}

func unfinished() {
	started, done := make(chan int), make(chan int)
	sum, spawned, ended := 0, 0, 0
	for i := 1; i <= 3; i++ {
		go blocked(i, started)
		sum += <-started
		spawned++
	}
	for i := 10; i <= 11; i++ {
		go finished(i, done)
		sum += <-done
		spawned++
	}
	// The executions of finished may still be running their last
	// statement when main returns: only those of blocked are known not
	// to end, and none of them has a duration.
	fmt.Println("want spawned", spawned)
	fmt.Println("want spawned_sum", sum)
	fmt.Println("want blocked_durations", ended)
}
