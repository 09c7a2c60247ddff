package refeval

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"pmm.dev/pmm/internal/reftrace"
	"pmm.dev/pmm/spec"
)

// valueKind tells the values of the evaluator apart.
type valueKind int

const (
	vNil valueKind = iota
	vInt
	vFloat
	vBool
	vString
	vList
	vExec
	vPoint
)

// value is what a variable holds: a Go value of the trace, a list of them
// (parameters, results), an execution or a point.
type value struct {
	kind valueKind
	i    int64   // vInt; vBool as 1 or 0
	f    float64 // vFloat
	s    string  // vString; vList: its canonical text
	list []any   // vList: the elements as the trace holds them
	exec *reftrace.Execution
	end  bool // vPoint: the end point of exec rather than its begin
}

func (v value) isEvent() bool { return v.kind == vExec || v.kind == vPoint }

// seq is the place of a point in the order of the run: a point's own, an
// execution's begin (begin) or end (!begin). ok is false for the end of
// an execution that never ended.
func (v value) seq(begin bool) (int64, bool) {
	switch {
	case v.kind == vPoint && !v.end:
		return v.exec.BeginSeq, true
	case v.kind == vPoint:
		return v.exec.EndSeq, true
	case begin:
		return v.exec.BeginSeq, true
	}
	return v.exec.EndSeq, v.exec.Ended
}

func execValue(e *reftrace.Execution) value { return value{kind: vExec, exec: e} }

func pointValue(e *reftrace.Execution, end bool) value {
	return value{kind: vPoint, exec: e, end: end}
}

// fromTrace turns a value of the trace (a JSON value: int64, float64,
// string, bool, nil) into a value.
func fromTrace(x any) value {
	switch x := x.(type) {
	case int64:
		return value{kind: vInt, i: x}
	case float64:
		return value{kind: vFloat, f: x}
	case string:
		return value{kind: vString, s: x}
	case bool:
		if x {
			return value{kind: vBool, i: 1}
		}
		return value{kind: vBool}
	case nil:
		return value{}
	}
	return value{kind: vString, s: fmt.Sprint(x)}
}

func listValue(xs []any) value {
	return value{kind: vList, list: xs, s: listText(xs)}
}

// listText is the canonical text pmm's loader stores a list as (JSON, as
// rt/load's appendList writes it), so that lists compare by their text:
// that of the list literal of the same values, written by spec.
func listText(xs []any) string { return listLiteral(xs).ListText() }

// listLiteral is the list literal of trace values (int64, float64,
// string, bool, nil, and []any for a nested list).
func listLiteral(xs []any) *spec.Literal {
	l := &spec.Literal{Kind: spec.LitList, List: make([]*spec.Literal, len(xs))}
	for i, x := range xs {
		switch x := x.(type) {
		case int64:
			l.List[i] = &spec.Literal{Kind: spec.LitInt, Int: x}
		case float64:
			l.List[i] = &spec.Literal{Kind: spec.LitFloat, Float: x}
		case bool:
			l.List[i] = &spec.Literal{Kind: spec.LitBool, Bool: x}
		case string:
			l.List[i] = &spec.Literal{Kind: spec.LitString, Str: x}
		case nil:
			l.List[i] = &spec.Literal{Kind: spec.LitNil}
		case []any:
			l.List[i] = listLiteral(x)
		default:
			l.List[i] = &spec.Literal{Kind: spec.LitString, Str: fmt.Sprint(x)}
		}
	}
	return l
}

// numeric reports whether v is a number: integers, floats and booleans,
// which are the integers 1 and 0 (as SQLite holds them).
func (v value) numeric() (float64, bool) {
	switch v.kind {
	case vInt, vBool:
		return float64(v.i), true
	case vFloat:
		return v.f, true
	}
	return 0, false
}

// textual reports whether v compares as text: strings, and lists by their
// canonical text.
func (v value) textual() bool { return v.kind == vString || v.kind == vList }

// compare orders two non-nil values as SQLite does: numbers before text,
// numbers by value, text byte by byte. ok is false for events and nil,
// which do not order.
func compare(a, b value) (c int, ok bool) {
	if a.kind == vNil || b.kind == vNil || a.isEvent() || b.isEvent() {
		return 0, false
	}
	if a.kind == vInt && b.kind == vInt || a.kind == vBool && b.kind == vBool ||
		a.kind == vInt && b.kind == vBool || a.kind == vBool && b.kind == vInt {
		return cmp.Compare(a.i, b.i), true
	}
	x, xn := a.numeric()
	y, yn := b.numeric()
	switch {
	case xn && yn:
		return cmp.Compare(x, y), true
	case xn:
		return -1, true
	case yn:
		return 1, true
	}
	return strings.Compare(a.s, b.s), true
}

// equal is = of the language: the same event, or equal values. nil equals
// nothing, not even nil (SQL); an event never equals a value.
func equal(a, b value) bool {
	if a.isEvent() || b.isEvent() {
		return a.kind == b.kind && a.exec == b.exec && a.end == b.end
	}
	c, ok := compare(a, b)
	return ok && c == 0
}

// key identifies a value for set semantics: two values with one key are
// one element of a set (events by identity, values by kind and content).
func (v value) key() string {
	switch v.kind {
	case vNil:
		return "n"
	case vInt, vBool:
		return "i" + strconv.FormatInt(v.i, 10)
	case vFloat:
		return "f" + strconv.FormatFloat(v.f, 'g', -1, 64)
	case vString:
		return "s" + strconv.Quote(v.s)
	case vList:
		return "l" + v.s
	case vExec:
		return "x" + strconv.FormatInt(v.exec.ID, 10)
	case vPoint:
		if v.end {
			return "e" + strconv.FormatInt(v.exec.ID, 10)
		}
		return "b" + strconv.FormatInt(v.exec.ID, 10)
	}
	return "?"
}

// Point is a point event in an Answer's rows: the begin or end of the
// execution Exec.
type Point struct {
	Exec int64
	End  bool
}

// export is v as an Answer's rows hold it.
func (v value) export() any {
	switch v.kind {
	case vInt:
		return v.i
	case vBool:
		return v.i == 1
	case vFloat:
		return v.f
	case vString:
		return v.s
	case vList:
		return v.list
	case vExec:
		return v.exec.ID
	case vPoint:
		return Point{Exec: v.exec.ID, End: v.end}
	}
	return nil
}

// format is a value of an Answer's rows as pmm's views hold it, in the
// text form of cmd/pmm's tests: integers and floats in decimal, booleans
// as 1 and 0, lists in their canonical text, nil as NULL.
func format(x any) string {
	switch x := x.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		if x {
			return "1"
		}
		return "0"
	case string:
		return x
	case []byte:
		return string(x)
	case []any:
		return listText(x)
	}
	return fmt.Sprint(x)
}
