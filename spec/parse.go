package spec

import (
	"strings"
)

// parser turns the s-expressions of a file into definitions, reporting
// every form it cannot make sense of.
type parser struct {
	diags *diagnostics
}

const defSyntax = "(defevent NAME :definition ((VARS) s.t. FORMULA)) or (defquestion NAME :definition ...)"

// parseFile reads the definitions of one PMM file.
func parseFile(file string, src []byte, diags *diagnostics) []*Def {
	diags.addSource(file, src)
	p := &parser{diags: diags}
	var defs []*Def
	for _, form := range readAll(file, src, diags) {
		if d := p.def(form); d != nil {
			defs = append(defs, d)
		}
	}
	return defs
}

func (p *parser) def(x *sexpr) *Def {
	if x.kind != sList || len(x.elems) == 0 || x.elems[0].kind != sSymbol {
		p.diags.errorf(x.pos, "a PMM file is a list of "+defSyntax, "expected a definition, found %s", x.describe())
		return nil
	}
	head := x.elems[0]
	var question bool
	switch strings.ToLower(head.text) {
	case "defevent":
	case "defquestion":
		question = true
	default:
		hint := "a PMM file is a list of " + defSyntax
		if s := Closest(head.text, []string{"defevent", "defquestion"}); s != "" {
			hint = "did you mean " + s + "?"
		}
		p.diags.errorf(head.pos, hint, "unknown definition form %s", head.text)
		return nil
	}
	if len(x.elems) != 4 || x.elems[1].kind != sSymbol || !x.elems[2].isSymbol(":definition") {
		p.diags.errorf(x.pos, "write "+defSyntax, "malformed %s", head.text)
		return nil
	}
	name := x.elems[1]
	d := &Def{Pos: x.pos, Question: question, Name: strings.ToLower(name.text), NamePos: name.pos}
	spec := x.elems[3]
	if spec.kind != sList || len(spec.elems) == 0 {
		p.diags.errorf(spec.pos, "write ((VARS) s.t. FORMULA) or (count ACTIVITY (input output ...))", "malformed definition of %s", name.text)
		return nil
	}
	if first := spec.elems[0]; first.kind == sSymbol && IsAggregateOp(first.text) {
		d.Aggregate = p.aggregate(spec)
		if d.Aggregate == nil {
			return nil
		}
		return d
	}
	if len(spec.elems) == 3 && spec.elems[0].kind == sList && !isSuchThat(spec.elems[1]) {
		p.diags.errorf(spec.elems[1].pos, "write ((VARS) s.t. FORMULA); s.t., suchthat and | are the same", "expected s.t. after the variables, found %s", spec.elems[1].describe())
		return nil
	}
	if len(spec.elems) != 3 || spec.elems[0].kind != sList {
		p.diags.errorf(spec.pos, "write ((VARS) s.t. FORMULA); s.t., suchthat and | are the same", "malformed definition of %s", name.text)
		return nil
	}
	d.Head = p.vars(spec.elems[0])
	d.Body = p.formula(spec.elems[2])
	if d.Body == nil {
		return nil
	}
	return d
}

func isSuchThat(x *sexpr) bool {
	return x.isSymbol("s.t.") || x.isSymbol("suchthat") || x.isSymbol("|")
}

func (p *parser) aggregate(x *sexpr) *AggregateDef {
	op := x.elems[0]
	if len(x.elems) != 3 || x.elems[1].kind != sSymbol || x.elems[2].kind != sList {
		p.diags.errorf(x.pos, "write ("+strings.ToLower(op.text)+" ACTIVITY (input output ...)) with one input or output per column of ACTIVITY", "malformed aggregate")
		return nil
	}
	agg := &AggregateDef{Pos: x.pos, Op: strings.ToLower(op.text), Of: strings.ToLower(x.elems[1].text), OfPos: x.elems[1].pos}
	ok := true
	for _, io := range x.elems[2].elems {
		switch {
		case io.isSymbol("input"):
			agg.Inputs = append(agg.Inputs, true)
		case io.isSymbol("output"):
			agg.Inputs = append(agg.Inputs, false)
		default:
			p.diags.errorf(io.pos, "each position of the pattern is input (kept, a group key) or output (aggregated)", "expected input or output, found %s", io.describe())
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return agg
}

// vars reads a list of variables.
func (p *parser) vars(x *sexpr) []Term {
	var vars []Term
	for _, v := range x.elems {
		if v.kind != sSymbol || !isVariableName(v.text) {
			p.diags.errorf(v.pos, "variables are symbols such as x or callee", "expected a variable, found %s", v.describe())
			continue
		}
		vars = append(vars, Term{Pos: v.pos, Var: strings.ToLower(v.text)})
	}
	return vars
}

// isVariableName reports whether a symbol may name a variable: not a
// keyword or literal.
func isVariableName(s string) bool {
	switch strings.ToLower(s) {
	case "and", "or", "not", "exists", "exist", "forall", "for-all", "s.t.", "suchthat", "|", "true", "false", "nil":
		return false
	}
	return !strings.HasPrefix(s, ":")
}

func (p *parser) formula(x *sexpr) Formula {
	if x.kind != sList {
		p.diags.errorf(x.pos, "a formula is (and ...), (or ...), (not ...), (exists (VARS) ...), or an atom such as (calls f g)", "expected a formula, found %s", x.describe())
		return nil
	}
	if len(x.elems) == 0 {
		p.diags.errorf(x.pos, "write a formula inside the parentheses", "empty formula ()")
		return nil
	}
	head := x.elems[0]
	if head.kind == sList {
		if len(x.elems) == 1 { // (FORMULA) is FORMULA
			return p.formula(head)
		}
		p.diags.errorf(x.pos, "combine formulas with (and ...) or (or ...)", "expected a formula, found a list of formulas")
		return nil
	}
	if head.kind != sSymbol {
		p.diags.errorf(head.pos, "a formula starts with and, or, not, exists, or the name of an event or relation", "expected an operator or relation name, found %s", head.describe())
		return nil
	}
	args := x.elems[1:]
	switch strings.ToLower(head.text) {
	case "and", "or":
		if len(args) == 0 {
			p.diags.errorf(x.pos, "give it at least one formula", "empty (%s)", strings.ToLower(head.text))
			return nil
		}
		var fs []Formula
		for _, a := range args {
			if f := p.formula(a); f != nil {
				fs = append(fs, f)
			}
		}
		if len(fs) != len(args) {
			return nil
		}
		if strings.EqualFold(head.text, "and") {
			return &And{Pos: x.pos, Args: fs}
		}
		return &Or{Pos: x.pos, Args: fs}
	case "not":
		if len(args) != 1 {
			p.diags.errorf(x.pos, "write (not FORMULA); for several, (not (and ...))", "not takes one formula, found %d", len(args))
			return nil
		}
		if f := p.formula(args[0]); f != nil {
			return &Not{Pos: x.pos, Arg: f}
		}
		return nil
	case "exists", "exist", "forall", "for-all":
		if len(args) != 2 || args[0].kind != sList {
			p.diags.errorf(x.pos, "write ("+strings.ToLower(head.text)+" (VARS) FORMULA)", "malformed %s", strings.ToLower(head.text))
			return nil
		}
		vars := p.vars(args[0])
		body := p.formula(args[1])
		if body == nil {
			return nil
		}
		if strings.HasPrefix(strings.ToLower(head.text), "for") {
			return &Forall{Pos: x.pos, Vars: vars, Body: body}
		}
		return &Exists{Pos: x.pos, Vars: vars, Body: body}
	}
	atom := &AtomF{Pos: x.pos, Pred: strings.ToLower(head.text), Written: head.text}
	for _, a := range args {
		if t, ok := p.term(a); ok {
			atom.Args = append(atom.Args, t)
		} else {
			return nil
		}
	}
	return atom
}

func (p *parser) term(x *sexpr) (Term, bool) {
	t := Term{Pos: x.pos}
	switch x.kind {
	case sSymbol:
		switch strings.ToLower(x.text) {
		case "true", "false":
			t.Lit = &Literal{Kind: LitBool, Bool: strings.EqualFold(x.text, "true")}
		case "nil":
			t.Lit = &Literal{Kind: LitNil}
		default:
			if !isVariableName(x.text) {
				p.diags.errorf(x.pos, "an argument is a variable or a literal", "unexpected %s in argument position", x.text)
				return t, false
			}
			t.Var = strings.ToLower(x.text)
		}
	case sQuoted, sString:
		t.Lit = &Literal{Kind: LitString, Str: x.text}
	case sQuotedList:
		t.Lit = p.listLiteral(x)
		if t.Lit == nil {
			return t, false
		}
	case sInt:
		t.Lit = &Literal{Kind: LitInt, Int: x.ival}
	case sFloat:
		t.Lit = &Literal{Kind: LitFloat, Float: x.fval}
	case sList:
		p.diags.errorf(x.pos, "arguments are variables or literals; formulas combine with (and ...)", "unexpected list in argument position")
		return t, false
	}
	return t, true
}

// listLiteral reads the elements of a quoted list: numbers, strings,
// quoted symbols, true, false, nil and nested lists; a bare symbol in it
// is the string of its text, as in 'FOO.
func (p *parser) listLiteral(x *sexpr) *Literal {
	l := &Literal{Kind: LitList, List: []*Literal{}}
	for _, e := range x.elems {
		var el *Literal
		switch e.kind {
		case sList, sQuotedList:
			el = p.listLiteral(e)
			if el == nil {
				return nil
			}
		case sSymbol:
			switch strings.ToLower(e.text) {
			case "true", "false":
				el = &Literal{Kind: LitBool, Bool: strings.EqualFold(e.text, "true")}
			case "nil":
				el = &Literal{Kind: LitNil}
			default:
				el = &Literal{Kind: LitString, Str: e.text}
			}
		case sQuoted, sString:
			el = &Literal{Kind: LitString, Str: e.text}
		case sInt:
			el = &Literal{Kind: LitInt, Int: e.ival}
		case sFloat:
			el = &Literal{Kind: LitFloat, Float: e.fval}
		}
		l.List = append(l.List, el)
	}
	return l
}
