package main

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"pmm.dev/pmm/spec"
)

// The units pmm answer names in the header of a table's column.
const (
	unitNanoseconds = "ns"       // durations, and times since the run began
	unitEventID     = "event id" // an event: an id that tells executions apart
)

// answerUnits returns, for each question of prog, the unit of each
// column of its answer after the run column, "" for a value without
// one: durations and times are in nanoseconds, events are ids. A column
// has a unit only when every disjunct of the question gives it that one.
func answerUnits(prog *spec.Program) map[string][]string {
	out := map[string][]string{}
	for _, q := range prog.Questions {
		var units []string
		if agg := q.Aggregate; agg != nil {
			for i, in := range agg.Inputs {
				if in {
					units = append(units, headUnit(q, i))
				}
			}
			result := ""
			if agg.Value >= 0 && headUnit(q, agg.Value) == unitNanoseconds {
				result = unitNanoseconds // count has no unit, nor a sum of ids
			}
			units = append(units, result)
		} else {
			for i := range q.Head {
				units = append(units, headUnit(q, i))
			}
		}
		if slices.ContainsFunc(units, func(u string) bool { return u != "" }) {
			out[q.Name] = units
		}
	}
	return out
}

// headUnit is the unit of the head variable at position i of q's
// relation, the same in every disjunct, or "".
func headUnit(q *spec.Question, i int) string {
	unit := ""
	for k, c := range q.Disjuncts {
		u := varUnit(c, q.Head[i])
		if k > 0 && u != unit {
			return ""
		}
		unit = u
	}
	return unit
}

// varUnit is the unit of variable v in conjunction c: an event's id, or
// nanoseconds when an atom binds it to a duration or a time.
func varUnit(c *spec.Conj, v string) string {
	types, _ := c.Types(nil)
	if t, ok := types[v]; ok && t != spec.TypeValue {
		return unitEventID
	}
	for _, a := range c.Atoms {
		for j, arg := range a.Args {
			if arg.Var != v || j >= len(a.Prim.Args) || a.Prim.Args[j].Kind != spec.ArgValue {
				continue
			}
			if vt := a.Prim.Args[j].Value; vt == spec.ValDuration || vt == spec.ValTime {
				return unitNanoseconds
			}
		}
	}
	return ""
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
