package spec

import (
	"sort"
	"strconv"
	"strings"

	"pmm.dev/pmm/internal/funcname"
)

// normalizer turns checked definitions into disjunctive normal form over
// primitives (seed 5.4.1, first alternative): derived events are expanded
// into their definitions, quantified variables are renamed apart, and each
// disjunct is a conjunction with its existential variables.
//
// Within one disjunct every bound variable has a name of its own, also in
// its negated sub-conjunctions, so later stages can treat variable names
// as unique. Names are changed only where they would clash, so normalizing
// a normalized program changes nothing.
type normalizer struct {
	defs map[string]*Def
	// aggregates are the rows of the aggregates normalized so far, used
	// as relations in the formulas after them (AggregateRelationOf).
	aggregates map[string]*Primitive
	used       map[string]bool // every variable name of the relation being normalized
	diags      *diagnostics
}

// MaxDisjuncts is the most disjuncts a formula may have in normal form.
// Each or inside an and multiplies them (an and of k binary ors has 2^k),
// and every disjunct is instrumented and answered on its own, so a
// question past the limit is refused with the position of the and or or
// that crosses it rather than compiled for minutes.
const MaxDisjuncts = 1024

// bounded reports the formula at pos when out has more than MaxDisjuncts
// disjuncts, and then keeps only the first, so that normalization stops
// growing; the error makes Compile fail.
func (n *normalizer) bounded(out []*Conj, pos Pos) []*Conj {
	if len(out) <= MaxDisjuncts {
		return out
	}
	n.diags.errorf(pos, "split the question, or factor the or out of the and: each or inside an and multiplies the disjuncts",
		"this formula has more than %d disjuncts in normal form", MaxDisjuncts)
	return out[:1]
}

// relation normalizes the set-former of d.
func (n *normalizer) relation(d *Def) *Relation {
	n.used = map[string]bool{}
	for _, h := range d.Head {
		n.used[h.Var] = true
	}
	walk(d.Body, func(f Formula) {
		switch f := f.(type) {
		case *AtomF:
			for _, t := range f.Args {
				if t.Lit == nil {
					n.used[t.Var] = true
				}
			}
		case *Exists:
			for _, v := range f.Vars {
				n.used[v.Var] = true
			}
		}
	})
	r := &Relation{Name: d.Name, Pos: d.Pos}
	head := map[string]bool{}
	for _, h := range d.Head {
		r.Head = append(r.Head, h.Var)
		head[h.Var] = true
	}
	var disjuncts []*Conj
	for _, c := range n.dnf(d.Body, nil) {
		disjuncts = append(disjuncts, n.expandDefined(c, nil)...)
	}
	for _, c := range n.bounded(disjuncts, d.Pos) {
		// A quantifier that reuses a head variable's name shadows it.
		for _, b := range c.binders() {
			if head[b] {
				c.rename(b, n.fresh(b))
			}
		}
		r.Disjuncts = append(r.Disjuncts, c)
	}
	return r
}

// functionKeys replaces the function names among the arguments of an
// atom of p by their keys: this is where a question's name of a generic
// function, or of a method of a generic type, written with or without
// its type arguments ("main.Max" or "main.Max[...]"), takes the one form
// in which later stages compare it with the functions' names.
func functionKeys(p *Primitive, args []Term) {
	for i, t := range args {
		if i < len(p.Args) && p.Args[i].Kind == ArgFuncName && t.Lit != nil && t.Lit.Kind == LitString {
			args[i].Lit = &Literal{Kind: LitString, Str: funcname.Key(t.Lit.Str)}
		}
	}
}

// fresh returns a variable name based on v that the relation does not use
// yet, and marks it used.
func (n *normalizer) fresh(v string) string {
	base := v
	if i := strings.LastIndex(v, "_"); i > 0 {
		if _, err := strconv.Atoi(v[i+1:]); err == nil {
			base = v[:i]
		}
	}
	for k := 2; ; k++ {
		name := base + "_" + strconv.Itoa(k)
		if !n.used[name] {
			n.used[name] = true
			return name
		}
	}
}

// dnf returns the disjuncts of f with the variables of sub replaced by
// their terms (sub is nil outside derived events).
func (n *normalizer) dnf(f Formula, sub map[string]Term) []*Conj {
	switch f := f.(type) {
	case *AtomF:
		args := make([]Term, len(f.Args))
		for i, t := range f.Args {
			args[i] = t
			if r, ok := sub[t.Var]; ok && t.Lit == nil {
				args[i] = Term{Pos: t.Pos, Var: r.Var, Lit: r.Lit}
			}
		}
		if p := Lookup(f.Pred); p != nil {
			functionKeys(p, args)
			return []*Conj{{Atoms: []*Atom{{Pos: f.Pos, Prim: p, Args: args}}}}
		}
		if p := n.aggregates[f.Pred]; p != nil {
			// An aggregate stays an atom: its relation is a whole
			// relation's aggregate, not a conjunction to expand.
			return []*Conj{{Atoms: []*Atom{{Pos: f.Pos, Prim: p, Args: args}}}}
		}
		d := n.defs[f.Pred]
		inner := map[string]Term{}
		for i, h := range d.Head {
			inner[h.Var] = args[i]
		}
		return n.dnf(d.Body, inner)
	case *And:
		out := []*Conj{{}}
		for _, g := range f.Args {
			rights := n.dnf(g, sub)
			if len(out) == 1 && len(rights) == 1 {
				// One product: nothing is shared, so nothing is copied
				// (copying would make a long conjunction quadratic).
				n.merge(out[0], rights[0])
				continue
			}
			var next []*Conj
			for _, right := range rights {
				for _, left := range out {
					next = append(next, n.merge(left.clone(), right.clone()))
				}
				if len(next) > MaxDisjuncts {
					break
				}
			}
			out = n.bounded(next, f.Pos)
		}
		return out
	case *Or:
		var out []*Conj
		for _, g := range f.Args {
			out = append(out, n.dnf(g, sub)...)
		}
		return n.bounded(out, f.Pos)
	case *Not:
		c := &Conj{}
		for _, neg := range n.dnf(f.Arg, sub) {
			n.merge(c, &Conj{Not: []*Conj{neg}})
		}
		return []*Conj{c}
	case *Exists:
		inner := sub
		vars := make([]string, len(f.Vars))
		for i, v := range f.Vars {
			vars[i] = v.Var
		}
		if sub != nil {
			// Inside a derived event: avoid capturing the caller's variables.
			inner = map[string]Term{}
			taken := map[string]bool{}
			for k, t := range sub {
				inner[k] = t
				if t.Lit == nil {
					taken[t.Var] = true
				}
			}
			for i, v := range vars {
				if taken[v] {
					vars[i] = n.fresh(v)
				}
				inner[v] = Term{Var: vars[i]}
			}
		}
		out := n.dnf(f.Body, inner)
		for _, c := range out {
			for _, v := range vars {
				if toSet(c.binders())[v] { // an inner quantifier shadows v
					c.rename(v, n.fresh(v))
				}
				if c.vars()[v] { // a variable c does not use is dropped
					c.Exists = append(c.Exists, v)
				}
			}
		}
		return out
	}
	panic("spec: unexpected formula in normalization") // check rejects forall first
}

// merge conjoins right into left, renaming bound variables of either side
// that clash with the variables of the other, and returns left.
// The variables of a side are collected only when the other side binds
// some, so that conjoining atoms one by one stays linear.
func (n *normalizer) merge(left, right *Conj) *Conj {
	if rb := right.binders(); len(rb) > 0 {
		leftVars := left.vars()
		for _, b := range rb {
			if leftVars[b] {
				right.rename(b, n.fresh(b))
			}
		}
	}
	if lb := left.binders(); len(lb) > 0 {
		rightVars := right.vars()
		for _, b := range lb {
			if rightVars[b] {
				left.rename(b, n.fresh(b))
			}
		}
	}
	left.Exists = append(left.Exists, right.Exists...)
	left.Atoms = append(left.Atoms, right.Atoms...)
	left.Not = append(left.Not, right.Not...)
	return left
}

// binders returns the variables bound in c and its negated parts.
func (c *Conj) binders() []string {
	out := append([]string(nil), c.Exists...)
	for _, neg := range c.Not {
		out = append(out, neg.binders()...)
	}
	return out
}

// vars returns every variable name in c, bound or free.
func (c *Conj) vars() map[string]bool {
	set := toSet(c.binders())
	c.EachAtom(func(a *Atom) {
		for _, t := range a.Args {
			if t.Lit == nil {
				set[t.Var] = true
			}
		}
	})
	return set
}

// FreeVars returns the variables of c that c does not bind, sorted.
func (c *Conj) FreeVars() []string {
	bound := toSet(c.binders())
	var out []string
	for v := range c.vars() {
		if !bound[v] {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// rename renames variable from to to everywhere in c.
func (c *Conj) rename(from, to string) {
	for i, v := range c.Exists {
		if v == from {
			c.Exists[i] = to
		}
	}
	for _, a := range c.Atoms {
		for i, t := range a.Args {
			if t.Lit == nil && t.Var == from {
				a.Args[i].Var = to
			}
		}
	}
	for _, neg := range c.Not {
		neg.rename(from, to)
	}
}

// clone returns a deep copy of c, so that a disjunct shared by several
// products can be renamed in one of them alone.
func (c *Conj) clone() *Conj {
	out := &Conj{Exists: append([]string(nil), c.Exists...)}
	for _, a := range c.Atoms {
		out.Atoms = append(out.Atoms, &Atom{Pos: a.Pos, Prim: a.Prim, Args: append([]Term(nil), a.Args...)})
	}
	for _, neg := range c.Not {
		out.Not = append(out.Not, neg.clone())
	}
	return out
}

func toSet(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, v := range names {
		set[v] = true
	}
	return set
}
