package refeval

import "testing"

// pairTrace is a run in which main calls Pair(a, s) for a few arguments;
// Pair returns them as its results, and the last call panics.
func pairTrace(t *testing.T) *traceBuilder {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	b.call("main.Pair", main, 1, []any{3, "a"}, 3, "a")
	b.call("main.Pair", main, 1, []any{2, "b"}, 2, "b")
	b.call("main.Pair", main, 1, []any{3, "a"}, 3, "a")
	b.call("main.Pair", main, 1, []any{3, `q"x`}, 3, `q"x`)
	p := b.begin("main.Pair", main, 1, 3, "a")
	b.panics(p)
	b.end(main)
	return b
}

// TestListValues compares quoted lists with parameters and results: by
// their elements, strings escaped as pmm stores them; an execution that
// panicked has no results to compare.
func TestListValues(t *testing.T) {
	tr := pairTrace(t).trace(t)
	as := answers(t, `
(defquestion params-3a :definition ((x) s.t. (and (function-execution x "main.Pair") (parameters x '(3 "a")))))
(defquestion results-3a :definition ((x) s.t. (exists (v) (and (function-execution x "main.Pair") (return-values x v) (= v '(3 a))))))
(defquestion results-quote :definition ((x v) s.t. (and (function-execution x "main.Pair") (return-values x v) (= v '(3 "q\"x")))))
(defquestion not-3a :definition ((v) s.t. (exists (x) (and (function-execution x "main.Pair") (parameters x v) (/= v '(3 "a"))))))
(defquestion nested :definition ((x) s.t. (and (function-execution x "main.Pair") (parameters x '((3 "a"))))))
`, tr)
	expect(t, as, "params-3a", "#", "#", "#")
	expect(t, as, "results-3a", "#", "#")
	expect(t, as, "results-quote", `# [3,"q\"x"]`)
	expect(t, as, "not-3a", `[2,"b"]`, `[3,"q\"x"]`)
	expect(t, as, "nested")
}

// TestDefinedRows answers the rows of appendix A that pmm defines by
// others, directly from the trace: function-invocation and
// function-name, interval and point. In fig41's run, main calls BOTH and
// IR seven times each; BOTH calls FOO four times and BAR seven, IR calls
// BAR seven times.
func TestDefinedRows(t *testing.T) {
	b := fig41Trace(t)
	b.begin("main.W", 0, 2) // a goroutine still running at the end
	tr := b.trace(t)
	as := answers(t, `
(defquestion foo :definition ((x) s.t. (and (function-invocation x) (function-name x "main.FOO"))))
(defquestion names :definition ((n) s.t. (exists (x) (and (function-invocation x) (function-name x n)))))
(defquestion in-both :definition ((n) s.t. (exists (x b) (and (interval x) (function-execution b "main.BOTH") (calls b x) (function-name x n)))))
(defevent all-intervals :definition ((x) s.t. (interval x)))
(defquestion count-intervals :definition (count all-intervals (output)))
(defevent all-points :definition ((p) s.t. (point p)))
(defquestion count-points :definition (count all-points (output)))
(defquestion ends :definition ((p) s.t. (exists (x) (and (point p) (end p x) (function-execution x "main.BAR")))))
(defquestion not-named :definition ((x) s.t. (and (function-invocation x) (not (function-name x "main.BAR")) (not (function-name x "main.FOO")) (not (function-name x "main.BOTH")) (not (function-name x "main.IR")))))
`, tr)
	expect(t, as, "foo", "#", "#", "#", "#")
	expect(t, as, "names", "main.BAR", "main.BOTH", "main.FOO", "main.IR", "main.W", "main.main")
	expect(t, as, "in-both", "main.BAR", "main.FOO")
	// main, 7 BOTH, 7 IR, 4 FOO, 14 BAR and W: 34 executions; every one
	// but W ended, so 34 begin points and 33 end points.
	expect(t, as, "count-intervals", "34")
	expect(t, as, "count-points", "67")
	expect(t, as, "ends", "#", "#", "#", "#", "#", "#", "#", "#", "#", "#", "#", "#", "#", "#")
	expect(t, as, "not-named", "#", "#")
}

// TestAggregateRelations uses aggregates as relations in formulas: the
// keys looked up more than twice (over the whole run), their lookups by
// main, an aggregate of such a relation, and one under a negation. In
// the run, main looks up 1 three times, 2 twice, 3 four times and 4 once;
// W, which main calls, looks up 2 once more.
func TestAggregateRelations(t *testing.T) {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	for _, k := range []int{1, 2, 1, 3, 1, 3, 3, 3, 4, 2} {
		b.call("main.Lookup", main, 1, []any{k}, k*k)
	}
	w := b.begin("main.W", main, 1)
	b.call("main.Lookup", w, 1, []any{2}, 4)
	b.end(w)
	b.end(main)
	as := answers(t, `
(defevent lookup :definition ((x key) s.t. (and (function-execution x "main.Lookup") (parameter x 1 key))))
(defevent lookups-per-key :definition (count lookup (output input)))
(defquestion hot-keys :definition ((k n) s.t. (and (lookups-per-key k n) (> n 2))))
(defquestion hot-by-main :definition ((x k) s.t. (exists (n m) (and (lookup x k) (lookups-per-key k n) (> n 2) (function-execution m "main.main") (calls m x)))))
(defquestion count-hot :definition (count hot-keys (output output)))
(defquestion cold-by-main :definition ((x k) s.t. (exists (m) (and (lookup x k) (function-execution m "main.main") (calls m x) (not (exists (n) (and (lookups-per-key k n) (> n 2))))))))
`, b.trace(t))
	expect(t, as, "hot-keys", "1 3", "2 3", "3 4")
	expect(t, as, "hot-by-main", "# 1", "# 1", "# 1", "# 2", "# 2", "# 3", "# 3", "# 3", "# 3")
	expect(t, as, "count-hot", "3")
	expect(t, as, "cold-by-main", "# 4")
}
