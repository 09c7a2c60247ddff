package plan

import (
	"fmt"
	"sort"
)

// Decision is one test of a question that run time decides (seed 5.3,
// 5.4) when On, or that is left to the answer because some site cannot
// take part.
type Decision struct {
	Question int // index in the program
	What     string
	On       bool
}

// Decisions lists the run-time tests of the plan, on or left to the
// answer, by question and in a stable order.
func (p *Plan) Decisions() []Decision {
	seen := map[any]bool{}
	var out []Decision
	add := func(qi int, key any, on bool, what string) {
		if !seen[key] {
			seen[key] = true
			out = append(out, Decision{Question: qi, What: what, On: on})
		}
	}
	for _, s := range p.Sites {
		for _, t := range s.Targets {
			for qi, fs := range t.Filters {
				for _, f := range fs {
					if pr := f.Probe; pr != nil {
						add(qi, pr, p.On(pr), fmt.Sprintf("equal values of %s and %s, held in %s", pr.Earlier, pr.Later, pr.Caller))
					}
					if a := f.Absent; a != nil {
						add(qi, a, p.On(a), fmt.Sprintf("the absence of (%s %s %s)", a.Relation, a.Caller, a.Var))
					}
					for _, c := range f.Contexts {
						add(qi, c, p.On(c), fmt.Sprintf("(%s %s %s)", c.Relation, c.Ancestor, c.Descendant))
					}
					if ra := f.Aggregate; ra != nil {
						add(qi, ra, p.On(ra), KeptInCells)
					}
				}
			}
			for _, ac := range t.Cells {
				add(ac.QIndex, ac, true, KeptInCells)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Question < out[j].Question })
	return out
}

// KeptInCells is the What of the decision to keep an aggregate in cells:
// pmm export finds by it the questions whose answers it can read while
// the program runs.
const KeptInCells = "the aggregate, kept in cells"
