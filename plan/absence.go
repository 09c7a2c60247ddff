package plan

import (
	"pmm.dev/pmm/spec"
)

// Absence is a negated part decided exactly at run time: (not (exists
// (h ...) (and (calls c h) tests of h alone))). A direct callee of c is
// absent from an execution of c when no call site in c's body ran an
// execution of h that passed the tests; that is known when c ends (seed
// 5.3, the post-condition), and c is recorded only then. The executions
// of h are not recorded for the question: its view finds none, and the
// negation holds for every execution of c recorded.
//
// With (calls* c h) instead (Dynamic), c's executions that passed their
// pre-condition enter a goroutine-local slot with their flag
// (pmmrt.EnterFlag), and an execution of h that passed its tests sets
// the flags of every execution of c active in its goroutine when it ends
// (pmmrt.MarkAll): those that contain it.
type Absence struct {
	Caller, Var string
	Relation    string // the name of the relation between them, as written
	Dynamic     bool
	Slot        int // Dynamic: the slot of the goroutine-local context
	// Name is the function h must be an execution of, if named; Conds
	// are its tests, each on its own values.
	Name  string
	Conds []Cond
}

// absencesOf finds the negated parts of a disjunct that run time can
// decide exactly.
func absencesOf(root *spec.Conj) map[*spec.Conj]*Absence {
	out := map[*spec.Conj]*Absence{}
	for _, n := range root.Not {
		if a := absenceOf(n); a != nil {
			out[n] = a
		}
	}
	return out
}

func absenceOf(n *spec.Conj) *Absence {
	if len(n.Not) > 0 {
		return nil
	}
	inside := map[string]bool{}
	for _, v := range n.Exists {
		inside[v] = true
	}
	var a *Absence
	var link *spec.Atom // (calls c h) or (calls* c h)
	for _, at := range n.Atoms {
		if at.Prim.Calls() && at.Args[0].Lit == nil && at.Args[1].Lit == nil && !inside[at.Args[0].Var] && inside[at.Args[1].Var] {
			if a != nil {
				return nil
			}
			a = &Absence{Caller: at.Args[0].Var, Var: at.Args[1].Var, Relation: at.Pred(), Dynamic: at.Prim.Transitive()}
			link = at
		}
	}
	if a == nil {
		return nil
	}
	values := boundValues(a.Var, n)
	used, bound := map[string]bool{}, map[string]bool{}
	for _, at := range n.Atoms {
		switch {
		case at == link:
		case at.Prim.Name == spec.TypeFunctionExecution && at.Args[0].Var == a.Var && at.Args[1].Lit != nil:
			a.Name = at.Args[1].Lit.Str
		case at.Prim.Kind == spec.Attribute && at.Args[0].Lit == nil && at.Args[0].Var == a.Var:
			last := at.Args[len(at.Args)-1]
			if last.Lit != nil || values[last.Var] == (Field{}) || !inside[last.Var] || bound[last.Var] {
				return nil // a constant, a value the site cannot test, a join
			}
			bound[last.Var] = true
		case at.Prim.Kind == spec.ValueRelation:
			c, ok := condOf(at, values, false)
			if !ok {
				return nil
			}
			for v := range c.Values {
				used[v] = true
			}
			a.Conds = append(a.Conds, c)
		default:
			return nil
		}
	}
	// Every value the attributes bind is tested: an attribute alone also
	// says the value exists, which a test at the site would not check.
	for v := range values {
		if !used[v] {
			return nil
		}
	}
	for _, v := range n.Exists {
		if v != a.Var && !used[v] {
			return nil
		}
	}
	return a
}
