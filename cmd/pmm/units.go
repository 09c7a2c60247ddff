package main

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/spec"
)

// The units pmm answer names in the header of a table's column.
const (
	unitNanoseconds = "ns"       // durations, and times since the run began
	unitEventID     = "event id" // an event: an id that tells executions apart
)

// answerShapes returns, for each question of prog, what each column of
// its answer after the run column holds (plan.Column...), and its
// aggregate: the exports (pprof) read the functions, executions and
// measures of an answer from them. A column has a kind only when every
// disjunct of the question gives it that one.
func answerShapes(prog *spec.Program) map[string]plan.AnswerShape {
	out := map[string]plan.AnswerShape{}
	for _, q := range prog.Questions {
		var shape plan.AnswerShape
		if agg := q.Aggregate; agg != nil {
			shape.Aggregate = agg.Op
			for i, in := range agg.Inputs {
				if in {
					shape.Columns = append(shape.Columns, headKind(q, i))
				}
			}
			result := plan.ColumnNone // count has no unit, nor a sum of ids
			if agg.Value >= 0 {
				if k := headKind(q, agg.Value); k == plan.ColumnDuration || k == plan.ColumnTime {
					result = k
				}
			}
			shape.Columns = append(shape.Columns, result)
		} else {
			for i := range q.Head {
				shape.Columns = append(shape.Columns, headKind(q, i))
			}
		}
		out[q.Name] = shape
	}
	return out
}

// answerUnits returns, for each question of shapes, the unit of each
// column of its answer after the run column, "" for a value without
// one: durations and times are in nanoseconds, events are ids.
func answerUnits(shapes map[string]plan.AnswerShape) map[string][]string {
	out := map[string][]string{}
	for q, shape := range shapes {
		var units []string
		for _, k := range shape.Columns {
			units = append(units, kindUnit(k))
		}
		if slices.ContainsFunc(units, func(u string) bool { return u != "" }) {
			out[q] = units
		}
	}
	return out
}

// kindUnit is the unit of a column of kind k.
func kindUnit(k string) string {
	switch k {
	case plan.ColumnExecution, plan.ColumnPoint:
		return unitEventID
	case plan.ColumnDuration, plan.ColumnTime:
		return unitNanoseconds
	}
	return ""
}

// headKind is the kind of the head variable at position i of q's
// relation, the same in every disjunct, or plan.ColumnNone.
func headKind(q *spec.Question, i int) string {
	kind := plan.ColumnNone
	for k, c := range q.Disjuncts {
		u := varKind(c, q.Head[i])
		if k > 0 && u != kind {
			return plan.ColumnNone
		}
		kind = u
	}
	return kind
}

// varKind is the kind of variable v in conjunction c: an execution or a
// point, or the value an atom binds it to: a function's name, a
// duration, a time.
func varKind(c *spec.Conj, v string) string {
	types, _ := c.Types(nil)
	switch t, ok := types[v]; {
	case ok && t == spec.TypePoint:
		return plan.ColumnPoint
	case ok && t != spec.TypeValue:
		return plan.ColumnExecution
	}
	for _, a := range c.Atoms {
		for j, arg := range a.Args {
			if arg.Var != v || j >= len(a.Prim.Args) {
				continue
			}
			switch pa := a.Prim.Args[j]; {
			case pa.Kind == spec.ArgFuncName:
				return plan.ColumnFunction
			case pa.Kind == spec.ArgValue && pa.Value == spec.ValDuration:
				return plan.ColumnDuration
			case pa.Kind == spec.ArgValue && pa.Value == spec.ValTime:
				return plan.ColumnTime
			case pa.Kind == spec.ArgValue && a.Prim.Recorded != nil && a.Prim.Recorded.Context:
				return plan.ColumnContext
			}
		}
	}
	return plan.ColumnNone
}

// withUnits is the header of a question's answer table with the unit of
// each column that has one: "d (ns)". header is the columns of its view,
// with or without the first, run; units those after run (answerUnits).
func withUnits(header, units []string) []string {
	offset := len(header) - len(units) // 1 when run is there
	if len(units) == 0 || offset < 0 || offset > 1 {
		return header
	}
	out := slices.Clone(header)
	for i, u := range units {
		if u != "" {
			out[offset+i] += " (" + u + ")"
		}
	}
	return out
}

// tableCell is a value as a table prints it: its text (cellText), quoted
// with Go's escapes as %q would when it holds a character that would
// break the table's alignment (a newline, a tab, another control
// character) or is not UTF-8.
func tableCell(v any) string {
	text := cellText(v)
	if needsQuoting(text) {
		return strconv.Quote(text)
	}
	return text
}

// needsQuoting says whether text would break a table's alignment: a
// control character (a newline, a tab) or bytes that are not UTF-8.
func needsQuoting(text string) bool {
	return !utf8.ValidString(text) || strings.ContainsFunc(text, unicode.IsControl)
}
