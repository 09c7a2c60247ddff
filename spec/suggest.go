package spec

import "strings"

// Closest returns the candidate nearest to name by edit distance (case
// folded), for "did you mean" hints, or "" when none is near enough to be
// a plausible misspelling.
func Closest(name string, candidates []string) string {
	name = strings.ToLower(name)
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(name, strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	// Allow about one edit per three characters, at least one.
	limit := len(name) / 3
	if limit < 1 {
		limit = 1
	}
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
