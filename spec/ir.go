package spec

import (
	"sort"
	"strings"
)

// Program is a checked, normalized set of questions: the IR every later
// stage of pmm reads.
type Program struct {
	// Questions in the order they were defined.
	Questions []*Question
	// Events are the derived events, normalized, in the order they were
	// defined; inside questions they are expanded into their definitions.
	Events []*Relation
	// Defs are the definitions as written, for summaries.
	Defs []*Def
}

// Relation is a normalized set-former {Head | Disjuncts[0] ∨ ...}.
type Relation struct {
	Name      string
	Pos       Pos
	Head      []string
	Disjuncts []*Conj
}

// Question is one defquestion. A plain question is its Relation; an
// aggregate question aggregates Relation, the activity it names, and its
// answer has the input positions of Aggregate.Inputs followed by a number.
type Question struct {
	Relation
	Aggregate *Aggregate
	// Uses names the derived events expanded into the question, directly
	// or through other events, in the order they were defined.
	Uses []string
}

// Aggregate is (OP OF PATTERN) on the question's Relation.
type Aggregate struct {
	Op     string
	Of     string // the event or question aggregated
	Inputs []bool // per head position: input (group key) or output
	// Value is the head position whose values sum, average, min and max
	// aggregate; -1 for count.
	Value int
}

// Conj is a conjunction of primitive atoms and negated conjunctions, with
// its existentially quantified variables.
type Conj struct {
	Exists []string
	Atoms  []*Atom
	Not    []*Conj
}

// Atom is a primitive applied to terms.
type Atom struct {
	Pos  Pos
	Prim *Primitive
	Args []Term
}

// Pred is the name of the atom's primitive.
func (a *Atom) Pred() string { return a.Prim.Name }

// Primitives returns the names of the primitives q uses, sorted; the
// aggregates it uses as relations are not primitives of the vocabulary.
func (q *Question) Primitives() []string {
	set := map[string]bool{}
	for _, c := range q.Disjuncts {
		c.EachAtom(func(a *Atom) {
			if a.Prim.Kind != AggregateRelation {
				set[a.Pred()] = true
			}
		})
	}
	var names []string
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// EachAtom calls fn on every atom of c, negated ones included.
func (c *Conj) EachAtom(fn func(*Atom)) {
	for _, a := range c.Atoms {
		fn(a)
	}
	for _, n := range c.Not {
		n.EachAtom(fn)
	}
}

// String prints the program in PMM syntax; it parses back to the same
// program.
func (p *Program) String() string {
	var defs []string
	for _, e := range p.Events {
		defs = append(defs, e.def("defevent"))
	}
	for _, q := range p.Questions {
		if q.Aggregate == nil {
			defs = append(defs, q.def("defquestion"))
			continue
		}
		var pat []string
		for _, in := range q.Aggregate.Inputs {
			if in {
				pat = append(pat, "input")
			} else {
				pat = append(pat, "output")
			}
		}
		defs = append(defs, "(defquestion "+q.Name+" :definition\n  ("+q.Aggregate.Op+" "+q.Aggregate.Of+" ("+strings.Join(pat, " ")+")))\n")
	}
	return strings.Join(defs, "\n")
}

// def prints r as a definition with the keyword kw.
func (r *Relation) def(kw string) string {
	var b strings.Builder
	b.WriteString("(" + kw + " " + r.Name + " :definition\n  ((" + strings.Join(r.Head, " ") + ") s.t.\n")
	ind := "    "
	if len(r.Disjuncts) == 1 {
		b.WriteString(ind + r.Disjuncts[0].format(ind))
	} else {
		b.WriteString(ind + "(or")
		for _, c := range r.Disjuncts {
			b.WriteString("\n" + ind + "  " + c.format(ind+"  "))
		}
		b.WriteString(")")
	}
	b.WriteString("))\n")
	return b.String()
}

// Formula prints the disjunctive normal form of r as one PMM formula.
func (r *Relation) Formula() string {
	if len(r.Disjuncts) == 1 {
		return r.Disjuncts[0].format("")
	}
	var parts []string
	for _, c := range r.Disjuncts {
		parts = append(parts, c.format("  "))
	}
	return "(or " + strings.Join(parts, "\n  ") + ")"
}

// format prints c as (exists (VARS) (and ...)), leaving out what is empty;
// ind is the indentation of the line c starts on.
func (c *Conj) format(ind string) string {
	var terms []string
	for _, a := range c.Atoms {
		terms = append(terms, a.String())
	}
	for _, n := range c.Not {
		terms = append(terms, "(not "+n.format(ind+"       ")+")")
	}
	body := "(and)"
	inner := ind
	if len(c.Exists) > 0 {
		inner += "  "
	}
	switch len(terms) {
	case 0:
	case 1:
		body = terms[0]
	default:
		body = "(and " + strings.Join(terms, "\n"+inner+"     ") + ")"
	}
	if len(c.Exists) == 0 {
		return body
	}
	return "(exists (" + strings.Join(c.Exists, " ") + ")\n" + inner + body + ")"
}

func (a *Atom) String() string {
	parts := []string{a.Pred()}
	for _, t := range a.Args {
		parts = append(parts, t.String())
	}
	return "(" + strings.Join(parts, " ") + ")"
}
