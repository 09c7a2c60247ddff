package plan

import (
	"pmm.dev/pmm/spec"
)

// Pair is an inter-event test decided at run time (seed 5.3.2): equality
// tests between the data of an earlier event and of a later one, both
// direct callees of one caller, with the earlier one before the later.
// Such callees run one after the other in the caller's goroutine, so
// when the later one begins, every earlier one that could match it has
// ended. Each earlier execution that passed its own tests is held in the
// caller's state under the key of its values (its tuples in a Held); a
// later execution passes only if its key is there, and releases the
// tuples held under it. What is never released is forgotten when the
// caller, the outermost interval, ends (Algorithm 3).
//
// The test is sound: a later event dropped has no earlier one with equal
// values, and an earlier one never released has no later one; the
// question's view still joins the two, so the answers are the same.
type Pair struct {
	Caller, Earlier, Later string
	// The values compared, position by position.
	EarlierKey, LaterKey []Field
}

// pairsOf finds the inter-event tests of a disjunct that run time can
// decide: those placed (a, its temporal analysis; none without) at a
// later direct callee, reading one earlier direct callee of the same
// caller, ordered by (before earlier later).
func pairsOf(root *spec.Conj, a *Conj) []*Pair {
	if a == nil {
		return nil
	}
	callers := map[string][]string{}
	before := map[[2]string]bool{}
	for _, at := range root.Atoms {
		if at.Args[0].Lit != nil || len(at.Args) < 2 || at.Args[1].Lit != nil {
			continue
		}
		switch {
		case isDirectCall(at.Prim):
			callers[at.Args[1].Var] = append(callers[at.Args[1].Var], at.Args[0].Var)
		case at.Prim.EndsBefore():
			before[[2]string{at.Args[0].Var, at.Args[1].Var}] = true
		}
	}
	byVars := map[[2]string]*Pair{}
	var pairs []*Pair
	for _, t := range a.Tests {
		if t.Atom == nil || t.Local || t.Deferred || t.Negated || len(t.Reads) != 1 {
			continue
		}
		x, y := t.Reads[0].Var, t.At.Var
		if x == y || len(callers[x]) != 1 || len(callers[y]) != 1 || callers[x][0] != callers[y][0] || !before[[2]string{x, y}] {
			continue
		}
		xf, yf, ok := equalValues(t.Atom, x, y, root)
		if !ok {
			continue
		}
		p := byVars[[2]string{x, y}]
		if p == nil {
			p = &Pair{Caller: callers[x][0], Earlier: x, Later: y}
			byVars[[2]string{x, y}] = p
			pairs = append(pairs, p)
		}
		p.EarlierKey = append(p.EarlierKey, xf)
		p.LaterKey = append(p.LaterKey, yf)
	}
	// An event holds its executions under one key, and looks for one.
	earlier, later := map[string]int{}, map[string]int{}
	for _, p := range pairs {
		earlier[p.Earlier]++
		later[p.Later]++
	}
	var kept []*Pair
	for _, p := range pairs {
		if earlier[p.Earlier] == 1 && later[p.Later] == 1 {
			kept = append(kept, p)
		}
	}
	return kept
}

// equalValues returns the values of x and y that a test compares for
// equality: the second binding of a value variable (two executions with
// equal parameters), or (= a b) with a bound by x and b by y.
func equalValues(a *spec.Atom, x, y string, root *spec.Conj) (Field, Field, bool) {
	switch {
	case a.Prim.Kind == spec.Attribute && a.Args[0].Var == y:
		v := a.Args[len(a.Args)-1]
		if v.Lit != nil {
			return Field{}, Field{}, false
		}
		yf, ok := keyField(a)
		if !ok {
			return Field{}, Field{}, false
		}
		for _, b := range root.Atoms {
			if b.Prim.Kind == spec.Attribute && b.Args[0].Lit == nil && b.Args[0].Var == x {
				if w := b.Args[len(b.Args)-1]; w.Lit == nil && w.Var == v.Var {
					xf, ok := keyField(b)
					return xf, yf, ok
				}
			}
		}
	case a.Prim.Kind == spec.ValueRelation && a.Prim.Compares.Binds && a.Args[0].Lit == nil && a.Args[1].Lit == nil:
		bx, by := attributeBinding(x, root), attributeBinding(y, root)
		l, r := a.Args[0].Var, a.Args[1].Var
		if bx[r] != nil && by[l] != nil {
			l, r = r, l
		}
		if bx[l] != nil && by[r] != nil {
			xf, ok1 := keyField(bx[l])
			yf, ok2 := keyField(by[r])
			return xf, yf, ok1 && ok2
		}
	}
	return Field{}, Field{}, false
}

// attributeBinding maps the value variables the attributes of v bind to
// the atom that binds them.
func attributeBinding(v string, root *spec.Conj) map[string]*spec.Atom {
	m := map[string]*spec.Atom{}
	for _, a := range root.Atoms {
		if a.Prim.Kind == spec.Attribute && a.Args[0].Lit == nil && a.Args[0].Var == v {
			if w := a.Args[len(a.Args)-1]; w.Lit == nil && m[w.Var] == nil {
				m[w.Var] = a
			}
		}
	}
	return m
}

// isDirectCall reports whether p relates an execution to those it calls
// directly (calls): recorded at the call sites in the caller's body.
func isDirectCall(p *spec.Primitive) bool { return p.Calls() && p.Lexical }

// keyField is the captured value an attribute atom reads, for the
// attributes a key can hold.
func keyField(a *spec.Atom) (Field, bool) {
	f, ok := attributeField(a)
	if !ok || f.Cap == CapPanicked || f.Cap == CapDataCond {
		return Field{}, false
	}
	return f, true
}

// attributeField is the captured value an attribute atom reads, for the
// attributes whose row lets run-time tests read it (Recorded.Tested).
func attributeField(a *spec.Atom) (Field, bool) {
	if a.Prim.Recorded == nil || !a.Prim.Recorded.Tested {
		return Field{}, false
	}
	return recordedField(a.Prim, needOf(a, PointBegin)), true
}
