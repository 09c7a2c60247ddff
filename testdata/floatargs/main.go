// The cache question over float arguments: a call repeats an earlier
// one when a map keyed by its arguments would hit, that is when Go's ==
// finds them equal. A NaN equals nothing, not even itself, and -0 equals
// 0. pmm recorded a NaN in a list as the text "NaN", equal to itself,
// and -0 as "-0", unequal to 0. The program counts the repeats with maps
// and prints them as "want NAME VALUE": pmm must answer the same, in
// every mode.
package main

import (
	"fmt"
	"math"
)

type key struct {
	f float64
	n int
}

var sink float64

func scale(f float64) float64       { return 2 * f }
func pair(f float64, n int) float64 { return f * float64(n) }

// run calls scale and pair with xs, and counts the calls a map keyed by
// their arguments would have answered.
func run(xs []float64) (scaleHits, pairHits int) {
	seen := map[float64]bool{}
	seenPair := map[key]bool{}
	for i, x := range xs {
		if seen[x] {
			scaleHits++
		}
		seen[x] = true
		sink += scale(x)
		k := key{x, i % 2}
		if seenPair[k] {
			pairHits++
		}
		seenPair[k] = true
		sink += pair(x, i%2)
	}
	return scaleHits, pairHits
}

func main() {
	nan, inf, negZero := math.NaN(), math.Inf(1), math.Copysign(0, -1)
	s1, p1 := run([]float64{nan, nan, nan, 1.5, 1.5, 1.5})
	s2, p2 := run([]float64{0, negZero, 0, negZero, inf, inf, inf})
	fmt.Printf("want scale_repeats %d\nwant pair_repeats %d\n", s1+s2, p1+p2)
	fmt.Printf("want scale_param_repeats %d\n", s1+s2)
}
