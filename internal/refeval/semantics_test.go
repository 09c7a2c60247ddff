package refeval

import (
	"fmt"
	"strings"
	"testing"

	"pmm.dev/pmm/spec"
)

// goroutinesTrace is a run with goroutines, a panic and an execution that
// never ended. Sequence numbers in brackets:
//
//	main [1 .. 21] on goroutine 1
//	  A(10) [2 .. 12]
//	    go W1() on goroutine 2 [3 .. 6], which calls C(1) [4 .. 5]
//	    go W2() on goroutine 3 [7 .. 15], which calls C(2) [13 .. 14]
//	    P(5) [8 .. 9] panics
//	    R(6) [10 .. 11] recovers its own panic and returns 0
//	  go U(7) on goroutine 4 [16 .. never], which calls C(3) [17 .. 18]
//	  C(4) [19 .. 20]
func goroutinesTrace(t *testing.T) *traceBuilder {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	a := b.begin("main.A", main, 1, 10)
	w1 := b.beginSpawned("main.W1", 0, a, 2)
	b.call("main.C", w1, 2, []any{1}, 1)
	b.end(w1)
	w2 := b.beginSpawned("main.W2", 0, a, 3)
	p := b.begin("main.P", a, 1, 5)
	b.panics(p)
	b.call("main.R", a, 1, []any{6}, 0)
	b.end(a)
	b.call("main.C", w2, 3, []any{2}, 2)
	b.end(w2)
	u := b.beginSpawned("main.U", 0, main, 4, 7)
	b.call("main.C", u, 4, []any{3}, 3)
	b.call("main.C", main, 1, []any{4}, 4)
	b.end(main)
	if b.seq != 21 {
		t.Fatalf("the trace has %d points, the comment above says 21", b.seq)
	}
	return b
}

// TestContainsAcrossGoroutines: A [2 .. 12] contains what begins after 2
// and ends before 12, on any goroutine: W1, C(1), P, R; not W2, which
// ends at 15. U never ended: it contains what began after 16 and ended,
// C(3) on its goroutine and C(4) on main's, and nothing contains it.
func TestContainsAcrossGoroutines(t *testing.T) {
	as := answers(t, `
(defquestion in-a :definition
  ((f) s.t. (exists (a x) (and (function-execution a "main.A") (contains a x) (function-execution x f)))))
(defquestion c-in-u :definition
  ((n) s.t. (exists (u c) (and (function-execution u "main.U") (function-execution c "main.C")
                               (contains u c) (parameter c 1 n)))))
(defevent in-main :definition
  ((x) s.t. (exists (m f) (and (function-execution m "main.main") (contains m x) (function-execution x f)))))
(defquestion in-main-count :definition (count in-main (output)))
(defquestion points-in-a :definition
  ((p) s.t. (exists (a x) (and (function-execution a "main.A") (function-execution x "main.P")
                               (or (begin p x) (end p x)) (contains a p)))))
`, goroutinesTrace(t).trace(t))
	expect(t, as, "in-a", "main.C", "main.P", "main.R", "main.W1")
	expect(t, as, "c-in-u", "3", "4")
	// A, W1, C(1), W2, P, R, C(2), C(3), C(4): all but main and U.
	expect(t, as, "in-main-count", "9")
	expect(t, as, "points-in-a", "#", "#")
}

// TestBeforeAndUnfinished: an execution that never ended is before
// nothing and has no end point, results or panicked; what its begin
// knows (its parameters, goroutine, begin point, spawner) it has.
func TestBeforeAndUnfinished(t *testing.T) {
	as := answers(t, `
(defquestion after-u :definition
  ((f) s.t. (exists (u x) (and (function-execution u "main.U") (before u x) (function-execution x f)))))
(defevent before-u :definition
  ((x) s.t. (exists (u f) (and (function-execution u "main.U") (before x u) (function-execution x f)))))
(defquestion before-u-count :definition (count before-u (output)))
(defquestion u-end :definition ((x) s.t. (exists (p) (and (function-execution x "main.U") (end p x)))))
(defquestion u-begin :definition ((p) s.t. (exists (x) (and (function-execution x "main.U") (begin p x)))))
(defquestion u-param :definition ((n) s.t. (exists (u) (and (function-execution u "main.U") (parameter u 1 n)))))
(defquestion u-results :definition ((v) s.t. (exists (u) (and (function-execution u "main.U") (return-values u v)))))
(defquestion u-panicked :definition ((v) s.t. (exists (u) (and (function-execution u "main.U") (panicked u v)))))
(defquestion u-goroutine :definition ((g) s.t. (exists (u) (and (function-execution u "main.U") (goroutine u g)))))
(defquestion u-spawner :definition ((f) s.t. (exists (u s) (and (function-execution u "main.U") (spawns s u) (function-execution s f)))))
`, goroutinesTrace(t).trace(t))
	expect(t, as, "after-u")
	// Ended before U began at 16: A, W1, C(1), W2, P, R, C(2).
	expect(t, as, "before-u-count", "7")
	expect(t, as, "u-end")
	expect(t, as, "u-begin", "#")
	expect(t, as, "u-param", "7")
	expect(t, as, "u-results")
	expect(t, as, "u-panicked")
	expect(t, as, "u-goroutine", "#") // goroutine ids differ between runs
	expect(t, as, "u-spawner", "main.main")
}

// TestPanicked: P panicked and returned nothing; R recovered its own
// panic and returned 0, so it did not panic.
func TestPanicked(t *testing.T) {
	as := answers(t, `
(defevent called-by-a :definition
  ((x f) s.t. (exists (a) (and (function-execution a "main.A") (calls a x) (function-execution x f)))))
(defquestion panics :definition ((f b) s.t. (exists (x) (and (called-by-a x f) (panicked x b)))))
(defquestion results :definition ((f v) s.t. (exists (x) (and (called-by-a x f) (return-values x v)))))
(defquestion result :definition ((f v) s.t. (exists (x) (and (called-by-a x f) (return-value x 1 v)))))
(defquestion panicked-only :definition ((f) s.t. (exists (x) (and (called-by-a x f) (panicked x true)))))
`, goroutinesTrace(t).trace(t))
	expect(t, as, "panics", "main.P 1", "main.R 0")
	expect(t, as, "results", "main.R [0]")
	expect(t, as, "result", "main.R 0")
	expect(t, as, "panicked-only", "main.P")
}

// TestAggregates groups the executions of H(k, v): H(1,10), H(1,21),
// H(2,5), H(2,5), H(3,-1).
func TestAggregates(t *testing.T) {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	for _, kv := range [][]any{{1, 10}, {1, 21}, {2, 5}, {2, 5}, {3, -1}} {
		b.call("main.H", main, 1, kv)
	}
	b.end(main)
	as := answers(t, `
(defevent h :definition ((x k v) s.t. (and (function-execution x "main.H") (parameter x 1 k) (parameter x 2 v))))
(defquestion h-count :definition (count h (output input output)))
(defquestion h-sum :definition (sum h (output input output)))
(defquestion h-average :definition (average h (output input output)))
(defquestion h-min :definition (min h (output input output)))
(defquestion h-max :definition (max h (output input output)))
(defevent hv :definition ((x v) s.t. (exists (k) (h x k v))))
(defquestion h-total :definition (sum hv (output output)))
(defevent kv :definition ((k v) s.t. (exists (x) (h x k v))))
(defquestion kv-count :definition (count kv (input output)))
(defquestion kv-all :definition (count kv (output output)))
(defevent nothing :definition ((x) s.t. (function-execution x "main.Nothing")))
(defquestion nothing-count :definition (count nothing (output)))
(defquestion h-by-x :definition (count h (input output output)))
`, b.trace(t))
	expect(t, as, "h-count", "1 2", "2 2", "3 1")
	expect(t, as, "h-sum", "1 31", "2 10", "3 -1")
	expect(t, as, "h-average", "1 15.5", "2 5", "3 -1")
	expect(t, as, "h-min", "1 10", "2 5", "3 -1")
	expect(t, as, "h-max", "1 21", "2 5", "3 -1")
	expect(t, as, "h-total", "40")
	// Without the executions, (2, 5) is one tuple.
	expect(t, as, "kv-count", "1 2", "2 1", "3 1")
	expect(t, as, "kv-all", "4")
	// A count over no tuples has no row.
	expect(t, as, "nothing-count")
	expect(t, as, "h-by-x", "# 1", "# 1", "# 1", "# 1", "# 1")
	if a := as["h-average"]; strings.Join(a.Columns, " ") != "k average" || a.Event[0] || a.Event[1] {
		t.Errorf("h-average: columns %v, event %v; want k average, no events", a.Columns, a.Event)
	}
	if avg := as["h-average"].Rows[0][1]; avg != 15.5 {
		t.Errorf("average of H(1, _) is %#v, want the float 15.5", avg)
	}
}

// TestComparisons: values of different types are unequal, and ordered
// numbers before text, as SQLite does; booleans are the integers 1 and 0;
// nil compares with nothing but the literal nil, so (/= a 0) leaves it
// out and (not (= a 0)) keeps it.
func TestComparisons(t *testing.T) {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	b.call("main.K", main, 1, []any{1, "1", true})
	b.call("main.K", main, 1, []any{0, "a", false})
	b.call("main.K", main, 1, []any{nil, "z", nil})
	b.end(main)
	as := answers(t, `
(defevent k :definition ((x a s c) s.t. (and (function-execution x "main.K") (parameter x 1 a) (parameter x 2 s) (parameter x 3 c))))
(defquestion int-is-string :definition ((s) s.t. (exists (x a c) (and (k x a s c) (= a s)))))
(defquestion int-is-bool :definition ((s) s.t. (exists (x a c) (and (k x a s c) (= a c)))))
(defquestion int-below-string :definition ((s) s.t. (exists (x a c) (and (k x a s c) (< a s)))))
(defquestion string-above :definition ((s) s.t. (exists (x a c) (and (k x a s c) (> s "b")))))
(defquestion true-literal :definition ((s) s.t. (exists (x a c) (and (k x a s c) (= c true)))))
(defquestion nil-a :definition ((s) s.t. (exists (x a c) (and (k x a s c) (= a nil)))))
(defquestion not-nil-a :definition ((s) s.t. (exists (x a c) (and (k x a s c) (/= a nil)))))
(defquestion differs-from-0 :definition ((s) s.t. (exists (x a c) (and (k x a s c) (/= a 0)))))
(defquestion not-0 :definition ((s) s.t. (exists (x a c) (and (k x a s c) (not (= a 0))))))
(defquestion bound-by-equality :definition ((s v) s.t. (exists (x a c) (and (k x a s c) (= v a) (>= v 1)))))
`, b.trace(t))
	expect(t, as, "int-is-string")
	expect(t, as, "int-is-bool", "1", "a")
	expect(t, as, "int-below-string", "1", "a")
	expect(t, as, "string-above", "z")
	expect(t, as, "true-literal", "1")
	expect(t, as, "nil-a", "z")
	expect(t, as, "not-nil-a", "1", "a")
	expect(t, as, "differs-from-0", "1")
	expect(t, as, "not-0", "1", "z")
	expect(t, as, "bound-by-equality", "1 1")
}

// TestNamesAndOr: generic functions and methods of generic types are
// named with or without pprof's "[...]"; a name variable holds the
// trace's (pprof's) form. An or is a union of its branches.
func TestNamesAndOr(t *testing.T) {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	b.call("main.Map[...]", main, 1, []any{1})
	b.call("main.(*Box[...]).Put", main, 1, []any{2})
	b.call("main.Plain", main, 1, []any{3})
	b.end(main)
	as := answers(t, `
(defquestion map-short :definition ((n) s.t. (exists (x) (and (function-execution x "main.Map") (parameter x 1 n)))))
(defquestion map-long :definition ((n) s.t. (exists (x) (and (function-execution x "main.Map[...]") (parameter x 1 n)))))
(defquestion put :definition ((n) s.t. (exists (x) (and (function-execution x "main.(*Box).Put") (parameter x 1 n)))))
(defquestion names :definition ((f) s.t. (exists (x m) (and (function-execution m "main.main") (calls m x) (function-execution x f)))))
(defquestion either :definition
  ((x n) s.t. (and (or (function-execution x "main.Map") (function-execution x "main.Plain")) (parameter x 1 n))))
`, b.trace(t))
	expect(t, as, "map-short", "1")
	expect(t, as, "map-long", "1")
	expect(t, as, "put", "2")
	expect(t, as, "names", "main.(*Box[...]).Put", "main.Map[...]", "main.Plain")
	expect(t, as, "either", "# 1", "# 3")
}

// TestCanonicalView: pmm's view holds an execution as an id, a list as
// its canonical text and a boolean as an integer; with the run column
// first, its rows canonicalize as the answer's.
func TestCanonicalView(t *testing.T) {
	a := &Answer{Name: "q", Columns: []string{"x", "v", "b"}, Event: []bool{true, false, false},
		Rows: [][]any{{int64(3), []any{int64(1), "a\"b"}, true}, {int64(4), []any{}, false}}}
	want := []string{`# [1,"a\"b"] 1`, "# [] 0"}
	got := a.Canonical()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Canonical: %q", got)
	}
	view, err := a.CanonicalView([][]any{{int64(1), int64(77), `[1,"a\"b"]`, int64(1)}, {int64(1), int64(78), []byte("[]"), int64(0)}})
	if err != nil || strings.Join(view, "|") != strings.Join(got, "|") {
		t.Errorf("CanonicalView: %q, %v; want %q", view, err, got)
	}
	if _, err := a.CanonicalView([][]any{{int64(1)}}); err == nil {
		t.Error("CanonicalView of a row with one column: no error")
	}
}

// TestCallsStarLeavesIndexes calls the generator of calls* directly, as
// the evaluator does when the first argument is bound: it must leave the
// children index as it found it. It once walked the descendants on the
// index's own slice, so that a later question of the same file found
// grandchildren as callees (the differential test saw it).
func TestCallsStarLeavesIndexes(t *testing.T) {
	var b traceBuilder
	m := b.begin("main.main", 0, 1)
	a := b.begin("main.A", m, 1)
	b.call("main.C", a, 1, nil)
	b.call("main.C", a, 1, nil)
	b.end(a)
	b.call("main.B", m, 1, nil)
	b.end(m)
	tr := b.trace(t)
	e := newEvaluator(&spec.Program{}, tr)
	before := fmt.Sprint(e.children)
	for i := 0; i < 2; i++ {
		if got := controls["calls*"].from(e, execValue(tr.ByID[m])); len(got) != 4 {
			t.Errorf("calls* from main: %d descendants, want 4", len(got))
		}
	}
	if after := fmt.Sprint(e.children); after != before {
		t.Errorf("the children index changed:\n%s\nwas\n%s", after, before)
	}
}
