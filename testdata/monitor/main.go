// Program monitor starts and stops recording itself (Monitor-Begin/End):
// only the calls of Work made between monitorBegin and monitorEnd are
// recorded, when it runs with PMM_RECORD=off.
package main

import "fmt"

// Work is the function the question counts.
func Work(n int) int { return n * n }

func main() {
	t := 0
	for i := 0; i < 10; i++ { // not recorded
		t += Work(i)
	}
	monitorBegin()
	for i := 0; i < 5; i++ { // recorded
		t += Work(i)
	}
	monitorEnd()
	for i := 0; i < 3; i++ { // not recorded
		t += Work(i)
	}
	fmt.Println(t)
}
