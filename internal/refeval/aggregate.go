package refeval

import (
	"pmm.dev/pmm/spec"
)

// kind is what a head variable holds, as far as answers are concerned.
type kind int

const (
	kindUnknown   kind = iota
	kindEvent          // an execution or a point
	kindGoroutine      // a goroutine id: a number, but one that differs between runs
	kindValue
)

// headKinds returns what each head variable of the set-former d holds,
// from the positions where it occurs free in d's body: an event position
// of a primitive, the value of goroutine, another value position, a
// position of a derived event (that event's kind), or = to a variable of
// known kind.
func (e *evaluator) headKinds(d *spec.Def) []kind {
	if ks, ok := e.kinds[d.Name]; ok {
		return ks
	}
	vars := map[string]kind{}
	set := func(v string, k kind) {
		if vars[v] == kindUnknown {
			vars[v] = k
		}
	}
	var equalities [][2]string
	walk(d.Body, func(f spec.Formula) {
		a, ok := f.(*spec.AtomF)
		if !ok {
			return
		}
		if of := e.defs[a.Pred]; of != nil {
			if of.Aggregate == nil && of != d {
				ks := e.headKinds(of)
				for i, t := range a.Args {
					if t.Lit == nil && i < len(ks) {
						set(t.Var, ks[i])
					}
				}
			}
			return
		}
		p := spec.Lookup(a.Pred)
		if p == nil || len(p.Args) != len(a.Args) {
			return
		}
		if p.Kind == spec.ValueRelation {
			if a.Pred == "=" && a.Args[0].Lit == nil && a.Args[1].Lit == nil {
				equalities = append(equalities, [2]string{a.Args[0].Var, a.Args[1].Var})
			}
			return
		}
		for i, t := range a.Args {
			if t.Lit != nil {
				continue
			}
			switch {
			case p.Args[i].Kind == spec.ArgEvent:
				set(t.Var, kindEvent)
			case a.Pred == "goroutine":
				set(t.Var, kindGoroutine)
			default:
				set(t.Var, kindValue)
			}
		}
	})
	for changed := true; changed; {
		changed = false
		for _, eq := range equalities {
			for _, pair := range [][2]string{eq, {eq[1], eq[0]}} {
				if vars[pair[0]] == kindUnknown && vars[pair[1]] != kindUnknown {
					vars[pair[0]] = vars[pair[1]]
					changed = true
				}
			}
		}
	}
	ks := make([]kind, len(d.Head))
	for i, h := range d.Head {
		ks[i] = vars[h.Var]
		if ks[i] == kindUnknown {
			ks[i] = kindValue
		}
	}
	e.kinds[d.Name] = ks
	return ks
}

// aggregate answers the aggregate question d: the tuples of its activity
// (a set), grouped by the input positions, one row per group that has
// tuples.
func (e *evaluator) aggregate(d *spec.Def) *Answer {
	agg := d.Aggregate
	of := e.defs[agg.Of]
	if of == nil || of.Aggregate != nil {
		fail("%s aggregates %s, which is not an event or question", d.Name, agg.Of)
	}
	if len(agg.Inputs) != len(of.Head) {
		fail("the pattern of %s has %d positions, %s has %d columns", d.Name, len(agg.Inputs), of.Name, len(of.Head))
	}
	kinds := e.headKinds(of)
	a := &Answer{Name: d.Name}
	valuePos := -1
	for i, in := range agg.Inputs {
		if in {
			a.Columns = append(a.Columns, of.Head[i].Var)
			a.Event = append(a.Event, kinds[i] == kindEvent || kinds[i] == kindGoroutine)
		} else if kinds[i] != kindEvent && agg.Op != "count" {
			if valuePos >= 0 {
				fail("%s aggregates more than one output value", d.Name)
			}
			valuePos = i
		}
	}
	if agg.Op != "count" && valuePos < 0 {
		fail("%s has no output position that holds a value", d.Name)
	}
	a.Columns = append(a.Columns, agg.Op)
	a.Event = append(a.Event, false)

	for _, t := range e.aggregateRows(d, valuePos) {
		row := make([]any, len(t))
		for i, v := range t {
			row[i] = v.export()
		}
		a.Rows = append(a.Rows, row)
	}
	return a
}

// aggregateRows are the rows of aggregate d, whose value output is at
// valuePos (-1 for none): per group of its activity's tuples that has
// tuples, the input values, then the result.
func (e *evaluator) aggregateRows(d *spec.Def, valuePos int) [][]value {
	agg := d.Aggregate
	var keys []string
	groups := map[string][][]value{}
	for _, t := range e.relation(e.defs[agg.Of]) {
		var group []value
		for i, in := range agg.Inputs {
			if in {
				group = append(group, t[i])
			}
		}
		k := tupleKey(group)
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], t)
	}
	var rows [][]value
	for _, k := range keys {
		tuples := groups[k]
		var row []value
		for i, in := range agg.Inputs {
			if in {
				row = append(row, tuples[0][i])
			}
		}
		var values []value
		for _, t := range tuples {
			if valuePos >= 0 && t[valuePos].kind != vNil {
				values = append(values, t[valuePos])
			}
		}
		result := combine(agg.Op, len(tuples), values)
		if l, ok := result.([]any); ok {
			rows = append(rows, append(row, listValue(l)))
		} else {
			rows = append(rows, append(row, fromTrace(result)))
		}
	}
	return rows
}

// aggregateAtom evaluates an atom of the aggregate d used as a relation
// (seed A.3): its rows, computed over the whole run (the aggregate's own
// answer), unified with the atom's arguments.
func (e *evaluator) aggregateAtom(a *spec.AtomF, d *spec.Def, k func() bool) bool {
	rows, ok := e.aggRows[d.Name]
	if !ok {
		e.aggregate(d) // checks d, as its own answer does
		valuePos := -1
		if d.Aggregate.Op != "count" {
			of := e.defs[d.Aggregate.Of]
			kinds := e.headKinds(of)
			for i, in := range d.Aggregate.Inputs {
				if !in && kinds[i] != kindEvent {
					valuePos = i
				}
			}
		}
		rows = e.aggregateRows(d, valuePos)
		e.aggRows[d.Name] = rows
	}
	if len(a.Args) != d.Arity() {
		fail("%s takes %d arguments, found %d", d.Name, d.Arity(), len(a.Args))
	}
	for _, row := range rows {
		var unifyFrom func(i int) bool
		unifyFrom = func(i int) bool {
			if i == len(row) {
				return k()
			}
			return e.unify(a.Args[i], row[i], func() bool { return unifyFrom(i + 1) })
		}
		if !unifyFrom(0) {
			return false
		}
	}
	return true
}

// combine is the result of op over a group of n tuples whose non-nil
// values are values. As in SQL, nil values are left out of sum, average,
// min and max, which are nil when no value is left.
func combine(op string, n int, values []value) any {
	if op == "count" {
		return int64(n)
	}
	if len(values) == 0 {
		return nil
	}
	switch op {
	case "sum", "average":
		var isum int64
		var fsum float64
		float := false
		for _, v := range values {
			x, ok := v.numeric()
			if !ok {
				fail("%s of %s, which is not a number", op, format(v.export()))
			}
			if v.kind == vFloat {
				float = true
			} else {
				isum += v.i
			}
			fsum += x
		}
		switch {
		case op == "average":
			return fsum / float64(len(values))
		case float:
			return fsum
		}
		return isum
	}
	best := values[0]
	for _, v := range values[1:] {
		c, _ := compare(v, best)
		if op == "min" && c < 0 || op == "max" && c > 0 {
			best = v
		}
	}
	return best.export()
}
