package progen

import "maps"

// Question templates over the iterations of loop regions
// (Features.Iterations): loop-iteration, iteration-index, and the
// iterations of one execution of a loop, which it contains.

// loopRegion returns a function satisfying ok with a loop region whose
// iterations the twin records, and that region; nil when there is none.
func (q *qgen) loopRegion(ok func(*Func) bool) (*Func, *region) {
	f := q.pick(func(f *Func) bool {
		for _, r := range f.regions {
			if r.iter && ok(f) {
				return true
			}
		}
		return false
	})
	if f == nil {
		return nil, nil
	}
	var rs []*region
	for _, r := range f.regions {
		if r.iter {
			rs = append(rs, r)
		}
	}
	return f, rs[q.r.Intn(len(rs))]
}

// iterCount counts the iterations of one loop, by index, or of every
// loop by function and label.
func (q *qgen) iterCount() bool {
	f, r := q.loopRegion(any_)
	if f == nil {
		return false
	}
	n := q.name("iter-count")
	switch q.r.Intn(3) {
	case 0:
		q.define("(defevent %s :definition ((i f l) s.t. (loop-iteration i f l)))", n+"-ev")
		q.question(n, "(defquestion %s :definition (count %s (output input input)))", n, n+"-ev")
	case 1:
		q.define("(defevent %s :definition ((i k) s.t. (and (loop-iteration i %s %q) (iteration-index i k))))", n+"-ev", lit(f), r.label)
		q.question(n, "(defquestion %s :definition (count %s (output input)))", n, n+"-ev")
	default:
		q.question(n, "(defquestion %s :definition ((k) s.t. (exists (i) (and (loop-iteration i %s %q) (iteration-index i k)))))", n, lit(f), r.label)
	}
	return true
}

// iterPerLoop counts the iterations of each execution of a loop of a
// function that never runs on a spawned goroutine (the iterations it
// contains), and the executions that ran k iterations.
func (q *qgen) iterPerLoop() bool {
	f, r := q.loopRegion(func(f *Func) bool { return !f.InGo })
	if f == nil {
		return false
	}
	n := q.name("iter-per-loop")
	q.define(`(defevent %s :definition
  ((r i) s.t. (and (region-execution r %s %q) (loop-iteration i %s %q) (contains r i))))`, n+"-ev", lit(f), r.label, lit(f), r.label)
	q.question(n, "(defquestion %s :definition (count %s (input output)))", n, n+"-ev")
	if q.r.Intn(2) == 0 {
		// The last index of each execution: one less than its count.
		q.question(n+"-last", `(defquestion %s :definition
  ((r k) s.t. (and (region-execution r %s %q)
                   (exists (i) (and (loop-iteration i %s %q) (contains r i) (iteration-index i k)
                                    (not (exists (j) (and (loop-iteration j %s %q) (contains r j) (before i j)))))))))`,
			n+"-last", lit(f), r.label, lit(f), r.label, lit(f), r.label)
	}
	return true
}

// iterIn relates the executions of a function that never runs on a
// spawned goroutine to the iterations of its loops or of those of a
// function it calls: by its parameter (or its count) and the index.
func (q *qgen) iterIn() bool {
	a, r := q.mainCaller(func(f *Func) bool {
		for _, l := range f.regions {
			if l.iter {
				return true
			}
		}
		return false
	})
	if a == nil {
		return false
	}
	f, l := q.loopRegion(func(f *Func) bool { return r[f] })
	n := q.name("iter-in")
	if len(a.Params) > 0 {
		q.question(n, `(defquestion %s :definition
  ((v k) s.t. (exists (x i) (and (function-execution x %s) (parameter x 1 v) (loop-iteration i %s %q) (contains x i) (iteration-index i k)))))`,
			n, lit(a), lit(f), l.label)
		return true
	}
	q.define(`(defevent %s :definition
  ((i k) s.t. (exists (x) (and (function-execution x %s) (loop-iteration i %s %q) (contains x i) (iteration-index i k)))))`,
		n+"-ev", lit(a), lit(f), l.label)
	q.question(n, "(defquestion %s :definition (count %s (output input)))", n, n+"-ev")
	return true
}

// iterCalls counts, by index, what the iterations of a loop of a function
// that never runs on a spawned goroutine contain: the executions of a
// function its body calls, directly or not, or of a region inside it; or
// the iterations of its loop that begin after another's end.
func (q *qgen) iterCalls() bool {
	f, l := q.loopRegion(func(f *Func) bool { return !f.InGo })
	if f == nil {
		return false
	}
	if len(l.inner) > 0 && q.r.Intn(3) == 0 {
		n := q.name("iter-regions")
		q.define(`(defevent %s :definition
  ((i o k m) s.t. (and (loop-iteration i %s %q) (region-execution o %s m) (contains i o) (iteration-index i k))))`,
			n+"-ev", lit(f), l.label, lit(f))
		q.question(n, "(defquestion %s :definition (count %s (output output input input)))", n, n+"-ev")
		return true
	}
	if q.r.Intn(4) == 0 {
		n := q.name("iter-before")
		q.define(`(defevent %s :definition
  ((i j k) s.t. (and (loop-iteration i %s %q) (loop-iteration j %s %q) (before i j) (iteration-index j k))))`,
			n+"-ev", lit(f), l.label, lit(f), l.label)
		q.question(n, "(defquestion %s :definition (count %s (output output input)))", n, n+"-ev")
		return true
	}
	in := map[*Func]bool{}
	for c := range l.callees {
		if !c.Worker {
			in[c] = true
			maps.Copy(in, reachNoWorkers(c))
		}
	}
	q.noOwnDefers(f, in)
	if len(in) == 0 {
		return false
	}
	g := q.pickFrom(in)
	n := q.name("iter-calls")
	q.define(`(defevent %s :definition
  ((i y k) s.t. (and (loop-iteration i %s %q) (function-execution y %s) (contains i y) (iteration-index i k))))`,
		n+"-ev", lit(f), l.label, lit(g))
	q.question(n, "(defquestion %s :definition (count %s (output output input)))", n, n+"-ev")
	return true
}
