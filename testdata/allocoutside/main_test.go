package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestMixed calls Mixed a few times and measures what strings.Repeat
// allocates in one of its calls, for cmd/pmm's
// TestAllocationsOutsideTestBinary (pmm test -exact-outside -- -race -v).
func TestMixed(t *testing.T) {
	const calls = 3
	for range calls {
		sinkStr = Mixed(20)
	}
	fmt.Printf("want calls %d\n", calls)
	fmt.Printf("want Repeat_objects %v\n", testing.AllocsPerRun(10, func() { sinkStr = strings.Repeat("ab", 20) }))
}
