package plan

import (
	"pmm.dev/pmm/spec"
)

// Context is a (calls* a d) decided at run time through the
// goroutine-local dynamic context (pmmrt.Enter, Active): an execution of
// a that passed its pre-condition enters slot Slot until it ends, and an
// execution of d is recorded only when such an execution of a is active
// in its goroutine. Unlike calls, the two sites are in different
// functions, so no local variable links them. The test is sound (an
// execution of d dropped has no active a in its goroutine, so no a calls
// it); the view still decides calls* from ids, ends and goroutines.
//
// (contains a d) holds across goroutines: a only counts its executions
// (pmmrt.EnterAny), and d is recorded only when one is active anywhere
// (pmmrt.Any), a test that costs an atomic load.
type Context struct {
	Ancestor, Descendant string
	Relation             string // the name of the relation between them, as written
	Slot                 int
	Anywhere             bool // contains, not calls*
}

// contextsOf finds the calls* and contains relations between two
// executions of a disjunct, outside its negated parts, with slots
// numbered from next.
func contextsOf(root *spec.Conj, types spec.VarTypes, next int) []*Context {
	var out []*Context
	for _, at := range root.Atoms {
		a, d := at.Args[0], at.Args[len(at.Args)-1]
		if at.Prim.Nests() && !at.Prim.Lexical && a.Lit == nil && d.Lit == nil && a.Var != d.Var &&
			types[a.Var] == spec.TypeFunctionExecution && types[d.Var] == spec.TypeFunctionExecution {
			out = append(out, &Context{Ancestor: a.Var, Descendant: d.Var, Relation: at.Pred(), Slot: next + len(out), Anywhere: !at.Prim.Transitive()})
		}
	}
	return out
}
