package plan

import (
	"fmt"
	"strings"
	"testing"

	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/spec"
)

// TestAllocCellsOf: the aggregates of allocations run time adds up in
// cells are counts and sums over one allocation in the head, grouped by
// what its site knows and by one account; anything else a cell cannot
// decide (a test of a value, a join, another event, a negation, a group
// per value or per allocation, liveness, min and max) records tuples.
func TestAllocCellsOf(t *testing.T) {
	const acc = `(allocation-account a "example.com/m/p" acc)`
	for _, c := range []struct {
		body, agg, want string
	}{
		{`((a acc t) s.t. (exists (f k) (and (allocation a f k t) ` + acc + `)))`, "(count X (output input input))", "[{ example.com/m/p} {type }] <nil>"},
		{`((a acc h) s.t. (exists (f k t) (and (allocation a f k t) ` + acc + ` (allocation-heap-bytes a h))))`, "(sum X (output input output))", "[{ example.com/m/p}] heapbytes"},
		{`((a f k n) s.t. (exists (t) (and (allocation a f k t) (allocation-elements a n))))`, "(sum X (output input input output))", "[{function } {kind }] elements"},
		{`((a) s.t. (exists (f k t) (allocation a f k t)))`, "(count X (output))", "[] <nil>"},
		// Not in cells:
		{`((a acc h) s.t. (exists (f k t) (and (allocation a f k t) ` + acc + ` (allocation-heap-bytes a h))))`, "(max X (output input output))", "nil"},
		{`((a h) s.t. (exists (f k t) (and (allocation a f k t) (allocation-heap-bytes a h))))`, "(count X (output input))", "nil"},
		{`((a h) s.t. (exists (f k t) (and (allocation a f k t) (allocation-heap-bytes a h) (> h 64))))`, "(count X (output output))", "nil"},
		{`((a) s.t. (exists (f k t) (and (allocation a f k t) (allocation-heap-bytes a 64))))`, "(count X (output))", "nil"},
		{`((a b) s.t. (exists (f k t) (and (allocation a f k t) (allocation-live a b))))`, "(count X (output input))", "nil"},
		{`((a x) s.t. (exists (f k t) (and (allocation a f k t) (function-execution x "main.F") (contains x a))))`, "(count X (output input))", "nil"},
		{`((acc t) s.t. (exists (a f k) (and (allocation a f k t) ` + acc + `)))`, "(count X (input input))", "nil"},
		{`((a t) s.t. (exists (f k) (and (allocation a f k t) (not (exists (n) (and (allocation-elements a n) (> n 3)))))))`, "(count X (output input))", "nil"},
	} {
		src := fmt.Sprintf("(defevent x :definition %s)\n(defquestion q :definition %s)", c.body, strings.Replace(c.agg, "X", "x", 1))
		prog, err := spec.Compile(spec.Source{Name: "q.pmm", Text: []byte(src)})
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		sch, err := schema.Generate(prog)
		if err != nil {
			t.Fatal(err)
		}
		got := "nil"
		if ac := allocCellsOf(prog.Questions[0], 0, sch); ac != nil {
			v := "<nil>"
			if ac.Value != nil {
				v = string(ac.Value.Cap)
			}
			got = fmt.Sprintf("%v %s", ac.Group, v)
		}
		if got != c.want {
			t.Errorf("%s %s: cells %s, want %s", c.body, c.agg, got, c.want)
		}
	}
}
