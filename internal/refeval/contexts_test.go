package refeval

import "testing"

// TestCallingContexts: an execution's calling context is the functions
// of its callers from its goroutine's root, its own last; an
// allocation's, the context of the execution it is in; a recursion is a
// chain; a goroutine's root is its own function, not its spawner's.
func TestCallingContexts(t *testing.T) {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	a := b.begin("main.A", main, 1)
	l1 := b.begin("main.leaf", a, 1)
	b.alloc("main.leaf", "new", "main.cell", l1, 1, 1, 16, 16)
	b.end(l1, 0)
	b.end(a, 0)
	r1 := b.begin("main.rec", main, 1)
	r2 := b.begin("main.rec", r1, 1)
	l2 := b.begin("main.leaf", r2, 1)
	b.alloc("main.leaf", "new", "main.cell", l2, 1, 1, 16, 16)
	b.end(l2, 0)
	b.alloc("main.rec", "make-slice", "[]int", r2, 1, 2, 16, 16)
	b.end(r2, 0)
	b.end(r1, 0)
	w := b.goroutine("main.W", main, 2)
	w1 := b.beginSpawned("main.W", 0, main, 2)
	l3 := b.begin("main.leaf", w1, 2)
	b.end(l3, 0)
	b.end(w1)
	b.end(w)
	b.end(main)
	as := answers(t, `
(defevent leaf-runs :definition ((c x) s.t. (and (function-execution x "main.leaf") (calling-context x c))))
(defquestion leafs :definition (count leaf-runs (input output)))
(defquestion allocs :definition ((c ty) s.t. (exists (a f k) (and (allocation a f k ty) (calling-context a c)))))
`, b.trace(t))
	expect(t, as, "leafs", "main.W;main.leaf 1", "main.main;main.A;main.leaf 1", "main.main;main.rec;main.rec;main.leaf 1")
	expect(t, as, "allocs", "main.main;main.A;main.leaf main.cell", "main.main;main.rec;main.rec []int", "main.main;main.rec;main.rec;main.leaf main.cell")
}
