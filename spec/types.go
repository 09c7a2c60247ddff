package spec

import (
	"fmt"
	"slices"
	"strings"
)

// VarTypes maps each variable of a conjunction to its type: an event type
// (function-execution, point) for event variables, "value" for values.
type VarTypes map[string]string

// TypeValue is the type of variables that hold values rather than events.
const TypeValue = "value"

// typeOf is what one occurrence of a variable says about its type.
type typeOf struct {
	typ  string // an event type, TypeValue, or "event" when any event type fits
	atom *Atom
}

// Types infers the types of the variables of c, given those of the
// conjunctions that enclose it; ok is false when the occurrences disagree
// (typeCheck reports how).
func (c *Conj) Types(outer VarTypes) (VarTypes, bool) {
	types, _ := c.inferTypes(outer)
	return types, types != nil
}

// inferTypes returns the types of the variables of c and, when they
// disagree, a description of the first disagreement.
func (c *Conj) inferTypes(outer VarTypes) (VarTypes, *typeClash) {
	types := VarTypes{}
	for v, t := range outer {
		types[v] = t
	}
	// Declaring atoms first: (function-execution x _), (begin p x), (end p x).
	for _, a := range c.Atoms {
		if !a.Prim.IsEvent() {
			continue
		}
		declared := a.Args[0]
		want := a.Prim.Args[0].Events[0]
		if have, ok := types[declared.Var]; ok && have != want {
			return nil, &typeClash{atom: a, v: declared.Var, want: want, have: have}
		}
		types[declared.Var] = want
	}
	// Values: variables in value positions of atoms.
	for _, a := range c.Atoms {
		for i, t := range a.Args {
			if t.Lit != nil {
				continue
			}
			kind := a.Prim.Args[i].Kind
			if kind == ArgValue && a.Prim.Kind != ValueRelation || kind == ArgFuncName {
				if have, ok := types[t.Var]; ok && have != TypeValue {
					return nil, &typeClash{atom: a, v: t.Var, want: TypeValue, have: have}
				}
				types[t.Var] = TypeValue
			}
		}
	}
	return types, nil
}

// typeClash is a variable used as two different types.
type typeClash struct {
	atom       *Atom
	v          string
	want, have string
}

// typeCheck checks IC4 on a normalized conjunction: every attribute and
// control relation applies to events of the types that define it, and
// every event variable has a known type, but for params: the head
// variables of a derived event, whose types its uses declare. It reports
// errors at the atoms.
//
// It returns false when it reported an error.
func typeCheck(c *Conj, outer VarTypes, params map[string]bool, diags *diagnostics) bool {
	types, clash := c.inferTypes(outer)
	if clash != nil {
		diags.errorf(clash.atom.Pos, "use a separate variable for each event and each value",
			"%s is used as %s in %s but as %s elsewhere (IC4)", clash.v, article(clash.want), clash.atom, article(clash.have))
		return false
	}
	before := len(diags.errs)
	untyped := map[string]bool{} // reported once each
	for _, a := range c.Atoms {
		if a.Prim.Kind == ValueRelation {
			comparisonTypes(a, types, diags)
			continue
		}
		for i, t := range a.Args {
			arg := a.Prim.Args[i]
			if arg.Kind != ArgEvent || t.Lit != nil {
				continue
			}
			typ, ok := types[t.Var]
			switch {
			case !ok && (params[t.Var] || untyped[t.Var]):
			case !ok:
				untyped[t.Var] = true
				diags.errorf(t.Pos, "declare it: "+declaration(arg.Events, t.Var),
					"the type of event %s is not known in %s (IC4)", t.Var, a)
			case typ == TypeValue:
				diags.errorf(t.Pos, "use an event variable here, such as e declared by "+declaration(arg.Events, "e"),
					"%s is a value, but argument %s of %s is an event (IC4)", t.Var, arg.Name, a.Pred())
			case !slices.Contains(arg.Events, typ):
				diags.errorf(a.Pos, wrongTypeHint(a.Prim, typ),
					"%s applies to %s events, but %s is a %s event (IC4)", a.Pred(), orList(arg.Events), t.Var, typ)
			}
		}
	}
	for _, neg := range c.Not {
		typeCheck(neg, types, params, diags)
	}
	return len(diags.errs) == before
}

func comparisonTypes(a *Atom, types VarTypes, diags *diagnostics) {
	var events, values int
	for _, t := range a.Args {
		switch typ := types[t.Var]; {
		case t.Lit != nil || typ == TypeValue:
			values++
		case typ != "":
			events++
		}
	}
	switch {
	case events > 0 && IsOrdering(a.Pred()):
		diags.errorf(a.Pos, "order events with (before a b), or compare their attributes, such as (time p t) or (duration x d)",
			"%s compares events; events are compared only with = and /= (IC4)", a)
	case events > 0 && values > 0:
		diags.errorf(a.Pos, "compare an event with an event, or an attribute of it with a value",
			"%s compares an event with a value (IC4)", a)
	}
}

// declaration is the atom that declares v as an event of one of events.
func declaration(events []string, v string) string {
	if slices.Contains(events, TypeFunctionExecution) {
		return fmt.Sprintf("(function-execution %s NAME)", v)
	}
	if slices.Contains(events, TypeRegionExecution) {
		return fmt.Sprintf("(region-execution %s NAME LABEL)", v)
	}
	if slices.Contains(events, TypeIteration) {
		return fmt.Sprintf("(loop-iteration %s NAME LABEL)", v)
	}
	if slices.Contains(events, TypeBlocking) {
		return fmt.Sprintf("(blocking-operation %s NAME KIND OPERAND)", v)
	}
	if slices.Contains(events, TypeGoroutine) {
		return fmt.Sprintf("(goroutine-execution %s NAME)", v)
	}
	if slices.Contains(events, TypeAllocation) {
		return fmt.Sprintf("(allocation %s NAME KIND TYPE)", v)
	}
	return fmt.Sprintf("(begin %s x) or (end %s x)", v, v)
}

func wrongTypeHint(p *Primitive, typ string) string {
	switch {
	case typ == TypePoint && p.Kind == Attribute:
		return "points have (time p t); the attributes of an execution x apply to x itself"
	case typ == TypeGoroutine && p.Kind == Attribute:
		return "a goroutine has a duration, a goroutine and the times of its points; parameters and results are its function's execution's: relate them with (contains g f) (same-goroutine g f)"
	case IsRegion(typ) && p.Kind == Attribute:
		return "a region execution has a duration, a goroutine and the times of its points; parameters and results are its function's: relate them with (contains f r)"
	case typ == TypeFunctionExecution && p.Kind == Attribute:
		return "for the time of an execution x, take its begin or end point: (begin p x) (time p t)"
	}
	return "see docs/LANGUAGE.md for the event types each primitive takes"
}

func article(typ string) string {
	switch typ {
	case TypeValue:
		return "a value"
	case TypePoint:
		return "a point event"
	}
	return "a " + typ + " event"
}

// orList is "a", "a or b", "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
