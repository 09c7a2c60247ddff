package refeval

import (
	"errors"
	"os"
	"strings"
	"testing"

	"pmm.dev/pmm/spec"
)

// fig41Trace is a run of testdata/fig41: main calls BOTH(i) and IR(i) for
// i from -2 to 4; BOTH calls FOO(i) when i > 0, then BAR(i); IR calls
// BAR(i).
func fig41Trace(t *testing.T) *traceBuilder {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	for i := -2; i <= 4; i++ {
		both := b.begin("main.BOTH", main, 1, i)
		if i > 0 {
			b.call("main.FOO", both, 1, []any{i}, i*7)
		}
		b.call("main.BAR", both, 1, []any{i}, i*5)
		b.end(both, i*12)
		ir := b.begin("main.IR", main, 1, i)
		b.call("main.BAR", ir, 1, []any{i}, i*5)
		b.end(ir, i*5)
	}
	b.end(main)
	return b
}

// TestFigure42 evaluates the seed's Figure 4.2 as written in
// testdata/fig41: its question asks for durations, which the trace does
// not hold, so it has no reference answer; the same derived event asked
// for the parameters alone has one. The executions that call both FOO
// and BAR with a non-zero first parameter are BOTH(1) .. BOTH(4): BOTH(0)
// is excluded by (not (= p 0)), BOTH(-2), BOTH(-1) and BOTH(0) do not call
// FOO, and IR never calls FOO.
func TestFigure42(t *testing.T) {
	tr := fig41Trace(t).trace(t)
	srcs, err := spec.ReadFiles("../../testdata/fig41/questions.pmm")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := spec.Compile(srcs...)
	if err != nil {
		t.Fatal(err)
	}
	as, err := Evaluate(prog, tr)
	var unsupported *UnsupportedError
	if !errors.As(err, &unsupported) || unsupported.Primitive != "duration" || unsupported.Question != "monitor-fns-dura-params" {
		t.Errorf("Evaluate of Figure 4.2: error %v, want that duration cannot be evaluated", err)
	}
	if len(as) != 0 {
		t.Errorf("Evaluate of Figure 4.2 answered %d questions, want none", len(as))
	}

	text := strings.Replace(string(srcs[0].Text), "(duration z x)", "(function-execution z f)", 1)
	text = strings.Replace(text, "(exists (z)", "(exists (z f)", 1)
	text = strings.Replace(text, "((x y) s.t.", "((y) s.t.", 1)
	text += `
(defquestion callers :definition ((z n) s.t. (and (fns-call-foo-and-bar z) (parameter z 1 n))))
(defquestion names :definition ((f) s.t. (exists (z) (and (fns-call-foo-and-bar z) (function-execution z f)))))
`
	as = answers(t, text, tr)
	expect(t, as, "monitor-fns-dura-params", "[1]", "[2]", "[3]", "[4]")
	expect(t, as, "callers", "# 1", "# 2", "# 3", "# 4")
	expect(t, as, "names", "main.BOTH")
	if a := as["callers"]; strings.Join(a.Columns, " ") != "z n" || !a.Event[0] || a.Event[1] {
		t.Errorf("callers: columns %v, event %v; want z (an event) and n", a.Columns, a.Event)
	}
}

// cacheTrace is a run of testdata/cache in small: main calls F twice,
// then G(1, 1) twice itself. The first F calls G(1,1), G(2,0), G(1,1),
// G(1,1): its third and fourth calls repeat the first. The second F calls
// G(1,1) once and G(3,2) once: no repeat. main's two calls of G(1,1)
// repeat each other but no F makes them.
func cacheTrace(t *testing.T) *traceBuilder {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	f := b.begin("main.F", main, 1, "[1 2]")
	for _, args := range [][]any{{1, 1}, {2, 0}, {1, 1}, {1, 1}} {
		b.call("main.G", f, 1, args, 3)
	}
	b.end(f, 12)
	f = b.begin("main.F", main, 1, "[3]")
	b.call("main.G", f, 1, []any{1, 1}, 3)
	b.call("main.G", f, 1, []any{3, 2}, 4)
	b.end(f, 7)
	b.call("main.G", main, 1, []any{1, 1}, 3)
	b.call("main.G", main, 1, []any{1, 1}, 3)
	b.end(main)
	return b
}

// TestCache evaluates the cache question of testdata/cache (the seed's
// repeated calls), with the parameters in place of the durations: the
// repeated calls are the third and fourth of the first F, both G(1,1).
func TestCache(t *testing.T) {
	tr := cacheTrace(t).trace(t)
	text, err := os.ReadFile("../../testdata/cache/questions.pmm")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(text), "(duration g d)", "(parameter g 2 d)", 1)
	src += `
(defquestion repeats-per-f :definition
  ((f g) s.t. (and (repeated-call g) (function-execution f "main.F") (calls f g))))
(defquestion repeats-per-f-count :definition (count repeats-per-f (input output)))
(defquestion repeated-args :definition
  ((args) s.t. (exists (g) (and (repeated-call g) (parameters g args)))))
; the executions of F none of whose calls of G has 3 as first argument
(defquestion no-g3 :definition
  ((xs) s.t. (exists (f) (and (function-execution f "main.F") (parameters f xs)
                              (not (exists (g a) (and (calls f g) (function-execution g "main.G")
                                                      (parameter g 1 a) (= a 3))))))))
; the same, as "every call of G has a first argument other than 3"
(defquestion all-g-not3 :definition
  ((xs) s.t. (exists (f) (and (function-execution f "main.F") (parameters f xs)
                              (not (exists (g a) (and (calls f g) (function-execution g "main.G")
                                                      (parameter g 1 a) (not (/= a 3)))))))))
; a derived event with a function name as argument, given a literal
(defevent exec-of :definition ((x n) s.t. (function-execution x n)))
(defquestion g-outside-f :definition
  ((a) s.t. (exists (g m) (and (exec-of g "main.G") (exec-of m "main.main") (calls m g) (parameters g a)))))
; one variable at two positions of a derived event
(defevent on-one-goroutine :definition ((a b) s.t. (same-goroutine a b)))
(defquestion self-pairs :definition ((xs) s.t. (exists (x) (and (on-one-goroutine x x) (function-execution x "main.F") (parameters x xs)))))
`
	as := answers(t, src, tr)
	expect(t, as, "cacheable-calls", "# 1", "# 1")
	// Two tuples with equal values: both count in the sum (1 + 1).
	expect(t, as, "cacheable-count", "2")
	expect(t, as, "cacheable-time", "2")
	// Grouped by the first F, the only one with repeats.
	expect(t, as, "repeats-per-f-count", "# 2")
	// The head is a set: one list, however many calls had it.
	expect(t, as, "repeated-args", "[1,1]")
	// The second F calls G(3,2).
	expect(t, as, "no-g3", `["[1 2]"]`)
	expect(t, as, "all-g-not3", `["[1 2]"]`)
	// main's own two calls of G(1,1): one tuple.
	expect(t, as, "g-outside-f", "[1,1]")
	expect(t, as, "self-pairs", `["[1 2]"]`, `["[3]"]`)
}

// TestNegation asks for the executions of Fib that no Fib calls. main
// calls Fib(3) and Fib(2); Fib(n) calls Fib(n-1) and Fib(n-2) for n ≥ 2:
// 8 executions, of which 2 are called by main.
func TestNegation(t *testing.T) {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	var fib func(caller int64, n int)
	fib = func(caller int64, n int) {
		id := b.begin("main.Fib", caller, 1, n)
		if n >= 2 {
			fib(id, n-1)
			fib(id, n-2)
		}
		b.end(id, n)
	}
	fib(main, 3)
	fib(main, 2)
	b.end(main)
	as := answers(t, `
(defevent all-fibs :definition ((x) s.t. (function-execution x "main.Fib")))
(defquestion all :definition (count all-fibs (output)))
(defquestion roots :definition
  ((x n) s.t. (and (function-execution x "main.Fib") (parameter x 1 n)
                   (not (exists (y) (and (function-execution y "main.Fib") (calls y x)))))))
; leaves: executions of Fib that call nothing, with a parameter other than 0
(defquestion leaves :definition
  ((n) s.t. (exists (x) (and (function-execution x "main.Fib") (parameter x 1 n)
                             (not (exists (y g) (and (calls x y) (function-execution y g))))
                             (not (= n 0))))))
`, b.trace(t))
	// Fib(3) is Fib(3), Fib(2), Fib(1), Fib(0) (under Fib(2)) and Fib(1):
	// 5; Fib(2) from main is Fib(2), Fib(1), Fib(0): 3.
	expect(t, as, "all", "8")
	expect(t, as, "roots", "# 2", "# 3")
	// Leaves are Fib(1) and Fib(0); without 0 the set is {1}.
	expect(t, as, "leaves", "1")
}

// TestCallsStarAndSpawns: main calls A, A calls B, B calls C and starts
// goroutine 2 with go D(); D calls C. calls* follows callers on one
// goroutine: A reaches B and the first C, not D nor the C that D calls.
func TestCallsStarAndSpawns(t *testing.T) {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	a := b.begin("main.A", main, 1)
	bb := b.begin("main.B", a, 1)
	b.call("main.C", bb, 1, []any{1})
	d := b.beginSpawned("main.D", 0, bb, 2)
	b.call("main.C", d, 2, []any{2})
	b.end(d)
	b.end(bb)
	b.end(a)
	b.end(main)
	as := answers(t, `
(defquestion reached-from-a :definition
  ((f) s.t. (exists (a x) (and (function-execution a "main.A") (calls* a x) (function-execution x f)))))
(defquestion c-under-main :definition
  ((n) s.t. (exists (m c) (and (function-execution m "main.main") (function-execution c "main.C")
                               (calls* m c) (parameter c 1 n)))))
(defquestion c-under-d :definition
  ((n) s.t. (exists (d c) (and (function-execution d "main.D") (function-execution c "main.C")
                               (calls* d c) (parameter c 1 n)))))
(defquestion spawners :definition
  ((f g) s.t. (exists (x y) (and (spawns x y) (function-execution x f) (function-execution y g)))))
(defquestion direct :definition
  ((f g) s.t. (exists (x y) (and (calls x y) (function-execution x f) (function-execution y g)))))
(defquestion same-g :definition
  ((f) s.t. (exists (x y) (and (function-execution x "main.D") (same-goroutine x y) (function-execution y f)))))
`, b.trace(t))
	expect(t, as, "reached-from-a", "main.B", "main.C")
	expect(t, as, "c-under-main", "1")
	expect(t, as, "c-under-d", "2")
	expect(t, as, "spawners", "main.B main.D")
	// No call crosses the go statement: B does not call D.
	expect(t, as, "direct", "main.main main.A", "main.A main.B", "main.B main.C", "main.D main.C")
	expect(t, as, "same-g", "main.C", "main.D")
}
