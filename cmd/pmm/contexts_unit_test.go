package main

import (
	"maps"
	"testing"
)

// TestContextPaths computes paths from frames as the runtime numbers
// them: ids at begins and seqs at ends from one counter.
func TestContextPaths(t *testing.T) {
	frames := []ctxFrame{
		// goroutine 1: main(1..20) calls rec(2..15), which calls rec(3..14),
		// which calls leaf(4..6) and then leaf(7..9); then main calls A(16..19).
		{id: 1, end: 20, g: 1, function: "main.main"},
		{id: 2, end: 15, g: 1, function: "main.rec"},
		{id: 3, end: 14, g: 1, function: "main.rec"},
		{id: 4, end: 6, g: 1, function: "main.leaf"},
		{id: 7, end: 9, g: 1, function: "main.leaf"},
		{id: 16, end: 19, g: 1, function: "main.A"},
		// goroutine 2: worker(8..), never ended.
		{id: 8, end: 0, g: 2, function: "main.worker"},
	}
	events := []ctxEvent{
		{id: 4, g: 1, function: "main.leaf"},                // its own frame: not twice
		{id: 17, g: 1, function: "main.B"},                  // recorded at a call site in A: B's frame (if any) comes after
		{id: 10, g: 2, function: "main.leaf"},               // under a frame that never ended
		{id: 5, g: 1, function: "main.leaf", instant: true}, // an allocation in leaf's body
		{id: 13, g: 1, function: "main.rec", instant: true}, // in the inner rec, after both leafs ended
		{id: 11, g: 2, function: "main.worker", instant: true},
		{id: 12, g: 2, function: "main.lost", instant: true}, // its function's frame is missing
		{id: 21, g: 3, function: "main.root"},                // a goroutine without frames
	}
	got := contextPaths(frames, events)
	want := map[int64]string{
		4:  "main.main;main.rec;main.rec;main.leaf",
		17: "main.main;main.A;main.B",
		10: "main.worker;main.leaf",
		5:  "main.main;main.rec;main.rec;main.leaf",
		13: "main.main;main.rec;main.rec",
		11: "main.worker",
		12: "main.worker;main.lost",
		21: "main.root",
	}
	if !maps.Equal(got, want) {
		t.Errorf("paths:\n%v\nwant\n%v", got, want)
	}
}
