package spec

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// LitKind is the kind of a literal.
type LitKind int

// The kinds of literals. A quoted symbol 'FOO is the string "FOO"; a
// quoted list '(3 1) is a list value, compared with the lists of
// parameters and return-values.
const (
	LitString LitKind = iota + 1
	LitInt
	LitFloat
	LitBool
	LitNil
	LitList
)

// Literal is a constant in a formula.
type Literal struct {
	Kind  LitKind
	Str   string
	Int   int64
	Float float64
	Bool  bool
	List  []*Literal // LitList: the elements, lists nested as Go values are
}

// String formats l in PMM syntax, so that it reads back as l.
func (l *Literal) String() string {
	switch l.Kind {
	case LitString:
		return strconv.Quote(l.Str)
	case LitInt:
		return strconv.FormatInt(l.Int, 10)
	case LitFloat:
		s := strconv.FormatFloat(l.Float, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEnN") { // keep it a float: 1 → 1.0
			s += ".0"
		}
		return s
	case LitBool:
		return strconv.FormatBool(l.Bool)
	case LitNil:
		return "nil"
	case LitList:
		return "'" + l.listString()
	}
	return "?"
}

// listString is a list's elements in parentheses, nested lists without
// their quote (the quote applies to the whole list).
func (l *Literal) listString() string {
	parts := make([]string, len(l.List))
	for i, e := range l.List {
		if e.Kind == LitList {
			parts[i] = e.listString()
		} else {
			parts[i] = e.String()
		}
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// ListText is the canonical text of a list literal: the JSON that pmm
// stores the list values of parameters and return-values as (rt/load
// writes them so), which the list compares as, text with text. Strings
// are escaped as the loader escapes them.
func (l *Literal) ListText() string {
	var b strings.Builder
	l.writeJSON(&b)
	return b.String()
}

func (l *Literal) writeJSON(b *strings.Builder) {
	switch l.Kind {
	case LitList:
		b.WriteByte('[')
		for i, e := range l.List {
			if i > 0 {
				b.WriteByte(',')
			}
			e.writeJSON(b)
		}
		b.WriteByte(']')
	case LitString:
		WriteJSONString(b, l.Str)
	case LitFloat:
		switch {
		case math.IsNaN(l.Float):
			b.WriteString(`"NaN"`)
		case math.IsInf(l.Float, 1):
			b.WriteString(`"+Inf"`)
		case math.IsInf(l.Float, -1):
			b.WriteString(`"-Inf"`)
		default:
			b.WriteString(strconv.FormatFloat(l.Float, 'g', -1, 64))
		}
	case LitNil:
		b.WriteString("null")
	default:
		b.WriteString(l.String())
	}
}

// WriteJSONString writes s as rt/load writes a string in a list: JSON,
// control characters as \u00XX, invalid UTF-8 as \ufffd.
func WriteJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for len(s) > 0 {
		c := s[0]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		case c < utf8.RuneSelf:
			b.WriteByte(c)
		default:
			r, size := utf8.DecodeRuneInString(s)
			if r == utf8.RuneError && size == 1 {
				b.WriteString(`\ufffd`)
			} else {
				b.WriteString(s[:size])
			}
			s = s[size:]
			continue
		}
		s = s[1:]
	}
	b.WriteByte('"')
}

// Term is an argument of an atom: a variable or a literal.
type Term struct {
	Pos Pos
	Var string   // the variable's name, lower-cased; empty for a literal
	Lit *Literal // the literal, or nil for a variable
}

func (t Term) String() string {
	if t.Lit != nil {
		return t.Lit.String()
	}
	return t.Var
}

// Formula is a well-formed formula of the PMM language.
type Formula interface {
	Position() Pos
}

// And, Or, Not, Exists, Forall and AtomF are the formulas.
type (
	And struct {
		Pos  Pos
		Args []Formula
	}
	Or struct {
		Pos  Pos
		Args []Formula
	}
	Not struct {
		Pos Pos
		Arg Formula
	}
	Exists struct {
		Pos  Pos
		Vars []Term
		Body Formula
	}
	Forall struct {
		Pos  Pos
		Vars []Term
		Body Formula
	}
	// AtomF is an atom: a primitive, a defined event or question, or a
	// comparison, applied to terms.
	AtomF struct {
		Pos     Pos
		Pred    string // lower-cased
		Written string // as the user wrote it
		Args    []Term
	}
)

// Position returns where the formula starts.
func (f *And) Position() Pos    { return f.Pos }
func (f *Or) Position() Pos     { return f.Pos }
func (f *Not) Position() Pos    { return f.Pos }
func (f *Exists) Position() Pos { return f.Pos }
func (f *Forall) Position() Pos { return f.Pos }
func (f *AtomF) Position() Pos  { return f.Pos }

// Def is a defevent or defquestion.
type Def struct {
	Pos        Pos
	Question   bool   // defquestion rather than defevent
	Name       string // lower-cased
	NamePos    Pos
	Head       []Term // the set-former's variables (nil for an aggregate)
	Body       Formula
	Aggregate  *AggregateDef
	references []*AtomF // atoms naming defined events or questions
}

// Arity is the number of columns of the relation d defines.
func (d *Def) Arity() int {
	if d.Aggregate != nil {
		n := 1 // the number appended
		for _, in := range d.Aggregate.Inputs {
			if in {
				n++
			}
		}
		return n
	}
	return len(d.Head)
}

// AggregateDef is (OP ACTIVITY (input|output ...)).
type AggregateDef struct {
	Pos    Pos
	Op     string // count, sum, average, min, max
	Of     string // the activity aggregated, lower-cased
	OfPos  Pos
	Inputs []bool // per position of Of: true for input (group key), false for output
}

// kind names what d defines, for messages.
func (d *Def) kind() string {
	if d.Question {
		return "question"
	}
	return "event"
}
