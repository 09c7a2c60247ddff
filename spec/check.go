package spec

import (
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"pmm.dev/pmm/internal/funcname"
)

// checker checks definitions before normalization: names, arities,
// argument kinds, recursion (IC1) and safety (IC3, seed 3.3.2).
type checker struct {
	diags *diagnostics
	defs  map[string]*Def
	order map[string]int // place of each definition in the files
}

func newChecker(diags *diagnostics) *checker {
	return &checker{diags: diags, defs: map[string]*Def{}, order: map[string]int{}}
}

// check checks defs, in order, and returns the definitions that may be
// normalized (those without errors of their own).
func (c *checker) check(defs []*Def) {
	for _, d := range defs {
		if prev, dup := c.defs[d.Name]; dup {
			c.diags.errorf(d.NamePos, "rename one of them; the first is at "+prev.NamePos.String(), "%s %s is defined twice", d.kind(), d.Name)
			continue
		}
		if p := Lookup(d.Name); p != nil {
			c.diags.errorf(d.NamePos, "choose another name", "%s is a primitive %s of the language and cannot be redefined", d.Name, p.Kind)
			continue
		}
		if IsAggregateOp(d.Name) {
			c.diags.errorf(d.NamePos, "choose another name", "%s is an aggregate operator and cannot be redefined", d.Name)
			continue
		}
		c.order[d.Name] = len(c.order)
		c.defs[d.Name] = d
	}
	for _, d := range defs {
		if c.defs[d.Name] != d {
			continue
		}
		if d.Aggregate != nil {
			c.aggregate(d)
			continue
		}
		c.names(d, d.Body)
		c.scope(d)
		c.safety(d.Body, nil, true)
	}
	c.recursion(defs)
}

// names resolves every atom of f: primitives and defined names, with
// their arity and argument kinds.
func (c *checker) names(d *Def, f Formula) {
	walk(f, func(f Formula) {
		a, ok := f.(*AtomF)
		if !ok {
			return
		}
		if p := Lookup(a.Pred); p != nil {
			c.primitiveAtom(a, p)
			return
		}
		target, ok := c.defs[a.Pred]
		if !ok {
			hint := "define it with defevent before this use, or use a primitive (docs/LANGUAGE.md lists them)"
			if s := Closest(a.Pred, c.knownNames()); s != "" {
				hint = "did you mean " + s + "?"
			}
			c.diags.errorf(a.Pos, hint, "unknown event or relation %s", a.Written)
			return
		}
		d.references = append(d.references, a)
		if target == d || c.order[target.Name] > c.order[d.Name] {
			return // recursion or use before definition: reported by recursion
		}
		if len(a.Args) != target.Arity() {
			c.diags.errorf(a.Pos, fmt.Sprintf("%s is defined at %s with %d variables", target.Name, target.NamePos, target.Arity()),
				"%s takes %d arguments, found %d", a.Written, target.Arity(), len(a.Args))
		}
	})
}

func (c *checker) knownNames() []string {
	names := primitiveNames()
	for n := range c.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// primitiveAtom checks the arity and argument kinds of an atom of p that
// can be checked without knowing the types of variables.
func (c *checker) primitiveAtom(a *AtomF, p *Primitive) {
	if len(a.Args) != p.Arity() {
		c.diags.errorf(a.Pos, "write "+p.Example, "%s takes %d arguments, found %d", p.Name, p.Arity(), len(a.Args))
		return
	}
	for i, t := range a.Args {
		arg := p.Args[i]
		switch arg.Kind {
		case ArgEvent:
			if t.Lit != nil {
				c.diags.errorf(t.Pos, "write "+p.Example, "argument %s of %s is an event variable, found the literal %s", arg.Name, p.Name, t)
			}
		case ArgValue:
			// pmm records lists only as parameters and return-values
			// (a slice or struct argument is its %v string): a list
			// literal anywhere else would match nothing.
			if t.Lit != nil && t.Lit.Kind == LitList && p.Kind == Attribute && arg.Value != ValList {
				c.diags.errorf(t.Pos, "compare lists with (parameters x v) or (return-values x v); a slice or struct value is the string fmt prints for it with %v",
					"argument %s of %s is %s, never a list, found %s", arg.Name, p.Name, valueNoun(arg.Value), t)
			}
		case ArgPosition:
			if t.Lit == nil || t.Lit.Kind != LitInt || t.Lit.Int < 1 {
				c.diags.errorf(t.Pos, "write "+p.Example+"; positions count from 1", "argument %s of %s is a position, an integer literal ≥ 1, found %s", arg.Name, p.Name, t)
			}
		case ArgFuncName:
			if t.Lit != nil && t.Lit.Kind != LitString {
				c.diags.errorf(t.Pos, `names are written as the runtime prints them: "main.F", "example.com/m/pkg.(*T).M"`, "argument %s of %s is a function name, found %s", arg.Name, p.Name, t)
			} else if t.Lit != nil && !printable(t.Lit.Str) {
				c.diags.errorf(t.Pos, `names are written as the runtime prints them: "main.F", "example.com/m/pkg.(*T).M"`,
					"the function name %s is not valid UTF-8 or has control characters: no Go function has that name", strconv.Quote(t.Lit.Str))
			} else if t.Lit != nil && strings.ContainsAny(funcname.Key(t.Lit.Str), "[]") {
				c.diags.errorf(t.Pos, `name a generic function, or a method of a generic type, without its type arguments or as pprof does: "main.Max" or "main.Max[...]", "main.(*Box).Put" or "main.(*Box[...]).Put"`,
					"the function name %s has type arguments: the runtime names every instantiation alike, with [...]", strconv.Quote(t.Lit.Str))
			}
		case ArgAccounts:
			if t.Lit == nil || t.Lit.Kind != LitString {
				c.diags.errorf(t.Pos, "write "+p.Example, "argument %s of %s is a list of package patterns written as one string, found %s", arg.Name, p.Name, t)
			} else if _, err := AccountPatterns(t.Lit.Str); err != nil {
				c.diags.errorf(t.Pos, "write "+p.Example, "argument %s of %s: %v", arg.Name, p.Name, err)
			}
		case ArgTypeName:
			if t.Lit == nil || t.Lit.Kind != LitString || !typeName(t.Lit.Str) {
				c.diags.errorf(t.Pos, `write the package path, a dot and the type's name, as a string: "main.Node", "example.com/m/list.Node"; or "*" for every type`,
					"argument %s of %s is a named Go type written as a string, found %s", arg.Name, p.Name, t)
			}
		case ArgGoExpr:
			if t.Lit == nil || t.Lit.Kind != LitString {
				c.diags.errorf(t.Pos, `write the Go expression as a string, e.g. "len(items) > 10"`, "argument %s of %s is a Go expression written as a string, found %s", arg.Name, p.Name, t)
				continue
			}
			c.goExpr(t)
		}
	}
}

// typeName reports whether s names a Go type as a heap walk's membership
// type takes it: AnyType, or a package path, a dot and an identifier.
func typeName(s string) bool {
	if s == AnyType {
		return true
	}
	i := strings.LastIndex(s, ".")
	return i > 0 && printable(s) && !strings.ContainsAny(s, " \t*[]()") && token.IsIdentifier(s[i+1:])
}

// printable reports whether s is valid UTF-8 without control characters,
// as every name in Go source is.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// pureBuiltins are the builtin functions a data-condition may call; they
// have no side effects. Conversions to predeclared types are allowed too.
var pureBuiltins = map[string]bool{
	"len": true, "cap": true, "real": true, "imag": true, "complex": true, "min": true, "max": true,
	"bool": true, "string": true, "byte": true, "rune": true, "error": false,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"float32": true, "float64": true, "complex64": true, "complex128": true,
}

// goExpr checks that the Go expression of a data-condition parses and has
// no side effects: no calls but pure builtins and conversions, no
// channel receives, no function literals.
func (c *checker) goExpr(t Term) {
	src := t.Lit.Str
	expr, err := goparser.ParseExpr(src)
	if err != nil {
		msg := err.Error()
		if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "1:") {
			msg = msg[i+2:]
		}
		c.diags.errorf(t.Pos, "write a Go expression such as \"len(items)\" or \"req.Size > 1024\"", "malformed Go expression %q: %s", src, msg)
		return
	}
	ast.Inspect(expr, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); !ok || !pureBuiltins[id.Name] {
				c.diags.errorf(t.Pos, "a data-condition may call only len, cap, real, imag, complex, min, max and conversions to basic types",
					"Go expression %q calls %s, which may have side effects", src, exprString(n.Fun))
				return false
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				c.diags.errorf(t.Pos, "a data-condition may not receive from a channel: that changes the program", "Go expression %q receives from a channel", src)
				return false
			}
		case *ast.FuncLit:
			c.diags.errorf(t.Pos, "a data-condition is an expression without functions", "Go expression %q contains a function literal", src)
			return false
		}
		return true
	})
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	}
	return "a function"
}

// aggregate checks (OP ACTIVITY PATTERN) against the activity.
func (c *checker) aggregate(d *Def) {
	agg := d.Aggregate
	of, ok := c.defs[agg.Of]
	if !ok || c.order[of.Name] >= c.order[d.Name] {
		hint := "define the event or question to aggregate before this question"
		if !ok {
			if s := Closest(agg.Of, c.knownNames()); s != "" {
				hint = "did you mean " + s + "?"
			}
		}
		if ok && of == d {
			c.diags.errorf(agg.OfPos, "aggregate another event or question", "recursive definition (IC1): %s aggregates itself", d.Name)
			return
		}
		if Lookup(agg.Of) != nil {
			hint = "define an event over the primitive, e.g. (defevent execs :definition ((x n) s.t. (function-execution x n))), and aggregate it"
		}
		c.diags.errorf(agg.OfPos, hint, "%s aggregates %s, which is not an event or question defined before it", d.Name, agg.Of)
		return
	}
	if of.Aggregate != nil {
		c.diags.errorf(agg.OfPos, "aggregate the activity that "+of.Name+" aggregates", "%s is itself an aggregate; aggregates of aggregates are not supported", of.Name)
		return
	}
	if len(agg.Inputs) != of.Arity() {
		c.diags.errorf(agg.Pos, fmt.Sprintf("%s has %d columns (%s): give one input or output for each", of.Name, of.Arity(), termList(of.Head)),
			"the pattern has %d positions but %s has %d columns", len(agg.Inputs), of.Name, of.Arity())
		return
	}
}

func termList(ts []Term) string {
	var s []string
	for _, t := range ts {
		s = append(s, t.String())
	}
	return strings.Join(s, " ")
}

// scope checks that every variable is declared (in the head or by an
// enclosing exists), that declarations are not repeated, and that the head
// variables are exactly the free variables of the body.
func (c *checker) scope(d *Def) {
	inScope := map[string]bool{}
	var declared []string
	c.declare(d.Head, inScope, &declared, "the head of "+d.Name)
	var visit func(f Formula, inScope map[string]bool)
	visit = func(f Formula, inScope map[string]bool) {
		switch f := f.(type) {
		case *And:
			for _, g := range f.Args {
				visit(g, inScope)
			}
		case *Or:
			for _, g := range f.Args {
				visit(g, inScope)
			}
		case *Not:
			visit(f.Arg, inScope)
		case *Exists:
			visit(f.Body, c.bind(f.Vars, inScope, &declared))
		case *Forall:
			visit(f.Body, c.bind(f.Vars, inScope, &declared))
		case *AtomF:
			for _, t := range f.Args {
				if t.Lit == nil && !inScope[t.Var] {
					hint := "declare it in the head or with (exists (" + t.Var + ") ...)"
					if s := Closest(t.Var, declared); s != "" {
						hint = "did you mean " + s + "?"
					} else if f.Pred == TypeFunctionExecution || Lookup(f.Pred) == nil {
						hint += `; to name a function write a string such as "main.F" or a quoted symbol 'F`
					}
					c.diags.errorf(t.Pos, hint, "undefined variable %s", t.Var)
				}
			}
		}
	}
	visit(d.Body, inScope)
	free := freeVars(d.Body)
	for _, h := range d.Head {
		if !free[h.Var] {
			c.diags.errorf(h.Pos, "use it in the formula, or remove it from the head", "head variable %s does not appear free in the definition of %s", h.Var, d.Name)
		}
	}
}

func (c *checker) bind(vars []Term, outer map[string]bool, declared *[]string) map[string]bool {
	inner := make(map[string]bool, len(outer)+len(vars))
	for v := range outer {
		inner[v] = true
	}
	c.declare(vars, inner, declared, "this quantifier")
	return inner
}

func (c *checker) declare(vars []Term, scope map[string]bool, declared *[]string, where string) {
	seen := map[string]bool{}
	for _, v := range vars {
		if seen[v.Var] {
			c.diags.errorf(v.Pos, "remove the repetition", "variable %s is declared twice in %s", v.Var, where)
		}
		seen[v.Var] = true
		scope[v.Var] = true
		*declared = append(*declared, v.Var)
	}
}

// safety checks the four safety rules of seed 3.3.2 on f, taken as a
// maximal conjunction; outer holds the variables limited by the enclosing
// conjunctions, of which f is a part.
func (c *checker) safety(f Formula, outer map[string]bool, top bool) {
	terms := conjuncts(f)
	limited := map[string]bool{}
	for v := range outer {
		limited[v] = true
	}
	// Rule 3(a): free in a conjunct that is neither a comparison nor negated.
	for _, t := range terms {
		switch t := t.(type) {
		case *Not:
		case *AtomF:
			if !isComparison(t.Pred) {
				for _, a := range t.Args {
					if a.Lit == nil {
						limited[a.Var] = true
					}
				}
			}
		default:
			for v := range freeVars(t) {
				limited[v] = true
			}
		}
	}
	// Rules 3(b) and 3(c): equal to a constant, or to a limited variable.
	for changed := true; changed; {
		changed = false
		for _, t := range terms {
			a, ok := t.(*AtomF)
			if !ok || a.Pred != "=" || len(a.Args) != 2 {
				continue
			}
			x, y := a.Args[0], a.Args[1]
			for _, pair := range [][2]Term{{x, y}, {y, x}} {
				v, other := pair[0], pair[1]
				if v.Lit == nil && !limited[v.Var] && (other.Lit != nil || limited[other.Var]) {
					limited[v.Var] = true
					changed = true
				}
			}
		}
	}
	reported := map[string]bool{}
	for _, t := range terms {
		for _, v := range orderedFreeVars(t) {
			if !limited[v.Var] && !reported[v.Var] {
				reported[v.Var] = true
				c.diags.errorf(v.Pos, "bind "+v.Var+" with an event or attribute, such as (parameter x 1 "+v.Var+"), or with (= "+v.Var+" CONSTANT)",
					"variable %s is not limited (safety rule 3): it appears only in comparisons or negations", v.Var)
			}
		}
	}
	for _, t := range terms {
		switch t := t.(type) {
		case *Not:
			if len(terms) == 1 {
				c.diags.errorf(t.Pos, "negate a term of a conjunction, as in (and (calls x g) (not (calls g h)))",
					"not may only apply to a term of a conjunction (safety rule 4)")
			}
			c.safety(t.Arg, limited, false)
		case *Or:
			c.orBranches(t)
			for _, b := range t.Args {
				c.safety(b, limited, false)
			}
		case *Exists:
			c.safety(t.Body, without(limited, t.Vars), false)
		case *Forall:
			c.diags.errorf(t.Pos, "state it with a negated existential: (not (exists (VARS) (and ... (not ...))))",
				"universal quantification is not allowed (safety rule 1)")
			c.safety(t.Body, without(limited, t.Vars), false)
		}
	}
}

// orBranches checks safety rule 2: the branches of an or have the same
// free variables.
func (c *checker) orBranches(o *Or) {
	first := freeVars(o.Args[0])
	for _, b := range o.Args[1:] {
		fv := freeVars(b)
		if !sameSet(first, fv) {
			c.diags.errorf(b.Position(), "each branch of or must use the same free variables ("+setString(first)+"); this one uses ("+setString(fv)+")",
				"the branches of or have different free variables (safety rule 2)")
		}
	}
}

func isComparison(pred string) bool {
	p := Lookup(pred)
	return p != nil && p.Kind == ValueRelation
}

// conjuncts flattens nested ands into the terms of one conjunction.
func conjuncts(f Formula) []Formula {
	if a, ok := f.(*And); ok {
		var terms []Formula
		for _, g := range a.Args {
			terms = append(terms, conjuncts(g)...)
		}
		return terms
	}
	return []Formula{f}
}

func without(set map[string]bool, vars []Term) map[string]bool {
	out := map[string]bool{}
	for v := range set {
		out[v] = true
	}
	for _, v := range vars {
		delete(out, v.Var)
	}
	return out
}

// freeVars returns the free variables of f.
func freeVars(f Formula) map[string]bool {
	set := map[string]bool{}
	for _, t := range orderedFreeVars(f) {
		set[t.Var] = true
	}
	return set
}

// orderedFreeVars returns the first occurrence of each free variable of f,
// in source order. The bound variables are counted in and out of one map
// as the walk enters and leaves quantifiers, rather than copied at each,
// so that nested quantifiers cost what they contain.
func orderedFreeVars(f Formula) []Term {
	var out []Term
	seen := map[string]bool{}
	bound := map[string]int{}
	var visit func(f Formula)
	quantified := func(vars []Term, body Formula) {
		for _, v := range vars {
			bound[v.Var]++
		}
		visit(body)
		for _, v := range vars {
			bound[v.Var]--
		}
	}
	visit = func(f Formula) {
		switch f := f.(type) {
		case *And:
			for _, g := range f.Args {
				visit(g)
			}
		case *Or:
			for _, g := range f.Args {
				visit(g)
			}
		case *Not:
			visit(f.Arg)
		case *Exists:
			quantified(f.Vars, f.Body)
		case *Forall:
			quantified(f.Vars, f.Body)
		case *AtomF:
			for _, t := range f.Args {
				if t.Lit == nil && bound[t.Var] == 0 && !seen[t.Var] {
					seen[t.Var] = true
					out = append(out, t)
				}
			}
		}
	}
	visit(f)
	return out
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func setString(set map[string]bool) string {
	var s []string
	for k := range set {
		s = append(s, k)
	}
	sort.Strings(s)
	return strings.Join(s, " ")
}

// walk calls fn on f and every formula inside it.
func walk(f Formula, fn func(Formula)) {
	fn(f)
	switch f := f.(type) {
	case *And:
		for _, g := range f.Args {
			walk(g, fn)
		}
	case *Or:
		for _, g := range f.Args {
			walk(g, fn)
		}
	case *Not:
		walk(f.Arg, fn)
	case *Exists:
		walk(f.Body, fn)
	case *Forall:
		walk(f.Body, fn)
	}
}

// aggregateOn returns the first aggregate among the definitions named
// on a path of uses, or "".
func (c *checker) aggregateOn(path []string) string {
	for _, name := range path {
		if d := c.defs[name]; d != nil && d.Aggregate != nil {
			return name
		}
	}
	return ""
}

// recursion reports definitions that use themselves, directly or through
// others (IC1), and uses of names defined later in the files.
func (c *checker) recursion(defs []*Def) {
	uses := func(d *Def) []string {
		var names []string
		for _, a := range d.references {
			names = append(names, a.Pred)
		}
		if d.Aggregate != nil {
			names = append(names, d.Aggregate.Of)
		}
		return names
	}
	// reaches reports whether from reaches to through uses, with the path.
	var reaches func(from, to string, seen map[string]bool) []string
	reaches = func(from, to string, seen map[string]bool) []string {
		if seen[from] {
			return nil
		}
		seen[from] = true
		d, ok := c.defs[from]
		if !ok {
			return nil
		}
		for _, u := range uses(d) {
			if u == to {
				return []string{from, u}
			}
			if path := reaches(u, to, seen); path != nil {
				return append([]string{from}, path...)
			}
		}
		return nil
	}
	for _, d := range defs {
		if c.defs[d.Name] != d {
			continue
		}
		for _, a := range d.references {
			target, ok := c.defs[a.Pred]
			if !ok {
				continue
			}
			if path := reaches(target.Name, d.Name, map[string]bool{}); target == d || path != nil {
				cycle := d.Name + " uses itself"
				if target != d {
					cycle = d.Name + " uses " + strings.Join(path, ", which uses ")
				}
				if through := c.aggregateOn(append([]string{d.Name}, path...)); through != "" {
					// Stratification: an aggregate is computed over a
					// whole relation, which cannot wait for the aggregate.
					c.diags.errorf(a.Pos, "an aggregate is over a relation computed before it: define "+through+"'s activity without "+through,
						"aggregate %s depends on itself (stratification): %s", through, cycle)
					continue
				}
				c.diags.errorf(a.Pos, "events and questions cannot be defined recursively; define the relation without referring to itself",
					"recursive definition (IC1): %s", cycle)
			} else if c.order[target.Name] > c.order[d.Name] {
				c.diags.errorf(a.Pos, "move the definition of "+target.Name+" (at "+target.NamePos.String()+") above its first use",
					"%s is used before it is defined", a.Written)
			}
		}
	}
}

// valueNoun names a value type in an error message.
func valueNoun(v ValueType) string {
	switch v {
	case ValAny:
		return "one Go value"
	case ValName:
		return "a function name"
	}
	return "a " + string(v)
}
