// Package progen generates random Go programs and questions about them
// for the differential test of pmm against the reference semantics
// (internal/refeval). From a seed it builds a small model of a program —
// functions with int, string and bool parameters over small domains
// (so that equal arguments repeat), calls of every dispatch kind (direct,
// interface, function value, method value, closure, generic, a method on
// a function type, recursion, defer, goroutines joined by a WaitGroup),
// panics recovered by deferred closures, labeled regions (loops, range
// loops, switches, type switches, selects and blocks, left by break,
// continue, goto, return and panic; and loops a //pmm:region comment
// marks), blocking operations (channel sends and receives, selects
// without default, Lock, RLock, wg.Wait), heap allocations (new,
// &T{...}, make, append, concatenation), lists to walk from (heap
// walks), spread over three packages of the module in two seeds of three
// (packages.go) — and prints it twice: the
// plain program, which pmm instruments, and its traced twin, the same
// program with a hand-written tracer that records every execution of a
// function and of a region, every iteration of a loop region, every
// blocking operation, goroutine and allocation, and the heap walks at
// the begin and end of executions, in the internal/reftrace format. The generator also draws questions from
// templates over the model, using only what the reference evaluates
// exactly and deterministically.
package progen

import (
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Features chooses the constructs a generated program may use.
type Features struct {
	Interfaces   bool // calls through an interface with two implementations
	FuncValues   bool // calls of function values taken from a slice
	MethodValues bool // calls of a method value
	Closures     bool // function literals called in the function that defines them
	Generics     bool // a generic function and a method of a generic type
	HandlerFunc  bool // a method on a function type that calls its receiver
	Recursion    bool // a doubly recursive function
	Goroutines   bool // workers started by go statements and joined by a WaitGroup
	Panics       bool // leaves that panic on some arguments, recovered by deferred closures
	Defers       bool // deferred calls of functions
	// Regions are labeled loops, range loops, switches and blocks of
	// the mids, left by their end, break and continue to their labels,
	// gotos, returns and panics; and the question templates over them.
	Regions bool
	// Iterations: the twin records each iteration of a loop region (and
	// of a loop a //pmm:region comment marks, a shape of its own), and
	// the question templates over loop-iteration and iteration-index.
	Iterations bool
	// Blocking: channel sends and receives, selects without default,
	// Lock and RLock in the mids' bodies and regions (and the spawner's
	// wg.Wait), recorded by the twin; and the question templates over
	// blocking-operation and select-case.
	Blocking bool
	// GoroutineEvents: the question templates over goroutine-execution
	// (the twin records every goroutine from its go statement to the end
	// of the worker it starts).
	GoroutineEvents bool
	// Allocations: heap allocations in the mids (new, &T{...}, make,
	// append, concatenation), recorded by the twin; and the question
	// templates over allocation and its attributes.
	Allocations bool
	// Walks: package-level lists every function with an int parameter a
	// in scope can walk from ("wls[a&3]"), recorded by the twin; and the
	// question templates over reachable-objects and reachable-bytes.
	Walks bool
	// Contexts: the question templates over calling-context (the
	// executions and allocations per calling context).
	Contexts bool
	// Packages: in two seeds of three, the functions are spread over
	// three packages of the module (packages.go), leaves allocate too,
	// and the account questions' patterns match some packages and not
	// others.
	Packages bool

	// Question templates.
	Negations   bool // (not (exists ...)) over calls and calls*
	NotCalledBy bool // the executions of a function not called by another
	CallsStar   bool
	Contains    bool
	Cache       bool // the seed's cache question: equal parameters of two calls in one execution
	Panicked    bool
	Or          bool // a derived event defined with or
	Names       bool // heads and groups holding function names
	// RegionDefers lets the region templates relate a region to its own
	// function's deferred closure that recovers, which a panic in the
	// region runs.
	RegionDefers bool
}

// AllFeatures is every construct and every question template.
func AllFeatures() Features {
	return Features{Interfaces: true, FuncValues: true, MethodValues: true, Closures: true, Generics: true,
		HandlerFunc: true, Recursion: true, Goroutines: true, Panics: true, Defers: true, Regions: true,
		Iterations: true, Blocking: true, GoroutineEvents: true, Allocations: true, Walks: true, Contexts: true, Packages: true, Negations: true, NotCalledBy: true, CallsStar: true, Contains: true, Cache: true, Panicked: true,
		Or: true, Names: true, RegionDefers: true}
}

// Type is the Go type of a parameter or result.
type Type string

const (
	Int    Type = "int"
	String Type = "string"
	Bool   Type = "bool"
)

// Func is one function of a generated program, as the question generator
// sees it.
type Func struct {
	Name    string // as runtime.FuncForPC and pprof name it: main.m1, main.(*sq).area, main.m1.func1, main.pick[...], example.com/gen/pa.M2
	QName   string // as questions name it (generic functions without type arguments)
	Params  []Type // receiver excluded; nil where a type parameter leaves them open (pick, (*box).put)
	Result  Type   // "" for none
	Worker  bool   // a goroutine root whose end may come after main returned: no end attributes
	InGo    bool   // may run on a spawned goroutine
	Recurse bool   // calls itself

	callees map[*Func]bool // called directly, through any dispatch
	spawns  map[*Func]bool
	level   int
	// callCount counts the call sites of each callee, loops counting
	// twice: the cache question needs a callee called more than once.
	callCount map[*Func]int

	// Packages.
	pkg      *pkg
	local    string // the identifier of a function (not a method) in its package: m1, M2
	exported bool   // other packages may name it

	// Printing.
	sig      string // declaration up to the parameter list's end, plain form: "func m1(a int, s string)"
	params   []string
	body     []stmt
	recov    bool   // has a deferred closure that recovers (named result res)
	closure  int    // for closures: their number in the enclosing function (1, 2, ...)
	panics   bool   // may end by panicking
	resType  string // the result's Go type where it is not Result (E in a generic function)
	recovAt  int    // where in body the deferred closure that recovers goes
	recovFn  *Func  // that closure
	regions  []*region
	literals int      // function literals defined so far (closure)
	ops      []opInfo // its blocking operations
	nops     int      // the twin's variables of its blocking operations so far
	allocs   bool     // its body allocates (Features.Allocations)
	walks    bool     // "wls[a&3]" compiles in its body (Features.Walks)
	typeArgs bool     // its parameters are of a type parameter (pick)
}

// Regions are the labels of f's regions, in source order.
func (f *Func) Regions() []string {
	var ls []string
	for _, r := range f.regions {
		ls = append(ls, r.label)
	}
	return ls
}

// Program is a generated program: its source in both forms, its
// functions and its questions.
type Program struct {
	Seed     int64
	Features Features
	Funcs    []*Func
	Plain    string // main.go of the plain program
	Twin     string // main.go of the traced twin
	// PlainFiles and TwinFiles are the other files of a program spread
	// over packages (Features.Packages), by their paths in the module
	// ("pa/pa.go"; the twin's tracer, "tr/trace.go"); nil for a program
	// of one package.
	PlainFiles, TwinFiles map[string]string
	Questions             string // questions.pmm
	// QuestionNames are the questions whose answers are compared.
	QuestionNames []string

	pkgs []*pkg
}

// GoMod is the go.mod of a generated program (and of its twin).
const GoMod = "module " + ModulePath + "\n\ngo 1.23\n"

// TraceEnv names the environment variable that gives the traced twin the
// path of its trace file.
const TraceEnv = "PMM_REFTRACE"

// WritePlain writes the plain program and its questions into dir.
func (p *Program) WritePlain(dir string) error {
	files := map[string]string{"go.mod": GoMod, "main.go": p.Plain, "questions.pmm": p.Questions}
	maps.Copy(files, p.PlainFiles)
	return writeFiles(dir, files)
}

// WriteTwin writes the traced twin into dir.
func (p *Program) WriteTwin(dir string) error {
	files := map[string]string{"go.mod": GoMod, "main.go": p.Twin}
	if p.TwinFiles == nil {
		files["trace.go"] = traceRuntime
	}
	maps.Copy(files, p.TwinFiles)
	return writeFiles(dir, files)
}

// PlainSource is the text of every Go file of the plain program, main.go
// first.
func (p *Program) PlainSource() string {
	var b strings.Builder
	b.WriteString(p.Plain)
	for _, name := range slices.Sorted(maps.Keys(p.PlainFiles)) {
		b.WriteString(p.PlainFiles[name])
	}
	return b.String()
}

func writeFiles(dir string, files map[string]string) error {
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Func returns the function called name (pprof's form), or nil.
func (p *Program) Func(name string) *Func { return findFunc(p.Funcs, name) }

func findFunc(fs []*Func, name string) *Func {
	for _, f := range fs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Generate builds the program of seed with the features of feat.
func Generate(seed int64, feat Features) *Program {
	g := &gen{r: rand.New(rand.NewSource(seed)), ra: allocSource(seed), rl: rangeLoopSource(seed), feat: feat}
	g.setPackages(seed)
	g.build()
	g.nameServe()
	g.addWalks(seed)
	p := &Program{Seed: seed, Features: feat, Funcs: g.funcs, pkgs: g.pkgs}
	p.Plain, p.PlainFiles = g.printAll(false)
	p.Twin, p.TwinFiles = g.printAll(true)
	p.Questions, p.QuestionNames = genQuestions(rand.New(rand.NewSource(seed*7919+1)), p)
	return p
}

type gen struct {
	r     *rand.Rand
	ra    *rand.Rand // the allocations' draws (allocSource)
	rl    *rand.Rand // whether their loops range over a function (rangeLoopSource)
	feat  Features
	funcs []*Func
	rp    *rand.Rand // the packages' draws (pkgSource)
	pkgs  []*pkg     // by rank: main last

	leaves, unary, mids []*Func
	ifaceMethods        []*Func
	sqArea, pick, put   *Func
	serve, fib          *Func
	workers             []*Func
	values              int // method values declared so far, for unique names
	b2i                 *Func
	spawn               *Func
	handlerName         string // nameServe
	serveName           string
	// The packages of the groups of declarations: the unary functions,
	// their slice and the handler type; the shapes; the generics.
	unaryPkg, shapesPkg, genericPkg *pkg
	allocFuncs                      []*Func // the functions with allocations, in order
	walks                           bool    // the program has the lists of Features.Walks
}

// newFunc makes a function of package k named name in it: "m1",
// "(*sq).area", "m1.func1" (the identifier of a function, local, is the
// caller's to set).
func (g *gen) newFunc(k *pkg, name string, level int, params []Type, result Type) *Func {
	f := &Func{Name: k.prefix() + "." + name, QName: k.prefix() + "." + name, Params: params, Result: result, level: level,
		callees: map[*Func]bool{}, spawns: map[*Func]bool{}, callCount: map[*Func]int{}, pkg: k}
	g.funcs = append(g.funcs, f)
	return f
}

// newPlain makes a function (not a method) of package k named name in a
// program of one package, exported if exp.
func (g *gen) newPlain(k *pkg, name string, exp bool, level int, params []Type, result Type) *Func {
	id := k.ident(name, exp)
	f := g.newFunc(k, id, level, params, result)
	f.local, f.exported = id, exp && !k.isMain()
	return f
}

// short is f's name without its package's prefix: "m1.func1".
func (f *Func) short() string { return strings.TrimPrefix(f.Name, f.pkg.prefix()+".") }

var paramNames = []string{"a", "b", "c"}

// sigParams names the parameters: int a, b, c...; string s; bool t.
func sigParams(params []Type) []string {
	var names []string
	for i, t := range params {
		switch t {
		case String:
			names = append(names, fmt.Sprintf("s%d", i))
		case Bool:
			names = append(names, fmt.Sprintf("t%d", i))
		default:
			names = append(names, paramNames[i])
		}
	}
	return names
}

func (g *gen) pickType() Type {
	switch g.r.Intn(5) {
	case 0:
		return String
	case 1:
		return Bool
	}
	return Int
}

func (g *gen) build() {
	// Leaves: computations over their parameters, some of which panic.
	nl := 2 + g.r.Intn(3)
	for i := 1; i <= nl; i++ {
		params := []Type{Int}
		if g.r.Intn(2) == 0 {
			params = append(params, g.pickType())
		}
		k, exp := g.pkgs[0], true // the first in the package of lowest rank, exported: every function sees it
		if i > 1 {
			k = g.drawPkg()
			exp = g.drawExport(k, 2)
		}
		f := g.newPlain(k, fmt.Sprintf("l%d", i), exp, 0, params, Int)
		f.params = sigParams(params)
		f.sig = fmt.Sprintf("func %s(%s)", f.local, declParams(f.params, params))
		expr := "a*" + fmt.Sprint(1+g.r.Intn(3))
		if len(params) > 1 {
			switch params[1] {
			case String:
				expr += " + len(s1)"
			case Bool:
				g.needB2i()
				expr += " + " + ref(f, g.b2i) + "(t1)"
				f.callees[g.b2i] = true
				f.callCount[g.b2i]++
			case Int:
				expr += " + b"
			}
		}
		if g.feat.Panics && g.r.Intn(3) == 0 {
			f.body = append(f.body, raw(fmt.Sprintf("if a == %d {\n\tpanic(%q)\n}", g.r.Intn(4), f.Name)))
			f.panics = true
		}
		f.body = append(f.body, ret(fmt.Sprintf("(%s) %% %d", expr, 4+g.r.Intn(3))))
		g.leaves = append(g.leaves, f)
		if g.multi() {
			g.allocs(f, 0)
		}
	}
	// Unary leaves, func(int) int, for function values and the handler type.
	if g.feat.FuncValues || g.feat.HandlerFunc {
		k := g.drawPkg()
		g.unaryPkg = k
		for i := 1; i <= 2; i++ {
			f := g.newPlain(k, fmt.Sprintf("u%d", i), true, 0, []Type{Int}, Int)
			f.params = []string{"a"}
			f.sig = fmt.Sprintf("func %s(a int)", f.local)
			f.body = append(f.body, ret(fmt.Sprintf("(a + %d) %% %d", i, 3+i)))
			g.unary = append(g.unary, f)
		}
		if g.feat.FuncValues {
			k.decls = append(k.decls, fmt.Sprintf("var %s = []func(int) int{%s, %s}", k.ident("ops", true), g.unary[0].local, g.unary[1].local))
		}
		if g.feat.HandlerFunc {
			h, serve := g.handlerIdents()
			k.decls = append(k.decls, "type "+h+" func(int) int")
			f := g.newFunc(k, h+"."+serve, 1, []Type{Int}, Int)
			f.params = []string{"a"}
			f.sig = fmt.Sprintf("func (h %s) %s(a int)", h, serve)
			f.body = append(f.body, ret("(h(a) + 1) % 5"))
			for _, u := range g.unary {
				f.callees[u] = true
			}
			g.serve = f
		}
	}
	if g.feat.Interfaces || g.feat.MethodValues {
		k := g.drawPkg()
		g.shapesPkg = k
		shape, area, sqT, n := k.ident("shape", true), k.ident("area", true), k.ident("sq", true), k.ident("n", true)
		k.decls = append(k.decls, fmt.Sprintf("type %s interface {\n\t%s(k int) int\n}", shape, area),
			fmt.Sprintf("type %s struct{ %s int }", sqT, n), "type circ struct{ n int }")
		sq := g.newFunc(k, "(*"+sqT+")."+area, 1, []Type{Int}, Int)
		sq.params = []string{"a"}
		sq.sig = fmt.Sprintf("func (q *%s) %s(a int)", sqT, area)
		leaves := visible(sq, g.leaves)
		l := leaves[g.r.Intn(len(leaves))]
		sq.body = append(sq.body, ret(fmt.Sprintf("(q.%s + %s) %% 5", n, g.callText(sq, l, []string{"a % 3", "1", "\"b\"", "true"}))))
		ci := g.newFunc(k, "circ."+area, 1, []Type{Int}, Int)
		ci.params = []string{"a"}
		ci.sig = fmt.Sprintf("func (c circ) %s(a int)", area)
		ci.body = append(ci.body, ret("(c.n * a) % 5"))
		sq.exported, ci.exported = !k.isMain(), !k.isMain()
		g.sqArea = sq
		g.ifaceMethods = []*Func{sq, ci}
		k.decls = append(k.decls, fmt.Sprintf("var %s = []%s{&%s{%s: 1}, circ{n: 2}}", k.ident("shapes", true), shape, sqT, n))
	}
	if g.feat.Generics {
		k := g.drawPkg()
		g.genericPkg = k
		pick := k.ident("pick", true)
		f := g.newFunc(k, pick+"[...]", 0, []Type{Int, Int, Bool}, Int)
		f.QName = k.prefix() + "." + pick
		f.local, f.exported, f.typeArgs = pick, !k.isMain(), true
		f.params = []string{"a", "b", "t2"}
		f.sig = "func " + pick + "[E int | string](a, b E, t2 bool)"
		f.Params = nil // instantiated with int or string: see genericResult
		f.body = append(f.body, &block{head: "if t2 {", body: []stmt{ret("a")}}, ret("b"))
		f.Result = ""
		f.resType = "E"
		g.pick = f
		box, put := k.ident("box", true), k.ident("put", true)
		k.decls = append(k.decls, "type "+box+"[E any] struct{ v E }")
		p := g.newFunc(k, "(*"+box+"[...])."+put, 0, nil, Int) // its first parameter is an int or a string
		p.QName = k.prefix() + ".(*" + box + ")." + put
		p.exported = !k.isMain()
		p.params = []string{"x", "a"}
		p.sig = fmt.Sprintf("func (bx *%s[E]) %s(x E, a int)", box, put)
		p.body = append(p.body, raw("bx.v = x"), ret("(a + 1) % 4"))
		g.put = p
	}
	if g.feat.Recursion {
		k := g.drawPkg()
		f := g.newPlain(k, "fib", true, 1, []Type{Int}, Int)
		f.params = []string{"a"}
		f.sig = "func " + f.local + "(a int)"
		f.Recurse = true
		f.callees[f] = true
		f.callCount[f] = 2
		leaves := visible(f, g.leaves)
		l := leaves[g.r.Intn(len(leaves))]
		f.body = append(f.body,
			&block{head: "if a < 2 {", body: []stmt{ret(g.callText(f, l, []string{"a", "2", "\"a\"", "false"}))}},
			ret(fmt.Sprintf("(%[1]s(a-1) + %[1]s(a-2)) %% 7", f.local)))
		g.fib = f
	}
	// Mids: each calls leaves, earlier mids and the other constructs.
	nm := 2 + g.r.Intn(3)
	for i := 1; i <= nm; i++ {
		g.mids = append(g.mids, g.mid(i, i == nm && !g.feat.Goroutines))
	}
	if g.feat.Goroutines {
		g.spawner()
	}
	g.mainFunc()
	g.propagate()
}

func declParams(names []string, types []Type) string {
	var parts []string
	for i, n := range names {
		parts = append(parts, n+" "+string(types[i]))
	}
	return strings.Join(parts, ", ")
}

// needB2i adds b2i, a function of the program like the others.
func (g *gen) needB2i() {
	if g.b2i != nil {
		return
	}
	f := g.newPlain(g.pkgs[0], "b2i", true, -1, []Type{Bool}, Int)
	f.params = []string{"t"}
	f.sig = "func " + f.local + "(t bool)"
	f.body = []stmt{&block{head: "if t {", body: []stmt{ret("1")}}, ret("0")}
	g.b2i = f
}

// argChoices are the expressions available for arguments in a context:
// ints, strings and bools, each a small domain.
type argChoices struct {
	ints, strs, bools []string
}

func (g *gen) arg(c argChoices, t Type) string {
	switch t {
	case String:
		return c.strs[g.r.Intn(len(c.strs))]
	case Bool:
		return c.bools[g.r.Intn(len(c.bools))]
	}
	return c.ints[g.r.Intn(len(c.ints))]
}

// callText is a direct call of callee from caller with arguments drawn
// from choices given as {int, int, string, bool} defaults.
func (g *gen) callText(caller, callee *Func, defaults []string) string {
	c := argChoices{ints: []string{defaults[0], defaults[1]}, strs: []string{defaults[2]}, bools: []string{defaults[3]}}
	return g.call(caller, callee, c)
}

func (g *gen) call(caller, callee *Func, c argChoices) string {
	var args []string
	for _, t := range callee.Params {
		args = append(args, g.arg(c, t))
	}
	caller.callees[callee] = true
	caller.callCount[callee]++
	return fmt.Sprintf("%s(%s)", ref(caller, callee), strings.Join(args, ", "))
}

// mid builds function m<i>: parameters, a loop, calls of several kinds;
// exported, outside main, if main must call it (last) or three times in
// four.
func (g *gen) mid(i int, last bool) *Func {
	params := []Type{Int}
	if g.r.Intn(2) == 0 {
		params = append(params, g.pickType())
	}
	k := g.drawPkg()
	exp := last || g.drawExport(k, 4)
	f := g.newPlain(k, fmt.Sprintf("m%d", i), exp, 2+i, params, Int)
	f.params = sigParams(params)
	f.sig = fmt.Sprintf("func %s(%s)", f.local, declParams(f.params, params))
	c := argChoices{ints: []string{"a % 3", "(a + 1) % 3", "0", "1", "2", "acc % 3"}, strs: []string{`"a"`, `"b"`, "strs[a%3]"}, bools: []string{"true", "false", "a%2 == 0"}}
	for k, t := range params[1:] {
		n := f.params[k+1]
		switch t {
		case Int:
			c.ints = append(c.ints, n+" % 3")
		case String:
			c.strs = append(c.strs, n)
		case Bool:
			c.bools = append(c.bools, n)
		}
	}
	inLoop := c
	inLoop.ints = append(append([]string{}, c.ints...), "i % 3", "(i + a) % 3", "i")
	inLoop.bools = append(append([]string{}, c.bools...), "i%2 == 0")
	f.body = append(f.body, raw("acc := 0"))
	if g.feat.Panics && g.r.Intn(3) == 0 {
		f.recov = true
	}
	var callees []*Func
	callees = append(callees, g.leaves...)
	callees = append(callees, g.mids...)
	if g.fib != nil {
		callees = append(callees, g.fib)
	}
	if g.serve != nil || g.sqArea != nil {
		callees = append(callees, g.leaves...) // weight the direct calls
	}
	callees = visible(f, callees)
	n := 2 + g.r.Intn(3)
	for k := 0; k < n; k++ {
		loop := g.r.Intn(3) == 0
		ch := c
		if loop {
			ch = inLoop
		}
		before := maps.Clone(f.callCount)
		if g.feat.Regions && g.r.Intn(2) == 0 {
			f.body = append(f.body, g.regions(f, callees, c, inLoop)...)
			for c, n := range f.callCount {
				if n > before[c] {
					f.callCount[c]++ // a loop may call it twice
				}
			}
			continue
		}
		var s stmt
		if g.feat.Blocking && g.r.Intn(4) == 0 {
			s = g.blocking(f, callees, ch, nil)
		} else if s = g.callStmt(f, callees, ch); s == nil {
			continue
		}
		if loop {
			bound := []string{"2", "3", "a%3 + 1"}[g.r.Intn(3)]
			f.body = append(f.body, &block{head: "for i := 0; i < " + bound + "; i++ {", body: []stmt{s}})
			for c, n := range f.callCount {
				if n > before[c] {
					f.callCount[c]++ // the loop may call it twice
				}
			}
		} else {
			f.body = append(f.body, s)
		}
	}
	if g.feat.Defers && g.r.Intn(3) == 0 {
		// Only leaves that never panic: a panic in a deferred call while
		// another unwinds would replace it.
		var safe []*Func
		for _, l := range visible(f, g.leaves) {
			if !l.panics {
				safe = append(safe, l)
			}
		}
		if len(safe) > 0 {
			l := safe[g.r.Intn(len(safe))]
			f.body = append(f.body, raw("defer "+g.call(f, l, c)))
		}
	}
	if g.feat.Blocking && g.r.Intn(4) == 0 {
		f.body = append(f.body, g.receiveReturn(f)...)
	} else {
		f.body = append(f.body, ret(fmt.Sprintf("(acc + %d) %% 7", g.r.Intn(3))))
	}
	g.allocs(f, 1)
	return f
}

// callStmt is one call of some kind from f, adding to acc.
func (g *gen) callStmt(f *Func, callees []*Func, c argChoices) stmt {
	kinds := []string{"direct", "direct"}
	if g.feat.Interfaces && f.seesPkg(g.shapesPkg) {
		kinds = append(kinds, "iface")
	}
	if g.feat.FuncValues && f.seesPkg(g.unaryPkg) {
		kinds = append(kinds, "funcvalue")
	}
	if g.feat.MethodValues && f.seesPkg(g.shapesPkg) {
		kinds = append(kinds, "methodvalue")
	}
	if g.feat.Closures {
		kinds = append(kinds, "closure")
	}
	if g.feat.Generics && f.seesPkg(g.genericPkg) {
		kinds = append(kinds, "generic", "box")
	}
	if g.feat.HandlerFunc && f.seesPkg(g.unaryPkg) {
		kinds = append(kinds, "handler")
	}
	intArg := func() string { return c.ints[g.r.Intn(len(c.ints))] }
	switch kinds[g.r.Intn(len(kinds))] {
	case "iface":
		for _, m := range g.ifaceMethods {
			f.callees[m] = true
			f.callCount[m]++
		}
		k := g.shapesPkg
		return raw(fmt.Sprintf("acc += %s[%s].%s(%s)", qual(f, k, k.ident("shapes", true)), []string{"a % 2", "1", "0"}[g.r.Intn(3)], k.ident("area", true), intArg()))
	case "funcvalue":
		for _, u := range g.unary {
			f.callees[u] = true
			f.callCount[u]++
		}
		return raw(fmt.Sprintf("acc += %s[%s](%s)", qual(f, g.unaryPkg, g.unaryPkg.ident("ops", true)), []string{"a % 2", "1", "0"}[g.r.Intn(3)], intArg()))
	case "methodvalue":
		f.callees[g.sqArea] = true
		f.callCount[g.sqArea]++
		g.values++
		k := g.shapesPkg
		return raw(fmt.Sprintf("mv%d := (&%s{%s: %d}).%s\nacc += mv%d(%s)", g.values, qual(f, k, k.ident("sq", true)), k.ident("n", true), g.r.Intn(3), k.ident("area", true), g.values, intArg()))
	case "closure":
		return g.closure(f, callees, c)
	case "generic":
		f.callees[g.pick] = true
		f.callCount[g.pick]++
		pick := ref(f, g.pick)
		if g.r.Intn(2) == 0 {
			return raw(fmt.Sprintf("acc += %s(%s, %s, %s)", pick, intArg(), intArg(), g.arg(c, Bool)))
		}
		return raw(fmt.Sprintf("acc += len(%s(%s, %s, %s))", pick, g.arg(c, String), g.arg(c, String), g.arg(c, Bool)))
	case "box":
		f.callees[g.put] = true
		f.callCount[g.put]++
		k := g.genericPkg
		box, put := qual(f, k, k.ident("box", true)), k.ident("put", true)
		if g.r.Intn(2) == 0 {
			return raw(fmt.Sprintf("acc += (&%s[int]{}).%s(%s, %s)", box, put, intArg(), intArg()))
		}
		return raw(fmt.Sprintf("acc += (&%s[string]{}).%s(%s, %s)", box, put, g.arg(c, String), intArg()))
	case "handler":
		u := g.unary[g.r.Intn(len(g.unary))]
		f.callees[g.serve] = true
		f.callCount[g.serve]++
		h, serve := g.handlerIdents()
		return raw(fmt.Sprintf("acc += %s(%s).%s(%s)", qual(f, g.unaryPkg, h), ref(f, u), serve, intArg()))
	}
	callee := callees[g.r.Intn(len(callees))]
	if callee == f {
		return nil
	}
	return raw("acc += " + g.call(f, callee, c))
}

// closure defines a function literal in f and calls it.
func (g *gen) closure(f *Func, callees []*Func, c argChoices) stmt {
	n := f.closures() + 1
	f.literals++
	cl := g.newFunc(f.pkg, fmt.Sprintf("%s.func%d", f.short(), n), f.level, []Type{Int}, Int)
	cl.closure = n
	cl.params = []string{"x"}
	leaves := visible(cl, g.leaves)
	l := leaves[g.r.Intn(len(leaves))]
	inner := argChoices{ints: []string{"x % 3", "a % 3", "1"}, strs: []string{`"c"`}, bools: []string{"x > 1"}}
	cl.body = []stmt{ret(fmt.Sprintf("(%s + x) %% 5", g.call(cl, l, inner)))}
	if g.feat.Regions && g.r.Intn(3) == 0 {
		// Regions in the literal's body, over the enclosing function's
		// a and acc, with no literal inside (its name would be
		// numbered in the literal's).
		closures := g.feat.Closures
		g.feat.Closures = false
		inLoop := inner
		inLoop.ints = append(append([]string{}, inner.ints...), "i % 3")
		b := &regionBuilder{g: g, f: cl, callees: leaves, c: inner, inLoop: inLoop}
		cl.body = append(b.shape(0, false), cl.body...)
		g.feat.Closures = closures
	}
	f.callees[cl] = true
	f.callCount[cl]++
	v := fmt.Sprintf("cl%d", n)
	return &closureDef{fn: cl, text: fmt.Sprintf("acc += %s(%s)", v, c.ints[g.r.Intn(len(c.ints))]), varName: v}
}

// closures counts the function literals of f so far, for the names of
// the variables that hold them (their function names are given by
// propagate, once it is known whether a deferred closure that recovers
// comes first). It counts them as they are made: a literal may be in a
// region whose body is not f's yet.
func (f *Func) closures() int {
	n := f.literals
	if f.recov {
		n++
	}
	return n
}

// spawner builds a function that starts workers and waits for them.
func (g *gen) spawner() {
	k := g.drawPkg() // the workers' too: they name its wg and total
	nw := 1 + g.r.Intn(2)
	var workers []*Func
	for i := 1; i <= nw; i++ {
		params := []Type{Int}
		if g.r.Intn(2) == 0 {
			params = append(params, g.pickType())
		}
		w := g.newPlain(k, fmt.Sprintf("work%d", i), false, 3+len(g.mids), params, "")
		w.params = sigParams(params)
		w.sig = fmt.Sprintf("func %s(%s)", w.local, declParams(w.params, params))
		w.Worker = true
		w.body = append(w.body, raw("defer wg.Done()"))
		w.recovAt = 1 // after wg.Done is deferred, so that it runs before
		if g.feat.Panics {
			w.recov = true // if any of its callees may panic; trimmed in propagate otherwise
		}
		c := argChoices{ints: []string{"a % 3", "(a + 1) % 3", "1"}, strs: []string{`"a"`, "strs[a%3]"}, bools: []string{"a%2 == 0"}}
		w.body = append(w.body, raw("acc := 0"))
		callees := visible(w, append(append([]*Func{}, g.leaves...), g.mids...))
		for k := 0; k < 1+g.r.Intn(2); k++ {
			if s := g.callStmt(w, callees, c); s != nil {
				w.body = append(w.body, s)
			}
		}
		w.body = append(w.body, raw("total.Add(int64(acc))"))
		workers = append(workers, w)
	}
	k.decls = append(k.decls, "var wg sync.WaitGroup", "var total atomic.Int64")
	s := g.newPlain(k, "spawn", true, 3+len(g.mids), []Type{Int}, Int)
	s.params = []string{"a"}
	s.sig = "func " + s.local + "(a int)"
	g.spawn = s
	var loop []stmt
	for _, w := range workers {
		s.spawns[w] = true
		ch := argChoices{ints: []string{"i", "a % 3", "(i + a) % 3"}, strs: []string{`"b"`, "strs[i%3]"}, bools: []string{"i%2 == 0"}}
		var args []string
		for _, t := range w.Params {
			args = append(args, g.arg(ch, t))
		}
		loop = append(loop, raw("wg.Add(1)"), &goStmt{fn: w, args: args})
	}
	s.body = append(s.body, &block{head: fmt.Sprintf("for i := 0; i < a%%3+%d; i++ {", 1+g.r.Intn(2)), body: loop},
		g.wait(s), ret("int(total.Load() % 5)"))
	g.workers = workers
	g.mids = append(g.mids, s)
}

// wait is the spawner's wg.Wait(), with blocking operations one of them.
func (g *gen) wait(s *Func) stmt {
	if g.feat.Blocking {
		return g.op(s, "wait", "wg", "wg.Wait()")
	}
	return raw("wg.Wait()")
}

// mainFunc calls the mids, the recursion and the spawner in loops.
func (g *gen) mainFunc() {
	m := g.newFunc(g.mainPkg(), "main", 10, nil, "")
	m.sig = "func main()"
	m.body = append(m.body, raw("acc := 0"))
	c := argChoices{ints: []string{"i", "i % 3", "(i + 1) % 3", "2"}, strs: []string{"strs[i%3]", `"a"`}, bools: []string{"i%2 == 0", "true"}}
	targets := append([]*Func{}, g.mids...)
	if g.fib != nil {
		targets = append(targets, g.fib)
	}
	var loop []stmt
	for _, t := range targets {
		if g.r.Intn(4) == 0 && t != g.mids[len(g.mids)-1] || !m.sees(t) {
			continue // the last mid (or the spawner) is always called
		}
		if t == g.fib {
			loop = append(loop, raw(fmt.Sprintf("acc += %s(%s)", ref(m, t), []string{"i", "i + 1", "3"}[g.r.Intn(3)])))
			m.callees[t] = true
			m.callCount[t] += 2
			continue
		}
		loop = append(loop, raw("acc += "+g.call(m, t, c)))
	}
	for c := range m.callCount {
		m.callCount[c] = 2 // in a loop
	}
	m.body = append(m.body, &block{head: fmt.Sprintf("for i := 0; i < %d; i++ {", 3+g.r.Intn(2)), body: loop},
		// println, not fmt.Println: boxing acc into an interface is an
		// allocation on the heap pmm does not record, and says so, which
		// would make every question over all allocations inexact.
		raw(`println("result", acc)`))
}

// propagate works out which functions may panic, which recover, and
// which may run on a spawned goroutine, and names the closures.
func (g *gen) propagate() {
	fixpoint := func() {
		for changed := true; changed; {
			changed = false
			for _, f := range g.funcs {
				if f.panics {
					continue
				}
				for c := range f.callees {
					if c != f && c.panics && !c.recov {
						f.panics, changed = true, true
						break
					}
				}
			}
		}
	}
	fixpoint()
	// The roots of goroutines and the functions main calls never let a
	// panic out: they recover; so main never panics.
	main := g.func_("main.main")
	for _, f := range g.funcs {
		if f.Worker || main.callees[f] {
			f.recov = f.recov || f.panics
		}
		if !f.panics {
			f.recov = false
		}
	}
	fixpoint()
	// Mark what runs on spawned goroutines.
	var mark func(*Func)
	mark = func(f *Func) {
		if f.InGo {
			return
		}
		f.InGo = true
		for c := range f.callees {
			mark(c)
		}
	}
	for _, w := range g.workers {
		mark(w)
	}
	// Name the closures in source order, now that it is known which
	// functions have a deferred closure that recovers (the first).
	for _, f := range append([]*Func{}, g.funcs...) {
		if f.closure > 0 {
			continue
		}
		n := 0
		if f.recov {
			n = 1
			rc := g.newFunc(f.pkg, f.short()+".func1", f.level, nil, "")
			rc.closure = 1
			rc.InGo = f.InGo
			f.recovFn = rc
			f.callees[rc] = true
		}
		var walk func([]stmt)
		walk = func(ss []stmt) {
			for _, s := range ss {
				switch s := s.(type) {
				case *closureDef:
					n++
					s.fn.closure = n
					s.fn.Name = fmt.Sprintf("%s.func%d", f.Name, n)
					s.fn.QName = s.fn.Name
				case *block:
					walk(s.body)
				case *region:
					walk(s.body)
				case *rangeStmt:
					walk(s.body)
				case *selectStmt:
					for _, c := range s.cases {
						walk(c.body)
					}
				}
			}
		}
		walk(f.body)
	}
}

func (g *gen) func_(name string) *Func { return findFunc(g.funcs, name) }
