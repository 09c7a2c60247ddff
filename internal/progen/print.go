package progen

import (
	"fmt"
	"go/format"
	"slices"
	"strconv"
	"strings"
)

// A stmt is one statement of a generated function body. The plain
// program and the traced twin print the same statements; returns,
// function literals and go statements differ in the twin.
type stmt interface{ print(p *printer) }

// raw is a statement printed as is (one or more lines).
type raw string

// ret is a return statement of the enclosing function.
type ret string

// block is a statement with a body: a loop or an if.
type block struct {
	head string // ends with "{"
	body []stmt
}

// closureDef defines a function literal in a variable, then runs text.
type closureDef struct {
	fn      *Func
	varName string
	text    string
}

// region is a labeled for, range, switch or block statement of a
// function's body: the twin records each of its executions, from its
// label (begun before it, and before each goto to it) to the first point
// where control leaves it: its end (ended after it), a branch statement
// that leaves it (ended before the branch), a return once its result is
// evaluated, or a panic (ended by a deferred call that runs before the
// function's other deferred calls).
type region struct {
	fn    *Func
	label string
	n     int // its number in fn, from 1: the twin's variable trR<n>
	// iter, for a loop with Features.Iterations, has the twin record its
	// iterations: each begins at the top of the body (ending the one
	// before, trI<n>, numbered by trN<n>), and ends where the region
	// ends, just before it.
	iter bool
	// mark: the region is named by a //pmm:region comment, not a label.
	mark bool
	block
	// For the questions: the functions its body calls, and the regions
	// inside it.
	callees map[*Func]bool
	inner   []*region
	ops     bool // its body has blocking operations
}

// branch is a break, continue, goto or return statement that may leave
// regions: the twin ends those it leaves first, innermost first; then a
// goto to a region's label begins that region.
type branch struct {
	text   string    // the statement; for a return, its result expression
	ret    bool      // a return of text
	leaves []*region // innermost first
	begins *region
}

// goStmt starts a worker.
type goStmt struct {
	fn   *Func
	args []string
}

type printer struct {
	tw    bool
	walks bool // the program has the lists of Features.Walks
	b     strings.Builder
	fns   []*Func // the function and literals being printed, innermost last
}

// walkCalls are the twin's begin and end calls of an execution of the
// innermost of p.fns (with the open parenthesis), and marks it as one
// that walks where an int a is in scope (walks.go).
func (p *printer) walkCalls() (begin, end string) {
	f := p.fns[len(p.fns)-1]
	if !p.walks || !hasA(p.fns) {
		return "trBegin(", "trEnd("
	}
	f.walks = true
	return "trBeginW(trWalks(a), ", "trEndW(trWalks(a), "
}

func (p *printer) line(format string, args ...any) {
	fmt.Fprintf(&p.b, format+"\n", args...)
}

func (s raw) print(p *printer) { p.line("%s", string(s)) }

func (s ret) print(p *printer) {
	if !p.tw {
		p.line("return %s", string(s))
		return
	}
	res, ok := p.vars(p.fns[len(p.fns)-1])
	p.line("%s = %s", res, string(s))
	p.line("%s = true", ok)
	p.line("return %s", res)
}

func (s *block) print(p *printer) {
	p.line("%s", s.head)
	for _, st := range s.body {
		st.print(p)
	}
	p.line("}")
}

func (s *region) print(p *printer) {
	if p.tw {
		p.line("%s", s.begin())
	}
	if s.mark {
		p.line("//pmm:region %s", s.label)
	} else {
		p.line("%s:", s.label)
	}
	if !p.tw || !s.iter {
		s.block.print(p)
	} else {
		p.line("%s", s.head)
		p.line("trRE(&%s)", s.iv())
		p.line("%s = trIB(%q, %q, &trN%d)", s.iv(), s.fn.Name, s.label, s.n)
		for _, st := range s.body {
			st.print(p)
		}
		p.line("}")
	}
	if p.tw {
		p.line("%s", s.end())
	}
}

// v is the twin's variable holding the open execution of s; iv the one
// holding its open iteration.
func (s *region) v() string  { return fmt.Sprintf("trR%d", s.n) }
func (s *region) iv() string { return fmt.Sprintf("trI%d", s.n) }

// begin begins s (and numbers its iterations from 0).
func (s *region) begin() string {
	b := fmt.Sprintf("%s = trRB(%q, %q)", s.v(), s.fn.Name, s.label)
	if s.iter {
		b += fmt.Sprintf("\ntrN%d = 0", s.n)
	}
	return b
}

// end ends s's open iteration, then s.
func (s *region) end() string {
	if s.iter {
		return fmt.Sprintf("trRE(&%s)\ntrRE(&%s)", s.iv(), s.v())
	}
	return fmt.Sprintf("trRE(&%s)", s.v())
}

func (s *branch) print(p *printer) {
	if p.tw {
		if s.ret {
			res, ok := p.vars(p.fns[len(p.fns)-1])
			p.line("%s = %s", res, s.text)
			p.line("%s = true", ok)
		}
		for _, r := range s.leaves {
			p.line("%s", r.end())
		}
		if s.begins != nil {
			p.line("%s", s.begins.begin())
		}
		if s.ret {
			res, _ := p.vars(p.fns[len(p.fns)-1])
			p.line("return %s", res)
			return
		}
	}
	if s.ret {
		p.line("return %s", s.text)
		return
	}
	p.line("%s", s.text)
}

// regionTop declares, in the twin, the variables of f's regions and
// defers their unwind: registered after every other deferred call of f
// that a region's panic can meet, it runs first, so that a panic ends
// the regions it leaves before f's deferred calls run.
func (p *printer) regionTop(f *Func) {
	if !p.tw || len(f.regions) == 0 {
		return
	}
	var vs, ptrs []string
	for i := len(f.regions) - 1; i >= 0; i-- {
		r := f.regions[i]
		if r.iter {
			vs = append(vs, r.iv(), fmt.Sprintf("trN%d", r.n))
			ptrs = append(ptrs, "&"+r.iv())
		}
		vs = append(vs, r.v())
		ptrs = append(ptrs, "&"+r.v())
	}
	p.line("var %s int64", strings.Join(vs, ", "))
	p.line("defer trRUnwind(%s)", strings.Join(ptrs, ", "))
}

func (s *closureDef) print(p *printer) {
	p.line("%s := func(%s)%s {", s.varName, declParams(s.fn.params, s.fn.Params), p.results(s.fn))
	p.body(s.fn)
	p.line("}")
	p.line("%s", s.text)
}

func (s *goStmt) print(p *printer) {
	name := s.fn.local // of the spawner's package
	if !p.tw {
		p.line("go %s(%s)", name, strings.Join(s.args, ", "))
		return
	}
	// The twin begins the goroutine at the go statement, before its
	// arguments are evaluated, and passes it to the new goroutine, which
	// records it there with its spawner, adopts the spawner for its
	// first execution, and ends it when the worker has ended.
	var params, names []string
	for i, t := range s.fn.Params {
		params = append(params, fmt.Sprintf("trA%d %s", i, t))
		names = append(names, fmt.Sprintf("trA%d", i))
	}
	p.line("go func(trGo *trRecord, %s) {", strings.Join(params, ", "))
	p.line("defer trGE(trGA(trGo))")
	p.line("%s(%s)", name, strings.Join(names, ", "))
	p.line("}(trGB(%q), %s)", s.fn.Name, strings.Join(s.args, ", "))
}

// vars are the names of the result and of the "returned normally" flag
// of f in the twin: numbered for literals, which see the enclosing
// function's.
func (p *printer) vars(f *Func) (res, ok string) {
	if f.closure > 0 {
		return fmt.Sprintf("res%d", f.closure), fmt.Sprintf("trOK%d", f.closure)
	}
	return "res", "trOK"
}

func (f *Func) resultType() string {
	if f.resType != "" {
		return f.resType
	}
	return string(f.Result)
}

// results is f's result list: named in the twin (the tracer reads it at
// the end) and where a deferred closure sets it after a recover.
func (p *printer) results(f *Func) string {
	t := f.resultType()
	switch {
	case t == "":
		return ""
	case p.tw || f.recov:
		res, _ := p.vars(f)
		return fmt.Sprintf(" (%s %s)", res, t)
	}
	return " " + t
}

// body prints f's statements, in the twin between its begin and end.
func (p *printer) body(f *Func) {
	p.fns = append(p.fns, f)
	defer func() { p.fns = p.fns[:len(p.fns)-1] }()
	res, ok := p.vars(f)
	id := strings.Replace(ok, "trOK", "trID", 1)
	begin, end := p.walkCalls()
	if p.tw {
		args := append([]string{fmt.Sprintf("%q", f.Name)}, f.params...)
		p.line("%s, %s := %s%s)", id, ok, begin, strings.Join(args, ", "))
		if f.Name == "main.main" {
			p.line("defer trFinish()")
		}
		if f.resultType() != "" {
			p.line("defer %s%s, &%s, trRes(&%s))", end, id, ok, res)
		} else {
			p.line("defer %s%s, &%s)", end, id, ok)
		}
	}
	for i, s := range f.body {
		if i == f.recovAt {
			if f.recovFn != nil {
				p.recoverClosure(f)
			}
			p.regionTop(f)
		}
		s.print(p)
	}
	if p.tw && f.resultType() == "" {
		p.line("%s = true", ok)
	}
}

// recoverClosure prints f's deferred closure that recovers: f then
// returns normally, with 9 as its result.
func (p *printer) recoverClosure(f *Func) {
	rc := f.recovFn
	res, ok := p.vars(f)
	p.line("defer func() {")
	p.fns = append(p.fns, rc)
	begin, end := p.walkCalls()
	p.fns = p.fns[:len(p.fns)-1]
	if p.tw {
		_, rok := p.vars(rc)
		p.line("trID1, %s := %s%q)", rok, begin, rc.Name)
		p.line("defer %strID1, &%s)", end, rok)
	}
	p.line("if r := recover(); r != nil {")
	if f.resultType() != "" {
		p.line("%s = 9", res)
	}
	if p.tw {
		p.line("%s = true", ok)
	}
	p.line("}")
	if p.tw {
		_, rok := p.vars(rc)
		p.line("%s = true", rok)
	}
	p.line("}()")
}

// printAll prints the whole program, plain or traced: main.go, and the
// other packages' files by their paths (with, in the twin, the tracer's
// package), nil for a program of one package.
func (g *gen) printAll(tw bool) (string, map[string]string) {
	var files map[string]string
	if g.multi() {
		files = map[string]string{}
		for _, k := range g.pkgs {
			if !k.isMain() && slices.ContainsFunc(g.funcs, func(f *Func) bool { return f.pkg == k }) {
				files[k.name+"/"+k.name+".go"] = g.print(k, tw)
			}
		}
		if tw {
			files["tr/trace.go"] = tracerPackage()
		}
	}
	return g.print(g.mainPkg(), tw), files
}

// print prints package k, plain or traced.
func (g *gen) print(k *pkg, tw bool) string {
	p := &printer{tw: tw, walks: g.walks && k.isMain()}
	p.line("// A program generated by internal/progen.\n")
	p.line("package %s\n", k.name)
	p.line("IMPORTS\n")
	p.line("var strs = []string{\"a\", \"b\", \"c\"}\n")
	for _, d := range k.decls {
		p.line("%s\n", d)
	}
	if p.walks && tw {
		for _, d := range walkTwinDecls {
			p.line("%s\n", d)
		}
	}
	for _, f := range g.funcs {
		if f.closure > 0 || f.pkg != k {
			continue
		}
		if f.allocs {
			p.line("//go:noinline") // its allocations are on the heap in its own body only
		}
		p.line("%s%s {", f.sig, p.results(f))
		p.body(f)
		p.line("}\n")
	}
	text := p.b.String()
	text = g.unplace(text)
	if tw && g.multi() {
		text = exportTracer(text)
	}
	imps := imports(strings.Replace(text, "IMPORTS\n", "", 1), k, g.pkgs)
	if tw && g.multi() {
		imps = append(imps, ". "+strconv.Quote(tracerPath))
	}
	text = strings.Replace(text, "IMPORTS\n", fmt.Sprintf("import (\n%s\n)\n", strings.Join(imps, "\n")), 1)
	src, err := format.Source([]byte(text))
	if err != nil {
		panic(fmt.Sprintf("progen: generated code does not parse: %v\n%s", err, text))
	}
	return string(src)
}
