package plan

import (
	"testing"

	"pmm.dev/pmm/internal/stagetest"
)

// TestBlockedOnly checks which blocking sites record only the operations
// that blocked: those of whose events every conjunction has (blocked
// b), with run-time filters on; a question that records an operation
// whatever it did (its outcome, or its negation), or the modes without
// run-time filters, keep them recording every operation.
func TestBlockedOnly(t *testing.T) {
	dir := "../testdata/blockedops"
	_, db := stagetest.StaticDB(t, dir)
	for _, c := range []struct {
		name, questions string
		filters         bool
		want            map[string]bool // by function, its lock site's BlockedOnly
	}{
		{"blocked", `(defquestion q :definition ((b) s.t. (exists (o) (and (blocking-operation b "main.Guarded" "lock" o) (blocked b)))))`,
			true, map[string]bool{"main.Guarded": true}},
		{"no filters", `(defquestion q :definition ((b) s.t. (exists (o) (and (blocking-operation b "main.Guarded" "lock" o) (blocked b)))))`,
			false, map[string]bool{"main.Guarded": false}},
		{"outcome", `(defquestion q :definition ((b w) s.t. (exists (o) (and (blocking-operation b "main.Guarded" "lock" o) (operation-blocked b w)))))`,
			true, map[string]bool{"main.Guarded": false}},
		{"not blocked", `(defquestion q :definition ((b) s.t. (exists (o) (and (blocking-operation b "main.Guarded" "lock" o) (not (blocked b))))))`,
			true, map[string]bool{"main.Guarded": false}},
		{"one disjunct without", `(defquestion q :definition ((b) s.t. (exists (o) (or (and (blocking-operation b "main.Guarded" "lock" o) (blocked b))
                                                                                  (and (blocking-operation b "main.Lock" "lock" o) (blocked b))
                                                                                  (blocking-operation b "main.Lock" "lock" o)))))`,
			true, map[string]bool{"main.Guarded": true, "main.Lock": false}},
		{"another question", `(defquestion q :definition ((b) s.t. (exists (o) (and (blocking-operation b "main.Guarded" "lock" o) (blocked b)))))
(defquestion r :definition ((b) s.t. (exists (o) (blocking-operation b "main.Guarded" "lock" o))))`,
			true, map[string]bool{"main.Guarded": false}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := buildPlanWith(t, db, stagetest.Compile(t, "q.pmm", c.questions), Options{Filters: c.filters})
			got := map[string]bool{}
			for _, s := range p.Sites {
				if s.Label == "lock" {
					got[s.Function] = s.BlockedOnly
				}
			}
			for f, want := range c.want {
				if b, ok := got[f]; !ok || b != want {
					t.Errorf("the lock site of %s: BlockedOnly %v (recorded %v), want %v", f, b, ok, want)
				}
			}
		})
	}
}
