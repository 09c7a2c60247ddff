package plan

import (
	"slices"

	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/spec"
)

// RunAggregate is an aggregate question whose relation run time decides
// exactly (seed 5.4): instead of recording tuples, the site where a
// tuple is known to be in the relation adds it to a cell of the
// question's groups (pmmrt.AggInt), and only the cells are stored.
//
// A tuple of the relation is one execution of its event E (the one event
// of the head; the other head variables are E's values). When E is a
// direct callee of an outermost caller C, the tuple is known only when C
// ends and passes (its other callees, its negated parts): E's addition is
// held in C's state until then, and forgotten if C does not pass (unless
// C passes at its begin: instrument's aggregateAtBegin adds what is known
// at an execution's begin then, so that one that never ends is counted).
type RunAggregate struct {
	Table  uint16 // the question's cells table
	Event  string // E
	Caller string // C, or "" when E is the outermost event
	// Group are E's values at the input positions; Value the one the
	// aggregate reads (nil for count).
	Group []Field
	Value *Field
	// Pairs and Absences are the question's other tests decided at run
	// time: if one is off, the relation is not decided exactly.
	Pairs    []*Pair
	Absences []*Absence
}

// runAggregateOf returns how run time aggregates question q in its only
// disjunct root, or nil when it cannot decide the relation exactly: every
// atom must be a test some site runs exactly, between events that are a
// caller and its direct callees.
func runAggregateOf(q *spec.Question, root *spec.Conj, a *Conj, pairs []*Pair, absences map[*spec.Conj]*Absence, sch *schema.Schema) *RunAggregate {
	if q.Aggregate == nil || len(q.Disjuncts) != 1 || a == nil {
		return nil
	}
	isEvent := func(v string) bool { return a.Types[v] == spec.TypeFunctionExecution }
	for _, t := range a.Types {
		if t != spec.TypeFunctionExecution && t != spec.TypeValue {
			return nil // points
		}
	}
	ra := &RunAggregate{Pairs: pairs, Table: sch.Table(q.Name, schema.KindCells).ID}
	for _, v := range q.Head {
		if isEvent(v) {
			if ra.Event != "" {
				return nil // a tuple of two events: several per execution
			}
			ra.Event = v
		}
	}
	if ra.Event == "" {
		return nil
	}
	// The head's values are the event's: its attributes, or the name of
	// its function, which each site knows.
	bound := attributeBinding(ra.Event, root)
	name := ""
	for _, at := range root.Atoms {
		if at.Prim.Name == spec.TypeFunctionExecution && at.Args[0].Var == ra.Event && at.Args[1].Lit == nil {
			name = at.Args[1].Var
		}
	}
	for i, v := range q.Head {
		if v == ra.Event {
			continue
		}
		var f Field
		if at := bound[v]; at != nil {
			var ok bool
			if f, ok = keyField(at); !ok {
				return nil
			}
		} else if v == name {
			f = Field{Cap: CapFunction}
		} else {
			return nil
		}
		if q.Aggregate.Inputs[i] {
			ra.Group = append(ra.Group, f)
		}
		if q.Aggregate.Value == i {
			ra.Value = &f
		}
	}
	// Direct calls from one caller that nothing calls.
	callers := map[string]string{}
	for _, at := range root.Atoms {
		if isDirectCall(at.Prim) {
			if at.Args[0].Lit != nil || at.Args[1].Lit != nil || callers[at.Args[1].Var] != "" {
				return nil
			}
			callers[at.Args[1].Var] = at.Args[0].Var
			if ra.Caller != "" && ra.Caller != at.Args[0].Var {
				return nil
			}
			ra.Caller = at.Args[0].Var
		}
	}
	if callers[ra.Caller] != "" {
		return nil
	}
	for v, t := range a.Types {
		if t == spec.TypeFunctionExecution && v != ra.Caller && callers[v] == "" && (ra.Caller != "" || v != ra.Event) {
			return nil // an event neither the caller nor its callee
		}
	}
	if ra.Caller == ra.Event {
		ra.Caller = "" // the outermost event is the tuple's: no caller to wait for
	}
	for _, p := range pairs {
		if p.Earlier == ra.Event {
			return nil // known only when a later event finds it
		}
	}
	// Every atom is a test run exactly.
	tested := map[string]bool{} // value variables some test reads
	for _, at := range root.Atoms {
		if at.Prim.Kind != spec.ValueRelation {
			continue
		}
		local := false
		for v := range a.Types {
			if _, ok := condOf(at, boundValues(v, root), false); ok {
				local = true
			}
		}
		if !local && !coveredByPair(at, pairs, root) {
			return nil
		}
		for _, t := range at.Args {
			if t.Lit == nil {
				tested[t.Var] = true
			}
		}
	}
	uses := map[string]int{} // occurrences of each variable
	root.EachAtom(func(at *spec.Atom) {
		for _, t := range at.Args {
			if t.Lit == nil {
				uses[t.Var]++
			}
		}
	})
	seen := map[string]bool{} // value variables bound once already
	for _, at := range root.Atoms {
		switch {
		case at.Prim.Name == spec.TypeFunctionExecution && at.Args[1].Lit == nil:
			if uses[at.Args[1].Var] > 1 || at.Args[1].Var != name && slices.Contains(q.Head, at.Args[1].Var) {
				return nil // a function name tested, or another event's in the answer
			}
		case at.Prim.Name == spec.TypeFunctionExecution, isDirectCall(at.Prim):
		case at.Prim.EndsBefore():
			if !coveredByPair(at, pairs, root) {
				return nil
			}
		case at.Prim.Kind == spec.Attribute:
			last := at.Args[len(at.Args)-1]
			if last.Lit != nil {
				return nil // compared with a constant: not a test sites write
			}
			if seen[last.Var] && !coveredByPair(at, pairs, root) {
				return nil // a join no pair decides
			}
			seen[last.Var] = true
			if _, ok := keyField(at); !ok && !tested[last.Var] {
				return nil
			}
			if !tested[last.Var] && !slices.Contains(q.Head, last.Var) && !coveredByPair(at, pairs, root) {
				return nil // a value that must only exist
			}
		case at.Prim.Kind == spec.ValueRelation:
		default:
			return nil
		}
	}
	for _, n := range root.Not {
		ab := absences[n]
		if ab == nil {
			return nil
		}
		ra.Absences = append(ra.Absences, ab)
	}
	return ra
}

// coveredByPair reports whether a pair decides atom at: its (before
// earlier later), or one of its equal values.
func coveredByPair(at *spec.Atom, pairs []*Pair, root *spec.Conj) bool {
	for _, p := range pairs {
		if at.Prim.EndsBefore() && at.Args[0].Var == p.Earlier && at.Args[1].Var == p.Later {
			return true
		}
		if _, _, ok := equalValues(at, p.Earlier, p.Later, root); ok {
			return true
		}
		if at.Prim.Kind == spec.Attribute && at.Args[0].Var == p.Earlier {
			if w := at.Args[len(at.Args)-1]; w.Lit == nil {
				for _, b := range root.Atoms {
					if b.Prim.Kind == spec.Attribute && b.Args[0].Var == p.Later && b.Args[len(b.Args)-1].Var == w.Var {
						if _, _, ok := equalValues(b, p.Earlier, p.Later, root); ok {
							return true
						}
					}
				}
			}
		}
	}
	return false
}
