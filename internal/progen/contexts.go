package progen

import (
	"math/rand"
)

// Calling contexts (Features.Contexts): question templates over
// calling-context, drawn from a source of their own after the others, so
// that the rest of each seed's questions stay as they were.

// contextQuestions draws one or two calling-context questions.
func (q *qgen) contextQuestions() {
	if !q.p.Features.Contexts {
		return
	}
	q.r = rand.New(rand.NewSource(q.p.Seed*7741 + 3))
	templates := []func() bool{q.ctxCount}
	if len(q.p.allocFuncs()) > 0 {
		templates = append(templates, q.ctxAlloc)
	}
	want := 1 + q.r.Intn(2)
	for tries, n := 0, len(q.names); len(q.names) < n+want && tries < 20; tries++ {
		templates[q.r.Intn(len(templates))]()
	}
}

// ctxCount counts the executions of a function per calling context.
func (q *qgen) ctxCount() bool {
	f := q.pick(func(*Func) bool { return true })
	if f == nil {
		return false
	}
	n := q.name("ctx-count")
	q.define("(defevent %s :definition ((c x) s.t. (and (function-execution x %s) (calling-context x c))))", n+"-ev", lit(f))
	q.question(n, "(defquestion %s :definition (count %s (input output)))", n, n+"-ev")
	return true
}

// ctxAlloc counts the allocations by type per calling context, of every
// function.
func (q *qgen) ctxAlloc() bool {
	f := "f"
	n := q.name("ctx-alloc")
	q.define("(defevent %s :definition ((c t a) s.t. (exists (f k) (and (allocation a %s k t) (calling-context a c)))))", n+"-ev", f)
	q.question(n, "(defquestion %s :definition (count %s (input input output)))", n, n+"-ev")
	return true
}
