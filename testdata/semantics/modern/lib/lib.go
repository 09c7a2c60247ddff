// Package lib has tests, internal and external, that pmm test runs
// instrumented.
package lib

import "strings"

// Reverse reverses s by runes.
func Reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// Words splits s into words.
func Words(s string) []string { return strings.Fields(s) }

func double(x int) int { return 2 * x }
