package refeval

import "testing"

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
