package refeval

import "testing"

// regionsTrace is a run with regions. Sequence numbers in brackets:
//
//	main [1 .. 20] on goroutine 1
//	  F(1) [2 .. 11]
//	    F/outer [3 .. 10]
//	      F/inner [4 .. 7]
//	        L(1) [5 .. 6]
//	      F/inner [8 .. 9]
//	  go W() on goroutine 2 [12 .. never]
//	    W/loop [13 .. never]
//	  F(2) [14 .. 19]
//	    F/outer [15 .. 18]
//	      L(2) [16 .. 17]
func regionsTrace(t *testing.T) *traceBuilder {
	b := &traceBuilder{}
	main := b.begin("main.main", 0, 1)
	f1 := b.begin("main.F", main, 1, 1)
	o1 := b.region("main.F", "outer", f1, 1)
	i1 := b.region("main.F", "inner", f1, 1)
	b.call("main.L", f1, 1, []any{1}, 1)
	b.end(i1)
	b.end(b.region("main.F", "inner", f1, 1))
	b.end(o1)
	b.end(f1, 3)
	w := b.beginSpawned("main.W", 0, main, 2)
	b.region("main.W", "loop", w, 2)
	f2 := b.begin("main.F", main, 1, 2)
	o2 := b.region("main.F", "outer", f2, 1)
	b.call("main.L", f2, 1, []any{2}, 2)
	b.end(o2)
	b.end(f2, 4)
	b.end(main)
	if b.seq != 20 {
		t.Fatalf("the trace has %d points, the comment above says 20", b.seq)
	}
	return b
}

// TestRegionExecutions: region-execution names a region by its function
// and label, either of which may be a variable; a region's execution is
// an interval of contains, before and same-goroutine, with a goroutine
// and begin and end points (pmm check refuses a region as a function's
// execution: function-execution, parameters, calls); point, defined by
// function-execution, does not range over a region's points.
func TestRegionExecutions(t *testing.T) {
	as := answers(t, `
(defquestion regions :definition ((r f l) s.t. (region-execution r f l)))
(defquestion region-count :definition (count regions (output input input)))
(defquestion inner-in-outer :definition
  ((o n) s.t. (exists (i) (and (region-execution o "main.F" "outer") (region-execution i "main.F" "inner") (contains o i)
                              (= n 1)))))
(defquestion in-f :definition
  ((v l) s.t. (exists (f r) (and (function-execution f "main.F") (parameter f 1 v) (region-execution r "main.F" l) (contains f r)))))
(defquestion l-in-region :definition
  ((l v) s.t. (exists (r x) (and (region-execution r "main.F" l) (function-execution x "main.L") (contains r x) (parameter x 1 v)))))
(defquestion after-inner :definition
  ((y) s.t. (exists (i x) (and (region-execution i "main.F" "inner") (before i x) (function-execution x y)))))
(defquestion same-g :definition
  ((l) s.t. (exists (r w f) (and (function-execution w "main.W") (region-execution r f l) (same-goroutine w r)))))
(defquestion goroutines :definition ((l g) s.t. (exists (r f) (and (region-execution r f l) (goroutine r g)))))
(defquestion ended :definition ((l) s.t. (exists (r f p) (and (region-execution r f l) (end p r)))))
(defquestion begun :definition ((l) s.t. (exists (r f p) (and (region-execution r f l) (begin p r)))))
(defquestion region-points :definition
  ((p) s.t. (exists (r f l) (and (region-execution r f l) (begin p r) (point p)))))
`, regionsTrace(t).trace(t))
	expect(t, as, "regions", "# main.F inner", "# main.F inner", "# main.F outer", "# main.F outer", "# main.W loop")
	expect(t, as, "region-count", "main.F inner 2", "main.F outer 2", "main.W loop 1")
	expect(t, as, "inner-in-outer", "# 1")
	expect(t, as, "in-f", "1 inner", "1 outer", "2 outer")
	expect(t, as, "l-in-region", "inner 1", "outer 1", "outer 2")
	// The first inner ends at 7: the second inner, then W and F(2) and
	// the Ls in it begin after it (main.F(1) ends after).
	expect(t, as, "after-inner", "main.F", "main.L", "main.W")
	expect(t, as, "same-g", "loop")
	expect(t, as, "goroutines", "inner #", "loop #", "outer #")
	expect(t, as, "ended", "inner", "outer")
	expect(t, as, "begun", "inner", "loop", "outer")
	expect(t, as, "region-points")
}
