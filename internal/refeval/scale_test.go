package refeval

import (
	"fmt"
	"math/rand"
	"testing"

	"pmm.dev/pmm/internal/reftrace"
)

// scaleQuestions are the cache question and others over the run of
// bigCacheTrace, each a join that naive enumeration would make quadratic.
const scaleQuestions = `
(defevent repeated-call :definition
  ((g2) s.t. (exists (f g1 args)
               (and (function-execution f "main.F")
                    (function-execution g1 "main.G")
                    (function-execution g2 "main.G")
                    (calls f g1)
                    (calls f g2)
                    (before g1 g2)
                    (parameters g1 args)
                    (parameters g2 args)))))
(defquestion repeats :definition (count repeated-call (output)))
(defevent g-in-f :definition
  ((g) s.t. (exists (f) (and (function-execution f "main.F") (function-execution g "main.G") (contains f g)))))
(defquestion g-in-f-count :definition (count g-in-f (output)))
(defquestion g-outside-f :definition
  ((g) s.t. (and (function-execution g "main.G")
                 (not (exists (f) (and (function-execution f "main.F") (calls f g)))))))
`

// bigCacheTrace is main calling F n times, each F calling G(x%4, x%3)
// for 0 to 8 random x below 24 (testdata/cache's program), then G(1, 1)
// twice. It returns the number of repeated calls, counted as
// testdata/cache's handF counts them, and of calls of G inside F.
func bigCacheTrace(t testing.TB, n int) (tr *reftrace.Trace, repeats, inF int) {
	b := &traceBuilder{}
	rng := rand.New(rand.NewSource(1))
	main := b.begin("main.main", 0, 1)
	for range n {
		f := b.begin("main.F", main, 1)
		seen := map[[2]int]bool{}
		for range rng.Intn(9) {
			x := rng.Intn(24)
			k := [2]int{x % 4, x % 3}
			if seen[k] {
				repeats++
			}
			seen[k] = true
			inF++
			b.call("main.G", f, 1, []any{k[0], k[1]}, 0)
		}
		b.end(f, 0)
	}
	b.call("main.G", main, 1, []any{1, 1}, 0)
	b.call("main.G", main, 1, []any{1, 1}, 0)
	b.end(main)
	return b.trace(t), repeats, inF
}

// TestScale answers the questions over about 2,000 executions (400 of F)
// and compares with the counts the trace's writer kept.
func TestScale(t *testing.T) {
	tr, repeats, inF := bigCacheTrace(t, 400)
	as := answers(t, scaleQuestions, tr)
	expect(t, as, "repeats", fmt.Sprint(repeats))
	expect(t, as, "g-in-f-count", fmt.Sprint(inF))
	expect(t, as, "g-outside-f", "#", "#")
	t.Logf("%d executions, %d repeated calls, %d calls of G in F", len(tr.Execs), repeats, inF)
}

// BenchmarkScale evaluates the questions of TestScale over its trace.
func BenchmarkScale(b *testing.B) {
	tr, _, _ := bigCacheTrace(b, 400)
	prog := compile(b, scaleQuestions)
	for b.Loop() {
		if _, err := Evaluate(prog, tr); err != nil {
			b.Fatal(err)
		}
	}
}
