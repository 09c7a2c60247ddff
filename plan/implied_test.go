package plan

import (
	"testing"

	"pmm.dev/pmm/internal/stagetest"
	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// TestImpliedIDs: an allocation site takes the id its record implies
// only where the allocation's two tuples are the only place its id is
// read: not with a third tuple, a control relation, a calling context,
// or a second question recording it too.
func TestImpliedIDs(t *testing.T) {
	_, db := stagetest.StaticDBWith(t, static.Config{Dir: "../testdata/allocbench", Escape: true})
	const heap = `(defquestion q :definition ((a f k t h) s.t. (and (allocation a f k t) (allocation-heap-bytes a h))))`
	for _, c := range []struct {
		name, src string
		implied   bool
	}{
		{"heap bytes", heap, true},
		{"bytes, filtered", `(defquestion q :definition ((a f k t b) s.t. (and (allocation a f k t) (allocation-bytes a b) (> b 8))))`, true},
		{"bytes and heap bytes", `(defquestion q :definition ((a h b) s.t. (exists (f k t) (and (allocation a f k t) (allocation-heap-bytes a h) (allocation-bytes a b)))))`, false},
		{"contains", `(defquestion q :definition ((a x h) s.t. (exists (f k t) (and (allocation a f k t) (allocation-heap-bytes a h)
			(function-execution x "example.com/allocbench.List") (contains x a)))))`, false},
		{"calling context", `(defquestion q :definition ((a c) s.t. (exists (f k t) (and (allocation a f k t) (calling-context a c)))))`, false},
		{"two questions", heap + "\n" + `(defquestion r :definition ((a h) s.t. (exists (f k t) (and (allocation a f k t) (allocation-heap-bytes a h)))))`, false},
	} {
		p := buildPlan(t, db, stagetest.Compile(t, "q.pmm", c.src))
		allocs := 0
		for _, s := range p.Sites {
			if s.Kind != spec.SiteAllocation {
				continue
			}
			allocs++
			if s.ImpliedID != c.implied {
				t.Errorf("%s: %s has ImpliedID %v, want %v", c.name, s.Position(), s.ImpliedID, c.implied)
			}
		}
		if allocs < 8 {
			t.Errorf("%s: %d allocation sites, want every allocation of allocbench", c.name, allocs)
		}
	}
}
