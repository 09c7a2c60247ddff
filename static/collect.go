package static

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"

	"pmm.dev/pmm/internal/funcname"
)

// posKey identifies a source position independently of the FileSet, so
// that the test and non-test variants of a package agree on it.
type posKey struct {
	file   string
	offset int
}

// Span is a source range, with the file relative to the module root:
// where a site is, in static.db and in the stages after.
type Span struct {
	File                       string
	Line, Col, EndLine, EndCol int
}

// Contains reports whether b lies within a.
func (a Span) Contains(b Span) bool {
	return a.File == b.File &&
		(a.Line < b.Line || a.Line == b.Line && a.Col <= b.Col) &&
		(b.EndLine < a.EndLine || b.EndLine == a.EndLine && b.EndCol <= a.EndCol)
}

// Less orders spans by file, then start, and an outer span before the
// spans it contains that start with it (a call before the calls in its
// callee expression, such as f(a)(b)).
func (a Span) Less(b Span) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	if a.Col != b.Col {
		return a.Col < b.Col
	}
	if a.EndLine != b.EndLine {
		return a.EndLine > b.EndLine
	}
	return a.EndCol > b.EndCol
}

// function is a row of the functions table: a definition in the loaded
// packages, or a function outside them that their code calls.
type function struct {
	id       int
	name     string // as runtime.FuncForPC names it
	pkg      string // import path
	recv     string // receiver base type, "*T" or "T"; empty for functions
	base     string // the last element of the name: "F", "M", "func1", "1"
	kind     string // func, method, closure, init
	generic  bool
	exported bool
	inModule bool // the package is in the user's module
	defined  bool // the body was loaded, so the span is known
	where    Span // from "func" to the closing brace
	parent   *function
	closures int // direct function literals numbered so far
	used     bool
	// reached: some function of the program's SSA (ssautil.AllFunctions,
	// the linker-style reachability from package members and the method
	// sets of the types the program uses) has this definition's code.
	// A definition not reached never runs: a method of a type the
	// program never uses, and the closures in it.
	reached bool
	// hidden: code whose calls the calls table does not hold may call
	// it (static.db's functions.hidden_callers): see markHidden.
	hidden bool
}

// call is a row of the calls table.
type call struct {
	id     int
	key    posKey // the position of "(", which SSA reports for the call
	caller *function
	where  Span
	kind   string // static, interface, funcvalue, implicit
	via    string // call, go, defer
	loops  int    // the loops of the caller's body that run it each iteration
	lparen lineCol
	// allocatesNothing: a call of an iterator of the standard library
	// (inlinedIterators) the compiler inlines there, nothing of which
	// escapes (calls.allocates 0; NULL, unknown, for the others).
	allocatesNothing bool
	callee           *function
	method           string      // the abstract method of an interface call
	abstract         *types.Func // and its object
	calleeFn         *types.Func // static callee, resolved once every package is walked
	calleeLit        posKey      // static callee when the called expression is a function literal
	targets          map[*function]bool
	callbacks        map[*function]string // in-module functions the callee may call back, and how they were found
	lost             map[*funcSet]bool    // and those of the types of the values whose trace was lost
}

// region is a row of the regions table: a labeled statement whose
// executions (and, for a loop, iterations) may be events.
type region struct {
	owner *function
	label string
	kind  string // for, range, switch, typeswitch, select, block; marked for a //pmm:region comment's
	loop  bool
	where Span // from the label to the end of the statement
}

// blockingRow is a row of the blocking table.
type blockingRow struct {
	owner *function
	op    BlockingOp
	where Span
}

// collector gathers the sites of the loaded packages.
type collector struct {
	fset       *token.FileSet
	root       string // module root directory
	modulePath string
	defs       map[posKey]*function // definitions by the position of their name or "func"
	external   map[string]*function // functions without a loaded body, by name
	inits      map[string]*function // package initializers by import path
	ranges     map[posKey]*function // range statements by the definition they are in
	calls      map[posKey]*call
	regions    map[posKey]*region
	blocking   []blockingRow
	file       *ast.File // the file being collected, whose comments mark regions
	functions  []*function
	callList   []*call
	allocs     map[posKey]*allocation // allocation sites by position
	allocList  []*allocation
	texts      []textMethod          // the rows of text_methods
	vars       map[lineCol]*localVar // the local variables, for "moved to heap"
	reassigned map[*types.Var]bool   // MarkReassigned's, over the walked code
	exprs      map[lineCol]*exprAt   // expressions where the compiler names them, when its escapes are read
	bodies     []*closureBody        // the bodies compiled as closures, when its escapes are read
	// escapesAt are the positions an escape's chain of inlined calls
	// passes (the -json output's).
	escapesAt map[lineCol]bool
	// uncompiled are the generic functions go build compiled no code
	// of (uncompiledGeneric): the test pass decides their sites where
	// the tests instantiate them.
	uncompiled []*function
	// inlinedCopies are the inlined copies of each site that escape: the
	// outermost call of each, by the chain of calls that inlined it.
	inlinedCopies map[*allocation]map[string]lineCol
	boxed         map[ast.Expr]bool             // expressions a call's argument or an assignment converts to an interface, then
	methods       map[string][]*types.Signature // the module's methods by name (mayRunInModule)
	partial       bool                          // a package of the module was loaded without its syntax
	alloc         *allocFinder                  // of the package being walked
}

func newCollector(fset *token.FileSet, root, modulePath string) *collector {
	return &collector{
		fset:       fset,
		root:       root,
		modulePath: modulePath,
		defs:       map[posKey]*function{},
		external:   map[string]*function{},
		inits:      map[string]*function{},
		ranges:     map[posKey]*function{},
		calls:      map[posKey]*call{},
		regions:    map[posKey]*region{},
		allocs:     map[posKey]*allocation{},
		vars:       map[lineCol]*localVar{},
		reassigned: map[*types.Var]bool{},
	}
}

func (c *collector) key(pos token.Pos) posKey {
	p := c.fset.Position(pos)
	return posKey{p.Filename, p.Offset}
}

func (c *collector) relative(file string) string {
	if rel, err := filepath.Rel(c.root, file); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(file)
}

func (c *collector) span(from, to token.Pos) Span {
	p, q := c.fset.Position(from), c.fset.Position(to)
	return Span{c.relative(p.Filename), p.Line, p.Column, q.Line, q.Column}
}

func (c *collector) inModule(path string) bool {
	// The external test package of the module's root package is
	// MODULE_test, beside it: in the module too.
	path = strings.TrimSuffix(path, "_test")
	return path == c.modulePath || strings.HasPrefix(path, c.modulePath+"/")
}

// addPackage records the definitions and call sites of one package.
func (c *collector) addPackage(pkg *packages.Package) {
	info := pkg.TypesInfo
	c.alloc = &allocFinder{c: c, info: info, sizes: pkg.TypesSizes, inner: map[ast.Node]bool{}}
	// The package initializer owns calls and function literals of
	// package-level variables, named pkg.init.funcN in initialization order.
	init := &function{
		name: symbolPrefix(pkg.Types) + ".init", pkg: pkg.PkgPath, base: "init",
		kind: "init", inModule: c.inModule(pkg.PkgPath), defined: true,
	}
	c.inits[pkg.PkgPath] = init
	initFuncs := 0
	// Functions that assembly, C (cgo's //export) or another package
	// (//go:linkname) may call, which the calls table does not see.
	asm := slices.ContainsFunc(pkg.OtherFiles, func(f string) bool { return strings.HasSuffix(f, ".s") })
	linknamed := map[string]bool{}
	for _, file := range pkg.Syntax {
		for _, g := range file.Comments {
			for _, cm := range g.List {
				if f := strings.Fields(cm.Text); len(f) >= 2 && f[0] == "//go:linkname" {
					linknamed[f[1]] = true
				}
			}
		}
	}
	for _, file := range pkg.Syntax {
		c.file = file
		for _, decl := range file.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			obj, _ := info.Defs[fd.Name].(*types.Func)
			if obj != nil && fd.Recv != nil && init.inModule {
				c.addMethod(obj) // with or without a Go body
			}
			if obj == nil || fd.Body == nil {
				continue
			}
			def := c.describe(obj)
			def.defined = true
			def.where = c.span(fd.Pos(), fd.End())
			def.hidden = fd.Recv != nil || asm || directive(fd.Doc, "//export ", fd.Name.Name) || linknamed[fd.Name.Name]
			if fd.Recv == nil && fd.Name.Name == "init" {
				// Each init function is pkg.init.N, numbered across files.
				def.name = init.name + "." + strconv.Itoa(initFuncs)
				def.base = strconv.Itoa(initFuncs)
				initFuncs++
			}
			c.addDefinition(c.key(fd.Name.Pos()), def)
			if fd.Recv != nil {
				c.walk(info, fd.Recv, def, "")
			}
			c.walk(info, fd.Type, def, "")
			if c.exprs != nil {
				c.alloc.converts(fd) // its returns (the walk sees its body only)
			}
			c.walk(info, fd.Body, def, "")
			c.addMarkedRegions(fd.Body, def)
			c.addBlocking(info, fd.Body, def)
		}
	}
	for _, in := range info.InitOrder {
		c.walk(info, in.Rhs, init, "")
	}
	// A package of the module the load has no syntax of (outside the
	// patterns) may define methods mayRunInModule does not see.
	for path, imp := range pkg.Imports {
		if c.inModule(path) && len(imp.Syntax) == 0 {
			c.partial = true
		}
	}
	if init.used {
		c.functions = append(c.functions, init)
	}
}

// directive reports whether the comments doc hold the directive
// prefix (such as "//export ") naming name.
func directive(doc *ast.CommentGroup, prefix, name string) bool {
	if doc == nil {
		return false
	}
	for _, cm := range doc.List {
		if rest, ok := strings.CutPrefix(cm.Text, prefix); ok && strings.TrimSpace(rest) == name {
			return true
		}
	}
	return false
}

func (c *collector) addDefinition(k posKey, def *function) {
	c.defs[k] = def
	c.functions = append(c.functions, def)
}

// describe makes a function row for obj, without position.
func (c *collector) describe(obj *types.Func) *function {
	obj = obj.Origin()
	f := &function{
		name:     runtimeName(obj),
		base:     obj.Name(),
		kind:     "func",
		exported: obj.Exported(),
		generic:  obj.Signature().TypeParams().Len() > 0,
	}
	if obj.Pkg() != nil {
		f.pkg = obj.Pkg().Path()
		f.inModule = c.inModule(f.pkg)
	}
	if recv := obj.Signature().Recv(); recv != nil {
		name, pointer := receiverName(recv.Type())
		f.kind, f.recv = "method", name
		if pointer {
			f.recv = "*" + name
		}
		f.generic = strings.HasSuffix(name, funcname.TypeArgs)
	}
	return f
}

// function returns the row of obj: its definition if its body was
// loaded, otherwise an entry for the external function.
func (c *collector) function(obj *types.Func) *function {
	obj = obj.Origin()
	if def := c.defs[c.key(obj.Pos())]; def != nil && obj.Pos().IsValid() {
		return def
	}
	name := runtimeName(obj)
	f := c.external[name]
	if f == nil {
		f = c.describe(obj)
		c.external[name] = f
		c.functions = append(c.functions, f)
	}
	return f
}

// walk records the function literals and calls in n, which is inside
// owner. via is "go" or "defer" when n is the call of such a statement.
func (c *collector) walk(info *types.Info, n ast.Node, owner *function, via string) {
	// path holds the nodes being walked, outermost first, so that a call
	// knows the loops around it (loopDepth).
	var path []ast.Node
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			path = path[:len(path)-1]
			return true
		}
		c.alloc.visit(n, owner)
		markReassigned(info, n, c.reassigned)
		switch n := n.(type) {
		case *ast.Ident:
			c.localVar(info, n, owner)
		case *ast.CaseClause:
			c.clauseVar(info, n, owner)
		case *ast.FuncLit:
			lit := c.closure(n, owner)
			c.walk(info, n.Type, lit, "")
			c.walk(info, n.Body, lit, "")
			c.addMarkedRegions(n.Body, lit)
			c.addBlocking(info, n.Body, lit)
			return false
		case *ast.GoStmt:
			c.alloc.visit(n.Call, owner) // the slice of a variadic call
			c.addCall(info, n.Call, owner, "go", loopDepth(path, n))
			c.walkCallChildren(info, n.Call, owner)
			return false
		case *ast.DeferStmt:
			c.alloc.visit(n.Call, owner)
			c.addCall(info, n.Call, owner, "defer", loopDepth(path, n))
			c.walkCallChildren(info, n.Call, owner)
			return false
		case *ast.RangeStmt:
			c.ranges[c.key(n.Pos())] = owner
		case *ast.LabeledStmt:
			c.addRegion(n, owner)
		case *ast.CallExpr:
			c.addCall(info, n, owner, "call", loopDepth(path, n))
		}
		path = append(path, n)
		return true
	})
}

// loopDepth counts the loops of path (the nodes around n in one function
// body) that run n once per iteration: n is in the body of a for or range
// statement, or in the condition or post statement of a for. A function
// literal starts a path of its own: its loops are its own.
func loopDepth(path []ast.Node, n ast.Node) int {
	in := func(part ast.Node) bool {
		return part != nil && part.Pos() <= n.Pos() && n.End() <= part.End()
	}
	depth := 0
	for _, p := range path {
		switch l := p.(type) {
		case *ast.ForStmt:
			if in(l.Body) || in(l.Cond) || in(l.Post) {
				depth++
			}
		case *ast.RangeStmt:
			if in(l.Body) {
				depth++
			}
		}
	}
	return depth
}

// addMethod records a method of the module for mayRunInModule.
func (c *collector) addMethod(m *types.Func) {
	if c.methods == nil {
		c.methods = map[string][]*types.Signature{}
	}
	c.methods[m.Name()] = append(c.methods[m.Name()], m.Type().(*types.Signature))
}

// addRegion records a labeled statement of a kind whose executions are
// regions (seed 004): a loop, a switch, a select or a block.
func (c *collector) addRegion(l *ast.LabeledStmt, owner *function) {
	var kind string
	switch l.Stmt.(type) {
	case *ast.ForStmt:
		kind = "for"
	case *ast.RangeStmt:
		kind = "range"
	case *ast.SwitchStmt:
		kind = "switch"
	case *ast.TypeSwitchStmt:
		kind = "typeswitch"
	case *ast.SelectStmt:
		kind = "select"
	case *ast.BlockStmt:
		kind = "block"
	default:
		return
	}
	c.regions[c.key(l.Pos())] = &region{owner: owner, label: l.Label.Name, kind: kind,
		loop: kind == "for" || kind == "range", where: c.span(l.Pos(), l.End())}
}

// addMarkedRegions records the regions that //pmm:region comments mark
// in body, of owner (MarkedRegions).
func (c *collector) addMarkedRegions(body *ast.BlockStmt, owner *function) {
	if c.file == nil {
		return
	}
	for _, m := range MarkedRegions(c.file, body) {
		first, last := m.Stmts[0], m.Stmts[len(m.Stmts)-1]
		loop := false
		if len(m.Stmts) == 1 {
			switch first.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				loop = true
			}
		}
		c.regions[c.key(m.Comment)] = &region{owner: owner, label: m.Name, kind: "marked", loop: loop, where: c.span(first.Pos(), last.End())}
	}
}

// addBlocking records the blocking operations of body, of owner
// (FindBlocking); those of go and defer statements do not block where
// they are written.
func (c *collector) addBlocking(info *types.Info, body *ast.BlockStmt, owner *function) {
	for _, op := range FindBlocking(c.fset, info, body) {
		if !op.Deferred {
			c.blocking = append(c.blocking, blockingRow{owner: owner, op: op, where: c.span(op.Node.Pos(), op.Node.End())})
		}
	}
}

// localVar records id if it declares a local variable of owner.
func (c *collector) localVar(info *types.Info, id *ast.Ident, owner *function) {
	v, ok := info.Defs[id].(*types.Var)
	if !ok || v.IsField() || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return
	}
	p := c.fset.Position(id.Pos())
	c.vars[lineCol{p.Filename, p.Line, p.Column}] = &localVar{
		v: v, owner: owner, key: c.key(id.Pos()), where: c.span(id.Pos(), id.End()), sizes: c.alloc.sizes,
	}
}

// clauseVar notes the variable a type switch's guard (switch x :=
// v.(type)) declares in clause cl, where the compiler names it: at the
// clause's first type, or at default.
func (c *collector) clauseVar(info *types.Info, cl *ast.CaseClause, owner *function) {
	v, ok := info.Implicits[cl].(*types.Var)
	if !ok {
		return
	}
	at, end := ClausePos(cl)
	p := c.fset.Position(at)
	c.vars[lineCol{p.Filename, p.Line, p.Column}] = &localVar{
		v: v, owner: owner, key: c.key(at), where: c.span(at, end), sizes: c.alloc.sizes,
	}
}

// ClausePos is where the compiler names the variable of a type switch's
// clause cl, and the end of that: its first type, or its default.
func ClausePos(cl *ast.CaseClause) (token.Pos, token.Pos) {
	if len(cl.List) > 0 {
		return cl.List[0].Pos(), cl.List[0].End()
	}
	return cl.Case, cl.Case + token.Pos(len("default"))
}

func (c *collector) walkCallChildren(info *types.Info, call *ast.CallExpr, owner *function) {
	c.walk(info, call.Fun, owner, "")
	for _, arg := range call.Args {
		c.walk(info, arg, owner, "")
	}
}

// closure records a function literal in owner. The runtime names the
// literals of a declared function F.func1, F.func2, ... in source order
// and the literals nested in F.func1 as F.func1.1, F.func1.2, ...
func (c *collector) closure(lit *ast.FuncLit, owner *function) *function {
	owner.closures++
	owner.used = true
	base := strconv.Itoa(owner.closures)
	if owner.kind != "closure" {
		base = "func" + base
	}
	def := &function{
		name: owner.name + "." + base, pkg: owner.pkg, base: base, kind: "closure",
		generic: owner.generic, inModule: owner.inModule, defined: true,
		where: c.span(lit.Pos(), lit.End()), parent: owner,
	}
	c.addDefinition(c.key(lit.Type.Func), def)
	return def
}

// addCall records a call site, unless it is a conversion or a call of a
// built-in function.
func (c *collector) addCall(info *types.Info, e *ast.CallExpr, owner *function, via string, loops int) {
	fun := ast.Unparen(e.Fun)
	if tv, ok := info.Types[fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
		return
	}
	owner.used = true
	k := c.key(e.Lparen)
	if c.calls[k] != nil {
		return
	}
	lp := c.fset.Position(e.Lparen)
	site := &call{key: k, caller: owner, where: c.span(e.Pos(), e.End()), via: via, loops: loops, targets: map[*function]bool{},
		lparen: lineCol{filepath.Clean(lp.Filename), lp.Line, lp.Column}}
	if lit, ok := fun.(*ast.FuncLit); ok {
		site.kind, site.calleeLit = "static", c.key(lit.Type.Func)
	} else if fn := typeutil.StaticCallee(info, e); fn != nil {
		site.kind, site.calleeFn = "static", fn
	} else if fn, ok := typeutil.Callee(info, e).(*types.Func); ok {
		site.kind, site.method, site.abstract = "interface", runtimeName(fn), fn
	} else {
		site.kind = "funcvalue"
	}
	c.calls[k] = site
	c.callList = append(c.callList, site)
}

// resolveStatic sets the callee of static calls, now that every
// definition is known.
func (c *collector) resolveStatic() {
	for _, site := range c.callList {
		switch {
		case site.calleeFn != nil:
			site.callee = c.function(site.calleeFn)
		case site.kind == "static":
			site.callee = c.defs[site.calleeLit]
		}
		if site.callee != nil {
			site.targets[site.callee] = true
		}
	}
}
