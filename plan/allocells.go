package plan

import (
	"slices"

	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/spec"
)

// AllocCells is an aggregate question over allocations that run time
// adds up itself, in cells, instead of recording a tuple per
// allocation: a count or sum whose activity is one allocation event
// and attributes of it, grouped by what each allocation site knows
// when it is generated (its function, kind and type) and by the memory
// account the allocation is charged to (one of the patterns, or none).
// Each site has a Cell per group it can add to, made once
// (pmmrt.NewCell; questions of one site whose groups are the same share
// it), and an allocation is one addition to its P's cell (Cell.Count,
// Cell.Add): the cost of an account question is then the account's
// (docs/PERFORMANCE.md). The question's view reads the cells as it
// reads a run-time aggregate's (schema's fromCells).
type AllocCells struct {
	Question string
	QIndex   int
	Table    uint16 // the question's cells table
	// Group are the group keys in the order of the cells table's
	// columns; Value, for a sum, the value added (nil for a count).
	Group []CellKey
	Value *Field
}

// CellKey is a group key of AllocCells: a value the allocation site
// knows (Known), or its account (Account, the patterns of its set).
type CellKey struct {
	Known   string // "function", "kind" or "type", or ""
	Account string
}

// The values an allocation site knows when it is generated.
const (
	KnownFunction = "function"
	KnownKind     = "kind"
	KnownType     = "type"
)

// allocCellsOf returns how run time adds up question q in cells, or nil
// when it cannot: q must be a count or sum over one allocation event,
// in the head at an output position, whose other head values are the
// allocation's function, kind, type (variables of its atom) or
// account, and whose summed value is its elements, requested or heap
// bytes; no other atom, no comparison, no negation, each variable
// used once.
func allocCellsOf(q *spec.Question, qindex int, sch *schema.Schema) *AllocCells {
	if q.Aggregate == nil || len(q.Disjuncts) != 1 || q.Aggregate.Op != "count" && q.Aggregate.Op != "sum" {
		return nil
	}
	root := q.Disjuncts[0]
	if len(root.Not) > 0 {
		return nil
	}
	event := ""
	for _, at := range root.Atoms {
		if at.Prim.Name == spec.TypeAllocation {
			if event != "" || at.Args[0].Var == "" {
				return nil
			}
			event = at.Args[0].Var
		}
	}
	if event == "" {
		return nil
	}
	// What each variable is: a key the site knows, an account, a value.
	keys := map[string]CellKey{}
	values := map[string]Capture{}
	uses := map[string]int{}
	for _, at := range root.Atoms {
		for _, t := range at.Args {
			if t.Var != "" {
				uses[t.Var]++
			}
		}
		switch {
		case at.Prim.Name == spec.TypeAllocation:
			for i, known := range []string{KnownFunction, KnownKind, KnownType} {
				if v := at.Args[i+1].Var; v != "" {
					keys[v] = CellKey{Known: known}
				}
			}
		case at.Prim.Kind == spec.Attribute && at.Prim.Recorded != nil && at.Args[0].Var == event:
			last := at.Args[len(at.Args)-1]
			if last.Var == "" {
				return nil // a literal value: a test
			}
			switch c := Capture(at.Prim.Recorded.Capture); c {
			case CapAccount:
				keys[last.Var] = CellKey{Account: at.Args[1].Lit.Str}
			case CapElements, CapBytes, CapHeapBytes:
				values[last.Var] = c
			default:
				return nil
			}
		default:
			return nil
		}
	}
	for v, n := range uses {
		if n > 1 && v != event {
			return nil // a join, or a value compared
		}
	}
	ac := &AllocCells{Question: q.Name, QIndex: qindex, Table: sch.Table(q.Name, schema.KindCells).ID}
	for i, v := range q.Head {
		switch {
		case v == event:
			if q.Aggregate.Inputs[i] {
				return nil // a group per allocation
			}
		case q.Aggregate.Inputs[i]:
			k, ok := keys[v]
			if !ok {
				return nil
			}
			ac.Group = append(ac.Group, k)
		case i == q.Aggregate.Value:
			c, ok := values[v]
			if !ok {
				return nil
			}
			ac.Value = &Field{Cap: c}
		}
	}
	if !slices.Contains(q.Head, event) || len(ac.accounts()) > 1 {
		return nil // tuples of values, where equal ones are one; groups of two accounts
	}
	return ac
}

// accountsOf are the account sets of cells' groups.
func (ac *AllocCells) accounts() []string {
	var sets []string
	for _, k := range ac.Group {
		if k.Account != "" {
			sets = append(sets, k.Account)
		}
	}
	return sets
}
