package refeval

import "testing"

// iterationsTrace is a run with loop iterations and blocking operations.
// Sequence numbers in brackets:
//
//	main [1 .. 24] on goroutine 1
//	  F(1) [2 .. 15]
//	    F/loop [3 .. 14]
//	      iteration 0 [4 .. 7]
//	        L(1) [5 .. 6]
//	      iteration 1 [8 .. 11]
//	        send ch [9 .. 10]
//	      iteration 2 [12 .. 13]
//	  go W() on goroutine 2 [16 .. never]
//	    select [17 .. never]
//	  F(2) [18 .. 23]
//	    F/loop [19 .. 22]
//	      iteration 0 [20 .. 21]
//	  (W's lock s.mu and select by case 1 end outside F: [..])
func iterationsTrace(t *testing.T) *traceBuilder {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	f1 := b.begin("main.F", main, 1, 1)
	l1 := b.region("main.F", "loop", f1, 1)
	i0 := b.iteration("main.F", "loop", 0, f1, 1)
	b.call("main.L", f1, 1, []any{1}, 1)
	b.end(i0)
	i1 := b.iteration("main.F", "loop", 1, f1, 1)
	b.end(b.op("main.F", "send", "ch", f1, 1))
	b.end(i1)
	b.end(b.iteration("main.F", "loop", 2, f1, 1))
	b.end(l1)
	b.end(f1, 3)
	w := b.beginSpawned("main.W", 0, main, 2)
	b.op("main.W", "select", "", w, 2)
	f2 := b.begin("main.F", main, 1, 2)
	l2 := b.region("main.F", "loop", f2, 1)
	b.end(b.iteration("main.F", "loop", 0, f2, 1))
	b.end(l2)
	b.end(f2, 4)
	b.end(main)
	if b.seq != 24 {
		t.Fatalf("the trace has %d points, the comment above says 24", b.seq)
	}
	return b
}

// TestIterations: loop-iteration names a loop region by its function and
// label, either a variable, and iteration-index numbers its iterations in
// one execution of it; the iterations of an execution are those it
// contains.
func TestIterations(t *testing.T) {
	as := answers(t, `
(defquestion iters :definition ((i f l n) s.t. (and (loop-iteration i f l) (iteration-index i n))))
(defevent per-loop :definition ((r i) s.t. (and (region-execution r "main.F" "loop") (loop-iteration i "main.F" "loop") (contains r i))))
(defquestion per-execution :definition (count per-loop (input output)))
(defevent indexed :definition ((i n) s.t. (and (loop-iteration i "main.F" "loop") (iteration-index i n))))
(defquestion by-index :definition (count indexed (output input)))
(defquestion calls-in :definition
  ((n v) s.t. (exists (i x l) (and (loop-iteration i "main.F" l) (function-execution x "main.L") (contains i x)
                                 (iteration-index i n) (parameter x 1 v)))))
(defquestion after-first :definition
  ((n) s.t. (exists (i j) (and (loop-iteration i "main.F" "loop") (iteration-index i 0) (loop-iteration j "main.F" "loop")
                               (before i j) (iteration-index j n) (same-goroutine i j)))))
(defquestion in-fn :definition ((v n) s.t. (exists (f i) (and (function-execution f "main.F") (parameter f 1 v) (loop-iteration i "main.F" "loop") (contains f i) (iteration-index i n)))))
(defquestion ended :definition ((n) s.t. (exists (i p) (and (loop-iteration i "main.F" "loop") (end p i) (iteration-index i n)))))
`, iterationsTrace(t).trace(t))
	expect(t, as, "iters", "# main.F loop 0", "# main.F loop 0", "# main.F loop 1", "# main.F loop 2")
	expect(t, as, "per-execution", "# 3", "# 1")
	expect(t, as, "by-index", "0 2", "1 1", "2 1")
	expect(t, as, "calls-in", "0 1")
	expect(t, as, "after-first", "0", "1", "2")
	expect(t, as, "in-fn", "1 0", "1 1", "1 2", "2 0")
	expect(t, as, "ended", "0", "1", "2")
}

// TestBlockingOperations: blocking-operation names an operation by its
// function, kind and operand, any of them a variable; select-case is the
// case by which a select proceeded, -1 for another kind, and a select
// that never ended has none.
func TestBlockingOperations(t *testing.T) {
	b := iterationsTrace(t)
	// W locks s.mu, then a second select of W proceeds by its case 1.
	lock := b.op("main.W", "lock", "s.mu", 4, 2)
	b.end(lock)
	sel := b.op("main.W", "select", "", 4, 2)
	b.selected(sel, 1)
	as := answers(t, `
(defquestion ops :definition ((b f k o) s.t. (blocking-operation b f k o)))
(defquestion cases :definition ((k c) s.t. (exists (b o) (and (blocking-operation b "main.W" k o) (select-case b c)))))
(defquestion in-f :definition ((v k o) s.t. (exists (f b) (and (function-execution f "main.F") (parameter f 1 v) (blocking-operation b "main.F" k o) (contains f b)))))
(defquestion in-iteration :definition ((n k) s.t. (exists (i b o) (and (loop-iteration i "main.F" "loop") (blocking-operation b "main.F" k o) (contains i b) (iteration-index i n)))))
(defquestion sends :definition ((b) s.t. (blocking-operation b "main.F" "send" "ch")))
(defquestion on-w :definition ((k) s.t. (exists (w b f o) (and (function-execution w "main.W") (blocking-operation b f k o) (same-goroutine w b)))))
(defquestion not-points :definition ((p) s.t. (exists (b f k o) (and (blocking-operation b f k o) (begin p b) (point p)))))
`, b.trace(t))
	expect(t, as, "ops", "# main.F send ch", "# main.W select ", "# main.W lock s.mu", "# main.W select ")
	expect(t, as, "cases", "lock -1", "select 1")
	expect(t, as, "in-f", "1 send ch")
	expect(t, as, "in-iteration", "1 send")
	expect(t, as, "sends", "#")
	expect(t, as, "on-w", "lock", "select")
	expect(t, as, "not-points")
}

// TestBlocked: operation-blocked is whether a blocking operation's first
// attempt, without waiting, failed; (blocked b) is (operation-blocked b
// true), and its negation holds of those that did not block. An
// operation the trace did not try (a select), or that never ended, has
// no value: (blocked b) does not hold of it, so its negation does.
func TestBlocked(t *testing.T) {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	f := b.begin("main.F", main, 1, 1)
	b.tried(b.op("main.F", "lock", "mu", f, 1), true)
	b.tried(b.op("main.F", "send", "ch", f, 1), false)
	b.tried(b.op("main.F", "recv", "ch", f, 1), false)
	b.selected(b.op("main.F", "select", "", f, 1), 0)
	open := b.op("main.F", "recv", "ch", f, 1) // never ended: not known
	_ = open
	b.end(f)
	b.end(main)
	as := answers(t, `
(defquestion values :definition ((k w) s.t. (exists (b o) (and (blocking-operation b "main.F" k o) (operation-blocked b w)))))
(defquestion waited :definition ((k) s.t. (exists (b o) (and (blocking-operation b "main.F" k o) (blocked b)))))
(defquestion proceeded :definition ((k) s.t. (exists (b o) (and (blocking-operation b "main.F" k o) (not (blocked b))))))
`, b.trace(t))
	expect(t, as, "values", "lock 1", "send 0", "recv 0")
	expect(t, as, "waited", "lock")
	expect(t, as, "proceeded", "send", "recv", "select")
}
