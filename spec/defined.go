package spec

import (
	"fmt"
	"slices"
	"sync"
)

// definedRows are the definitions of the vocabulary's rows that others
// define (Primitive.Definition), parsed once: the table is constant.
var definedRows = sync.OnceValue(func() map[string]*Def {
	defs := map[string]*Def{}
	for _, p := range vocabulary {
		if p.Definition == "" {
			continue
		}
		diags := newDiagnostics()
		src := "(defevent " + p.Name + " :definition " + p.Definition + ")"
		parsed := parseFile("vocabulary:"+p.Name, []byte(src), diags)
		if err := diags.result(); err != nil || len(parsed) != 1 || len(parsed[0].Head) != p.Arity() {
			panic(fmt.Sprintf("spec: the definition of %s does not parse as %d variables: %v", p.Name, p.Arity(), err))
		}
		defs[p.Name] = parsed[0]
	}
	return defs
})

// isTypeTest reports whether p tests the type of its one event argument
// (interval, point, function-invocation): a declaration of the variable
// by another event atom makes it true.
func isTypeTest(p *Primitive) bool { return p.IsEvent() && p.Arity() == 1 }

// expandDefined replaces, in c and its negated parts, the atoms of rows
// defined by others by their definitions; outer are the event variables
// declared by the conjunctions around c, with their types. A type test
// of a variable that an event atom declares (here or around c) is
// dropped: (and (function-invocation x) (function-name x "main.F")) is
// (function-execution x "main.F"), as written. An expansion with
// several disjuncts (point) splits c; a negated part that splits is
// negated branch by branch.
func (n *normalizer) expandDefined(c *Conj, outer VarTypes) []*Conj {
	for v := range c.vars() {
		n.used[v] = true
	}
	// Rows other than type tests first: they may declare what a type
	// test tests.
	i := slices.IndexFunc(c.Atoms, func(a *Atom) bool { return a.Prim.Definition != "" && !isTypeTest(a.Prim) })
	if i < 0 {
		i = n.dropTypeTests(c, declarations(c, outer))
	}
	if i >= 0 {
		a := c.Atoms[i]
		if n.wrongEventType(a, declarations(c, outer)) {
			// Reported as written, rather than as its expansion.
			c.Atoms = slices.Delete(c.Atoms, i, i+1)
			return n.expandDefined(c, outer)
		}
		def := definedRows()[a.Pred()]
		sub := map[string]Term{}
		for j, h := range def.Head {
			sub[h.Var] = a.Args[j]
		}
		rest := c.clone()
		rest.Atoms = slices.Delete(rest.Atoms, i, i+1)
		var out []*Conj
		for _, d := range n.dnf(def.Body, sub) {
			d.EachAtom(func(x *Atom) { x.Pos = a.Pos })
			// d's free variables are c's (the atom's arguments); only
			// what d binds is renamed apart from every variable of the
			// relation, those around c too (merge would also rename c's
			// own quantified ones, which d uses).
			e := rest.clone()
			vars := e.vars()
			for _, b := range d.binders() {
				if vars[b] || n.used[b] {
					d.rename(b, n.fresh(b))
				}
				n.used[b] = true
			}
			e.Exists = append(e.Exists, d.Exists...)
			e.Atoms = append(e.Atoms, d.Atoms...)
			e.Not = append(e.Not, d.Not...)
			out = append(out, n.expandDefined(e, outer)...)
		}
		return out
	}
	inner := declarations(c, outer)
	var nots []*Conj
	for _, neg := range c.Not {
		pos := firstPos(neg) // before its type tests are dropped
		errs := len(n.diags.errs)
		for _, part := range n.expandDefined(neg, inner) {
			// A part emptied by a type test that contradicts its
			// declaration (reported) never holds negated, rather always.
			if len(part.Atoms) == 0 && len(part.Not) == 0 && len(n.diags.errs) == errs {
				n.diags.errorf(pos, "remove the negation: the event types it tests are declared around it",
					"this negation never holds (IC4)")
				continue
			}
			nots = append(nots, part)
		}
	}
	c.Not = nots
	return []*Conj{c}
}

// declarations are the event variables declared around c (outer) and by
// the event atoms of c, with their types.
func declarations(c *Conj, outer VarTypes) VarTypes {
	declared := VarTypes{}
	for v, t := range outer {
		declared[v] = t
	}
	for _, a := range c.Atoms {
		if a.Prim.IsEvent() && a.Prim.Definition == "" && a.Args[0].Lit == nil {
			declared[a.Args[0].Var] = a.Prim.Args[0].Events[0]
		}
	}
	return declared
}

// dropTypeTests removes from c the type tests of variables declared
// (those of another type are errors), and returns the index of the
// first type test left, to expand, or -1.
func (n *normalizer) dropTypeTests(c *Conj, declared VarTypes) int {
	first := -1
	var kept []*Atom
	for _, a := range c.Atoms {
		if a.Prim.Definition == "" {
			kept = append(kept, a)
			continue
		}
		v := a.Args[0].Var
		typ, ok := declared[v]
		switch {
		case !ok:
			if first < 0 {
				first = len(kept)
			}
			kept = append(kept, a)
		case !slices.Contains(a.Prim.Args[0].Events, typ):
			n.diags.errorf(a.Pos, "a variable holds one kind of event: use another variable for the "+a.Pred(),
				"%s is %s, so %s never holds (IC4)", v, article(typ), a)
		}
	}
	c.Atoms = kept
	return first
}

// wrongEventType reports an event argument of a whose declared type
// the row does not take (IC4), and whether it found one.
func (n *normalizer) wrongEventType(a *Atom, declared VarTypes) bool {
	for j, t := range a.Args {
		arg := a.Prim.Args[j]
		if typ, ok := declared[t.Var]; ok && t.Lit == nil && arg.Kind == ArgEvent && !slices.Contains(arg.Events, typ) {
			n.diags.errorf(a.Pos, wrongTypeHint(a.Prim, typ),
				"%s applies to %s events, but %s is %s (IC4)", a.Pred(), orList(arg.Events), t.Var, article(typ))
			return true
		}
	}
	return false
}

// firstPos is the position of c's first atom, for errors about c.
func firstPos(c *Conj) Pos {
	var pos Pos
	c.EachAtom(func(a *Atom) {
		if !pos.IsValid() {
			pos = a.Pos
		}
	})
	return pos
}
