package main

import (
	"testing"

	"example.com/promoted/shapes"
)

// TestNames makes pmm load the packages twice, with and without their
// tests (p and p [p.test]): the dispatch of an interface call must list
// each dynamic type once (TestSnapshots builds the tests).
func TestNames(t *testing.T) {
	ns := []shapes.Namer{shapes.Rect{}, shapes.NewCell(1), &shapes.Box[int]{}}
	if got := names(ns); got != len(ns) {
		t.Fatalf("names = %d, want %d", got, len(ns))
	}
}
