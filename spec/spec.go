package spec

import (
	"os"
	"slices"
	"strings"
)

// Source is the text of one PMM file.
type Source struct {
	Name string
	Text []byte
}

// ReadFiles reads PMM files, in order, for Compile.
func ReadFiles(names ...string) ([]Source, error) {
	var srcs []Source
	for _, n := range names {
		text, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, Source{Name: n, Text: text})
	}
	return srcs, nil
}

// Compile parses, checks and normalizes PMM files. The files form one
// program: a name defined in a file can be used in the files after it.
// The error, if any, is an ErrorList with every problem found.
func Compile(srcs ...Source) (*Program, error) {
	prog, err := compile(srcs)
	if err != nil {
		return nil, err
	}
	// A question that asks for calling contexts needs the frames
	// question beside it (contexts.go): compiled with the user's files,
	// after them.
	if text := framesSource(prog); text != "" {
		return compile(append(slices.Clone(srcs), Source{Name: FramesSourceName, Text: []byte(text)}))
	}
	return prog, nil
}

func compile(srcs []Source) (*Program, error) {
	diags := newDiagnostics()
	var defs []*Def
	var starts []Pos // where each definition starts, to attribute errors
	for _, src := range srcs {
		for _, d := range parseFile(src.Name, src.Text, diags) {
			defs = append(defs, d)
			starts = append(starts, d.Pos)
		}
	}
	c := newChecker(diags)
	c.check(defs)

	// Definitions with errors of their own, or that use one, are not
	// normalized: their errors are already reported.
	bad := map[*Def]bool{}
	for _, e := range diags.errs {
		if d := owner(defs, e.Pos); d != nil {
			bad[d] = true
		}
	}
	var usesBad func(d *Def) bool
	usesBad = func(d *Def) bool {
		if bad[d] {
			return true
		}
		for _, a := range d.references {
			if t := c.defs[a.Pred]; t != nil && t != d && usesBad(t) {
				bad[d] = true
				return true
			}
		}
		if d.Aggregate != nil {
			if t := c.defs[d.Aggregate.Of]; t == nil || usesBad(t) {
				bad[d] = true
				return true
			}
		}
		return false
	}

	prog := &Program{Defs: defs}
	n := &normalizer{defs: c.defs, diags: diags, aggregates: map[string]*Primitive{}}
	relations := map[string]*Relation{}
	eventKeys := map[string][]string{} // the input positions of each aggregate that hold events
	for _, d := range defs {
		if c.defs[d.Name] != d || usesBad(d) {
			continue
		}
		if d.Aggregate != nil {
			q := aggregateQuestion(d, relations[d.Aggregate.Of], diags)
			q.Uses = uses(c, d, defs)
			prog.Questions = append(prog.Questions, q)
			n.aggregates[d.Name] = AggregateRelationOf(q)
			eventKeys[d.Name] = eventInputs(q)
			continue
		}
		for _, a := range d.references {
			if keys := eventKeys[a.Pred]; len(keys) > 0 {
				diags.errorf(a.Pos, "group "+a.Pred+" by values (a parameter, a name, a goroutine), or ask for the aggregate as a question of its own",
					"%s groups by the event %s: an aggregate used in a formula joins on values, and events of its run are not those of this question", a.Written, strings.Join(keys, ", "))
			}
		}
		r := n.relation(d)
		relations[d.Name] = r
		if !d.Question {
			prog.Events = append(prog.Events, r)
		}
		var params map[string]bool
		if !d.Question {
			params = toSet(r.Head)
		}
		for _, conj := range r.Disjuncts {
			if typeCheck(conj, nil, params, diags) {
				types, _ := conj.Types(nil)
				checkTemporal(conj, types, diags)
			}
		}
		if d.Question {
			prog.Questions = append(prog.Questions, &Question{Relation: *r, Uses: uses(c, d, defs)})
		}
	}
	if err := diags.result(); err != nil {
		return nil, err
	}
	return prog, nil
}

// owner returns the definition whose text contains pos.
func owner(defs []*Def, pos Pos) *Def {
	var found *Def
	for _, d := range defs {
		if d.Pos.File != pos.File {
			continue
		}
		if d.Pos.Line < pos.Line || d.Pos.Line == pos.Line && d.Pos.Col <= pos.Col {
			found = d
		}
	}
	return found
}

// uses returns the derived events that d uses, directly or through other
// definitions (an aggregate's activity included), in definition order.
func uses(c *checker, d *Def, defs []*Def) []string {
	reached := map[string]bool{}
	var visit func(d *Def, top bool)
	visit = func(d *Def, top bool) {
		names := []string{}
		for _, a := range d.references {
			names = append(names, a.Pred)
		}
		if d.Aggregate != nil {
			if !top {
				// An aggregate used in a formula is answered on its own
				// (its view); its activity is not part of d's relation.
				return
			}
			names = append(names, d.Aggregate.Of)
		}
		for _, n := range names {
			if t := c.defs[n]; t != nil && !reached[n] {
				reached[n] = true
				visit(t, false)
			}
		}
	}
	visit(d, true)
	var out []string
	for _, e := range defs {
		if reached[e.Name] && !e.Question && e.Aggregate == nil && c.defs[e.Name] == e {
			out = append(out, e.Name)
		}
	}
	return out
}

// aggregateQuestion makes the question of an aggregate definition over the
// normalized relation of its activity. Sum, average, min and max aggregate
// the one output position that holds a value; output positions that hold
// events only tell tuples apart (two calls with equal durations are two
// tuples).
func aggregateQuestion(d *Def, of *Relation, diags *diagnostics) *Question {
	agg := &Aggregate{Op: d.Aggregate.Op, Of: d.Aggregate.Of, Inputs: d.Aggregate.Inputs, Value: -1}
	if agg.Op != "count" {
		var values []string
		for i, in := range agg.Inputs {
			if !in && headType(of, of.Head[i]) == TypeValue {
				values = append(values, of.Head[i])
				agg.Value = i
			}
		}
		switch len(values) {
		case 0:
			diags.errorf(d.Aggregate.Pos, "mark the value to aggregate (such as a duration) output; to count events use count",
				"%s needs one output position that holds a value, but the outputs of %s hold only events", agg.Op, of.Name)
		case 1:
		default:
			diags.errorf(d.Aggregate.Pos, "mark the value to aggregate output and the group keys input",
				"%s aggregates exactly one output value, found %d: %s", agg.Op, len(values), strings.Join(values, ", "))
		}
	}
	untypedHeadEvents(d, of, diags)
	q := &Question{Relation: *of, Aggregate: agg}
	q.Name, q.Pos = d.Name, d.Pos
	return q
}

// untypedHeadEvents reports the head variables of of that are events of
// no known type: an event's uses declare such a parameter, but an
// aggregate of it, d, is a use that declares nothing (IC4).
func untypedHeadEvents(d *Def, of *Relation, diags *diagnostics) {
	for _, v := range of.Head {
		for _, conj := range of.Disjuncts {
			types, ok := conj.Types(nil)
			if !ok || types[v] != "" {
				continue
			}
			if a, i := eventUse(conj, v); a != nil {
				hint := "declare it in " + of.Name + ": " + declaration(a.Prim.Args[i].Events, v)
				if slices.Contains(a.Prim.Args[i].Events, TypeFunctionExecution) {
					hint += ", or (interval " + v + ") for an execution of any function"
				}
				diags.errorf(a.Pos, hint, "the type of event %s is not known in %s, and %s aggregates %s, which declares nothing (IC4)", v, a, d.Name, of.Name)
				return
			}
		}
	}
}

// eventUse is an atom of conj, and the position in it, where variable v
// is an event.
func eventUse(conj *Conj, v string) (*Atom, int) {
	for _, a := range conj.Atoms {
		if a.Prim.Kind == ValueRelation {
			continue
		}
		for i, t := range a.Args {
			if t.Lit == nil && t.Var == v && a.Prim.Args[i].Kind == ArgEvent {
				return a, i
			}
		}
	}
	return nil, 0
}

// eventInputs are the input positions (group keys) of aggregate q that
// hold events.
func eventInputs(q *Question) []string {
	var out []string
	for i, in := range q.Aggregate.Inputs {
		if t := headType(&q.Relation, q.Head[i]); in && t != TypeValue && t != "" {
			out = append(out, q.Head[i])
		}
	}
	return out
}

// headType is the type of head variable v of r: an event type, TypeValue,
// or "" when nothing says (a variable compared only with constants).
func headType(r *Relation, v string) string {
	for _, conj := range r.Disjuncts {
		if types, ok := conj.Types(nil); ok && types[v] != "" {
			return types[v]
		}
	}
	return TypeValue
}
