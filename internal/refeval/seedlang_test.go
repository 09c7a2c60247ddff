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
