package refeval

import (
	"testing"

	"pmm.dev/pmm/internal/reftrace"
)

// TestWalks: reachable-objects and reachable-bytes are the heap walks
// the trace records at an execution's begin (the execution itself, or
// its begin point) and end points, by expression and membership type;
// a function without the walk (its expression does not compile there)
// has no value; an allocation's walk is at its point. Seed 000's lists:
// Length's walks answer 3 and 4.
func TestWalks(t *testing.T) {
	b := &traceBuilder{}
	walks := func(ws ...reftrace.Walk) { b.recs[len(b.recs)-1].Walks = ws }
	main := b.begin("main.main", 0, 1)
	for _, n := range []int64{3, 4} {
		x := b.begin("main.Length", main, 1)
		walks(reftrace.Walk{Expr: "l", Type: "main.Node", Objects: n, Bytes: 24 * n}, reftrace.Walk{Expr: "l", Type: "*", Objects: 2*n + 2, Bytes: 100})
		b.end(x, n)
	}
	p := b.begin("main.Push", main, 1)
	walks(reftrace.Walk{Expr: "l", Type: "main.Node", Objects: 4, Bytes: 96})
	b.alloc("main.Push", "composite", "main.Node", p, 1, 1, 24, 32)
	walks(reftrace.Walk{Expr: "l", Type: "main.Node", Objects: 4, Bytes: 96})
	b.end(p)
	walks(reftrace.Walk{Expr: "l", Type: "main.Node", Objects: 5, Bytes: 120})
	b.call("main.Other", main, 1, nil) // no walk: l does not compile there
	b.end(main)
	as := answers(t, `
(defquestion nodes :definition ((n b) s.t. (exists (x) (and (function-execution x "main.Length") (reachable-objects x "l" "main.Node" n) (reachable-bytes x "l" "main.Node" b)))))
(defquestion all :definition ((n) s.t. (exists (x p) (and (function-execution x "main.Length") (begin p x) (reachable-objects p "l" "*" n)))))
(defquestion push :definition ((n0 n1) s.t. (exists (x p0 p1) (and (function-execution x "main.Push") (begin p0 x) (end p1 x) (reachable-objects p0 "l" "main.Node" n0) (reachable-objects p1 "l" "main.Node" n1)))))
(defquestion any-point :definition ((f n) s.t. (exists (x p) (and (reachable-objects p "l" "main.Node" n) (or (begin p x) (end p x)) (function-execution x f)))))
(defquestion at-alloc :definition ((n) s.t. (exists (a f k t) (and (allocation a f k t) (reachable-objects a "l" "main.Node" n)))))
(defquestion other :definition ((n) s.t. (exists (x) (and (function-execution x "main.Other") (reachable-objects x "l" "main.Node" n)))))
`, b.trace(t))
	expect(t, as, "nodes", "3 72", "4 96")
	expect(t, as, "all", "8", "10")
	expect(t, as, "push", "4 5")
	expect(t, as, "any-point", "main.Length 3", "main.Length 4", "main.Push 4", "main.Push 5")
	expect(t, as, "at-alloc", "4")
	expect(t, as, "other")
}
