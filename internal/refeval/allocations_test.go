package refeval

import (
	"testing"

	"pmm.dev/pmm/internal/reftrace"
)

// TestAllocations: allocation names an allocation by its function, kind
// and type; it is a point: contains relates the executions that ran when
// it was made to it, same-goroutine those on its goroutine, before orders
// it; its attributes are its elements, requested and heap bytes and its
// goroutine.
func TestAllocations(t *testing.T) {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	b.call("main.P", main, 1, nil) // ends before the allocations
	f := b.begin("main.F", main, 1)
	b.alloc("main.F", "make-slice", "[]int", f, 1, 3, 24, 24)
	g := b.begin("main.G", f, 1)
	b.alloc("main.G", "new", "main.cell", g, 1, 1, 40, 48)
	b.end(g, 0)
	w := b.goroutine("main.W", main, 2)
	w1 := b.beginSpawned("main.W", 0, main, 2)
	b.alloc("main.W", "concat", "string", w1, 2, 5, 5, 8)
	b.end(w1)
	b.end(w)
	b.end(f, 0)
	b.end(main)
	as := answers(t, `
(defquestion all :definition ((a f k ty) s.t. (allocation a f k ty)))
(defevent in-f :definition ((x a h) s.t. (exists (f k ty) (and (function-execution x "main.F") (allocation a f k ty) (contains x a) (same-goroutine x a) (allocation-heap-bytes a h)))))
(defquestion heap-in-f :definition (sum in-f (input output output)))
(defquestion count-in-f :definition (count in-f (input output output)))
(defquestion own :definition ((n e h) s.t. (exists (x a k ty) (and (function-execution x "main.F") (allocation a "main.F" k ty) (contains x a) (allocation-bytes a n) (allocation-elements a e) (allocation-heap-bytes a h)))))
(defquestion any-g :definition ((ty g) s.t. (exists (a f k) (and (allocation a f k ty) (goroutine a g)))))
(defquestion after-p :definition ((ty) s.t. (exists (x a f k) (and (function-execution x "main.P") (allocation a f k ty) (before x a)))))
(defquestion before-g :definition ((ty) s.t. (exists (x a f k) (and (function-execution x "main.G") (allocation a f k ty) (before a x)))))
(defquestion in-w :definition ((ty) s.t. (exists (x a f k) (and (goroutine-execution x "main.W") (allocation a f k ty) (contains x a)))))
`, b.trace(t))
	expect(t, as, "all", "# main.F make-slice []int", "# main.G new main.cell", "# main.W concat string")
	expect(t, as, "heap-in-f", "# 72")
	expect(t, as, "count-in-f", "# 2")
	expect(t, as, "own", "24 3 24")
	expect(t, as, "any-g", "[]int #", "main.cell #", "string #")
	expect(t, as, "after-p", "[]int", "main.cell", "string")
	expect(t, as, "before-g", "[]int")
	expect(t, as, "in-w", "string")
}

// TestAllocationAccount: an allocation is charged to the nearest frame
// of its goroutine, from its own function out along its callers, whose
// package a pattern matches (the most specific one); the agents' frames
// are skipped; a goroutine inherits no account; "" when no frame's
// package matches. Liveness is not in the trace.
func TestAllocationAccount(t *testing.T) {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	p := b.begin("example.com/m/parser.Parse", main, 1)
	get := b.begin("example.com/m/pool.Get", p, 1)
	b.alloc("example.com/m/pool.Get", "new", "pool.Buf", get, 1, 1, 64, 64) // parser's, through the agent
	b.end(get)
	b.alloc("example.com/m/parser.Parse", "new", "parser.Node", p, 1, 1, 16, 16) // its own
	d := b.begin("example.com/m/db/index.Load", p, 1)
	get2 := b.begin("example.com/m/pool.Get", d, 1)
	b.alloc("example.com/m/pool.Get", "new", "pool.Buf", get2, 1, 1, 64, 64) // the nearest: db/...'s
	b.end(get2)
	b.end(d)
	w := b.goroutine("example.com/m/pool.Warm", p, 2)
	w1 := b.beginSpawned("example.com/m/pool.Warm", 0, p, 2)
	b.alloc("example.com/m/pool.Warm", "new", "pool.Buf", w1, 2, 1, 64, 64) // no account: a new goroutine
	b.end(w1)
	b.end(w)
	b.end(p)
	b.alloc("main.main", "new", "main.T", main, 1, 1, 8, 8) // main's: "main" matches it
	b.end(main)
	as := answers(t, `
(defquestion charged :definition ((a ty acc) s.t. (exists (f k) (and (allocation a f k ty) (allocation-account a "example.com/m/parser example.com/m/db/... main" acc)))))
(defquestion specific :definition ((a ty acc) s.t. (exists (f k) (and (allocation a f k ty) (allocation-account a "example.com/m/... example.com/m/parser" acc)))))
(defquestion parser-only :definition ((a ty acc) s.t. (exists (f k) (and (allocation a f k ty) (allocation-account a "example.com/m/parser" acc)))))
`, b.trace(t))
	expect(t, as, "charged", "# pool.Buf example.com/m/parser", "# parser.Node example.com/m/parser", "# pool.Buf example.com/m/db/...",
		"# pool.Buf ", "# main.T main")
	// With a pattern that matches pool too, pool's frame is the nearest.
	expect(t, as, "specific", "# pool.Buf example.com/m/...", "# parser.Node example.com/m/parser", "# pool.Buf example.com/m/...",
		"# pool.Buf example.com/m/...", "# main.T ")
	expect(t, as, "parser-only", "# pool.Buf example.com/m/parser", "# parser.Node example.com/m/parser", "# pool.Buf example.com/m/parser",
		"# pool.Buf ", "# main.T ")
	// Package main is of its import path too, when the trace gives it:
	// example.com/m/... matches it, as it matches the module's others.
	b.recs = append(b.recs, reftrace.Record{Kind: "main", Path: "example.com/m"})
	as = answers(t, `
(defquestion specific :definition ((a ty acc) s.t. (exists (f k) (and (allocation a f k ty) (allocation-account a "example.com/m/... example.com/m/parser" acc)))))
(defquestion pool-main :definition ((a ty acc) s.t. (exists (f k) (and (allocation a f k ty) (allocation-account a "example.com/m main" acc)))))
`, b.trace(t))
	expect(t, as, "specific", "# pool.Buf example.com/m/...", "# parser.Node example.com/m/parser", "# pool.Buf example.com/m/...",
		"# pool.Buf example.com/m/...", "# main.T example.com/m/...")
	// The import path before "main": the more specific pattern.
	expect(t, as, "pool-main", "# pool.Buf example.com/m", "# parser.Node example.com/m", "# pool.Buf example.com/m",
		"# pool.Buf ", "# main.T example.com/m")
	if _, err := Evaluate(compile(t, `(defquestion live :definition ((a b) s.t. (exists (f k ty) (and (allocation a f k ty) (allocation-live a b)))))`), b.trace(t)); err == nil {
		t.Error("allocation-live evaluated: the trace has no liveness")
	}
}
