// Package lib has the callees main's calls reach in another package.
package lib

// State is a value main keeps in its frame and calls methods of.
type State struct {
	N   int
	pad [32]byte
}

// Bump adds k to s and to *into.
func (s *State) Bump(into *int, k int) {
	s.N += k
	*into += k
}

// Value returns s's count, from a copy.
func (s State) Value() int { return s.N + len(s.pad) - 32 }

// Inc adds one to *p.
func Inc(p *int) { *p++ }

// Sum adds up its arguments.
func Sum(xs ...int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
