package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestIterations builds and runs testdata/iterations (VMProfiler's
// three loops, and loops left by break, continue to an outer loop and
// return), in every mode, and compares the iterations of each loop, the
// last iteration's index and the iterations of each execution of a loop
// with the counts the program keeps itself.
func TestIterations(t *testing.T) {
	each := func(view, column string, labels ...string) string {
		var parts []string
		for _, l := range labels {
			parts = append(parts, fmt.Sprintf("'%s=' || (SELECT %s FROM %s WHERE l = '%s')", l, column, view, l))
		}
		return "SELECT " + strings.Join(parts, " || ',' || ")
	}
	wantInEveryMode(t, "../../testdata/iterations", map[string]string{
		"iterations":         each("iterations", "count", "first", "second", "third", "rows", "cols"),
		"last_index":         each("last_index", "max", "first", "second", "third"),
		"cols_per_execution": "SELECT group_concat(count, ',') FROM (SELECT count FROM cols_per_execution ORDER BY r)",
	})
}
