package static

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"

	"golang.org/x/tools/go/types/typeutil"
)

// The kinds of allocation sites (the allocations table's kind column).
const (
	allocNew       = "new"        // new(T)
	allocComposite = "composite"  // &T{...}, or a slice literal
	allocMakeSlice = "make-slice" // make([]T, len[, cap])
	allocMakeMap   = "make-map"   // make(map[K]V[, hint])
	// allocMapLiteral is a map literal: the runtime allocates its
	// header where it escapes, and its groups as make and assignments do.
	allocMapLiteral = "map-literal"
	allocMakeChan   = "make-chan" // make(chan T[, n])
	allocAppend     = "append"    // append(s, ...): allocates only when it grows
	allocConcat     = "concat"    // a + b of non-constant strings
	// allocConcatAssign is s += t of strings: the compiler's diagnostics
	// say nothing of its escape, so whether it allocates on the heap is
	// not known (sites/ says so where a question could count it).
	allocConcatAssign = "concat-assign"
	// allocMapAssign is an assignment to a map's element (m[k] = v,
	// m[k] += v, m[k]++): the runtime allocates as the map grows, on the
	// heap, and the compiler says nothing of it.
	allocMapAssign = "map-assign"
	// allocInterface is a value converted to an interface (sink = x,
	// fmt.Println(x)) that escape analysis puts on the heap, and
	// allocMethodValue a method value (f := t.M) there: the compiler's
	// diagnostics name them at an expression no other site is at
	// (escape.go, unknownEscapes). Not recorded; sites/ says so.
	allocInterface   = "interface"
	allocMethodValue = "method-value"
	allocConversion  = "conversion" // string(bytes), []byte(s), []rune(s), string(runes)
	allocClosure     = "closure"    // a function literal that captures variables
	allocVariable    = "variable"   // a local variable escape analysis moves to the heap
	allocVariadic    = "variadic"   // the slice of a variadic call's extra arguments: f(a, b) for f(...T)
	// allocRangeFunc is a range over a function (for x := range seq):
	// the compiler names at its for the closure of the loop's body and
	// the loop's state it moves to the heap, and, where it inlines the
	// iterator, the loop's variables it moves there. Not recorded;
	// sites/ says so.
	allocRangeFunc = "range-func"
)

// allocation is a row of the allocations table: a place in the module's
// source where the Go compiler may allocate, at the position the
// compiler's diagnostics name it (the "(" of a call, the "&" of &T{...},
// the "{" of a literal, the operator of a concatenation, "func" of a
// literal, the name of a variable).
type allocation struct {
	id       int
	key      posKey
	owner    *function
	where    Span
	kind     string
	typ      string // the Go type allocated
	elemType string // for slices: the element type
	elements int64  // for slices: the capacity, when constant; -1 otherwise
	bytes    int64  // the bytes requested, when constant; -1 otherwise
	// heap: the compiled body of owner allocates it on the heap (1), not
	// on the heap (0), or escape analysis was not run (-1).
	heap int
	// heapInlined: some copy of it inlined into another function
	// allocates on the heap (1), none does (0), not analysed (-1).
	heapInlined int
	// inlinable: the compiler may inline owner into its callers (1),
	// does not (0), not analysed (-1).
	inlinable int
}

// closureBody is the body of a function literal or of a range over a
// function, which Go compiles as a closure. The compiler may inline
// such a closure at every call (a literal called where it is written, a
// loop's body whose iterator is inlined) and then not compile it on its
// own: its allocations are then only those of the inlined copies.
type closureBody struct {
	where Span // the block, from its { to its }
	vars  Span // a range's variables, the closure's parameters, if any
	// For a range over a function: the loop's site at its for, and
	// whether the iterator may be the module's code, which the
	// instrumented program may compile otherwise (keep from being
	// inlined): then the loop's own allocations are undecided.
	loop             *allocation
	iteratorInModule bool
}

// contains reports whether s lies in b: its block or its variables.
func (b *closureBody) contains(s Span) bool {
	return b.where.Contains(s) || b.vars != (Span{}) && b.vars.Contains(s)
}

// callsModule reports whether x may run the module's code to make the
// iterator it ranges over: anything but a call of a function or method
// of another module.
func (a *allocFinder) callsModule(x ast.Expr) bool {
	call, ok := ast.Unparen(x).(*ast.CallExpr)
	if !ok {
		return true
	}
	callee := typeutil.Callee(a.info, call)
	return callee == nil || callee.Pkg() == nil || a.c.inModule(callee.Pkg().Path())
}

// allocFinder finds the allocation sites of one package's bodies (the
// nodes walk visits; each in its owner).
type allocFinder struct {
	c     *collector
	info  *types.Info
	sizes types.Sizes
	// inner holds the composite literals and string sums already counted
	// as part of an enclosing site (&T{...}, a + b + c).
	inner map[ast.Node]bool
}

// visit records the allocation site n is, if it is one.
func (a *allocFinder) visit(n ast.Node, owner *function) {
	if a.c.exprs != nil {
		if e, ok := n.(ast.Expr); ok {
			a.expression(e, owner)
		}
		a.converts(n)
	}
	if a.inner[n] {
		return
	}
	switch n := n.(type) {
	case *ast.CallExpr:
		a.call(n, owner)
	case *ast.UnaryExpr:
		if lit, ok := ast.Unparen(n.X).(*ast.CompositeLit); ok && n.Op == token.AND {
			t := a.info.TypeOf(lit)
			switch CoreType(t).(type) {
			case *types.Slice, *types.Map:
				// &[]T{...}, &map[K]V{...}: the header the pointer
				// points to, and the literal's own array or map, a site
				// of its own (the compiler decides each).
			default:
				a.inner[lit] = true
			}
			a.add(n.OpPos, n.End(), owner, allocComposite, t, nil, -1)
		}
	case *ast.CompositeLit:
		switch t := a.info.TypeOf(n); under := CoreType(t).(type) {
		case *types.Pointer: // {...} for &T{...}, in a literal of []*T or map[K]*T
			a.add(n.Lbrace, n.End(), owner, allocComposite, t, nil, -1)
		case *types.Slice:
			a.add(n.Lbrace, n.End(), owner, allocComposite, t, under.Elem(), literalLen(a.info, n))
		case *types.Map:
			a.add(n.Lbrace, n.End(), owner, allocMapLiteral, t, nil, -1)
		}
	case *ast.BinaryExpr:
		tv := a.info.Types[n]
		if n.Op != token.ADD || tv.Value != nil || !isString(tv.Type) {
			return
		}
		// a + b + c is one concatenation, named at its last operator.
		for x := ast.Unparen(n.X); ; {
			b, ok := x.(*ast.BinaryExpr)
			if !ok || b.Op != token.ADD {
				break
			}
			a.inner[b] = true
			x = ast.Unparen(b.X)
		}
		a.add(n.OpPos, n.End(), owner, allocConcat, tv.Type, nil, -1)
	case *ast.AssignStmt:
		if n.Tok == token.ADD_ASSIGN && len(n.Lhs) == 1 && isString(a.info.TypeOf(n.Lhs[0])) {
			a.add(n.TokPos, n.End(), owner, allocConcatAssign, a.info.TypeOf(n.Lhs[0]), nil, -1)
		}
		for _, lhs := range n.Lhs {
			a.mapAssign(lhs, owner)
		}
	case *ast.IncDecStmt:
		a.mapAssign(n.X, owner)
	case *ast.RangeStmt:
		if t := a.info.TypeOf(n.X); t != nil {
			if _, ok := t.Underlying().(*types.Signature); ok {
				a.add(n.For, n.X.End(), owner, allocRangeFunc, t, nil, -1)
				if a.c.exprs != nil {
					b := &closureBody{
						where: a.c.span(n.Body.Lbrace, n.Body.Rbrace), loop: a.c.allocs[a.c.key(n.For)],
						iteratorInModule: a.callsModule(n.X),
					}
					if n.Key != nil {
						last := n.Key
						if n.Value != nil {
							last = n.Value
						}
						b.vars = a.c.span(n.Key.Pos(), last.End())
					}
					a.c.bodies = append(a.c.bodies, b)
				}
			}
		}
	case *ast.FuncLit:
		if a.c.exprs != nil {
			a.c.bodies = append(a.c.bodies, &closureBody{where: a.c.span(n.Body.Lbrace, n.Body.Rbrace)})
		}
		if captures(a.info, n) {
			a.add(n.Type.Func, n.End(), owner, allocClosure, a.info.TypeOf(n), nil, -1)
		}
	}
}

// expression notes e, at the position where the compiler's diagnostics
// name it, for an escape reported there of no known site (a value
// converted to an interface, a method value): the outermost expression
// there, whose value is neither a constant nor an interface.
func (a *allocFinder) expression(e ast.Expr, owner *function) {
	tv, ok := a.info.Types[e]
	if !ok || tv.Value != nil || tv.Type == nil || !tv.IsValue() && !spreadsResults(a.info, e) {
		return
	}
	if isInterface(tv.Type) && !spreadsResults(a.info, e) {
		return
	}
	p := a.c.fset.Position(CompilerPos(e))
	at := lineCol{filepath.Clean(p.Filename), p.Line, p.Column}
	if a.c.exprs[at] == nil {
		a.c.exprs[at] = &exprAt{expr: e, owner: owner, info: a.info, sizes: a.sizes}
	}
}

// spreadsResults reports whether e is a call f(g()) of another call's
// results, which f's interface parameters may box (resultsBoxed), of
// any result type of f's.
func spreadsResults(info *types.Info, e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	_, ok = info.TypeOf(call.Args[0]).(*types.Tuple)
	return ok
}

// converts notes the operands n converts to an interface (what a
// generic function's diagnostics need): a call's arguments passed as
// interface parameters, the values an assignment, a declaration, a
// return, a send or a literal's element gives an interface.
func (a *allocFinder) converts(n ast.Node) {
	to := a.convertedTo
	switch n := n.(type) {
	case *ast.CallExpr:
		ft := a.info.TypeOf(n.Fun)
		if ft == nil || a.info.Types[n.Fun].IsType() {
			return
		}
		sig, ok := ft.Underlying().(*types.Signature)
		if !ok {
			return
		}
		params := sig.Params()
		for i, x := range n.Args {
			switch {
			case sig.Variadic() && i >= params.Len()-1 && !n.Ellipsis.IsValid():
				to(params.At(params.Len()-1).Type().(*types.Slice).Elem(), x)
			case i < params.Len():
				to(params.At(i).Type(), x)
			}
		}
	case *ast.AssignStmt:
		if len(n.Lhs) == len(n.Rhs) {
			for i, x := range n.Rhs {
				to(a.info.TypeOf(n.Lhs[i]), x)
			}
		}
	case *ast.ValueSpec:
		if n.Type != nil {
			for _, x := range n.Values {
				to(a.info.TypeOf(n.Type), x)
			}
		}
	case *ast.SendStmt:
		if ch, ok := a.info.TypeOf(n.Chan).Underlying().(*types.Chan); ok {
			to(ch.Elem(), n.Value)
		}
	case *ast.CompositeLit:
		t := a.info.TypeOf(n)
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem() // {...} for &T{...}
		}
		for i, x := range n.Elts {
			kv, keyed := x.(*ast.KeyValueExpr)
			if keyed {
				x = kv.Value
			}
			switch u := t.Underlying().(type) {
			case *types.Slice:
				to(u.Elem(), x)
			case *types.Array:
				to(u.Elem(), x)
			case *types.Map:
				to(u.Elem(), x)
				if keyed {
					to(u.Key(), kv.Key)
				}
			case *types.Struct:
				if keyed {
					if id, ok := kv.Key.(*ast.Ident); ok {
						if f, ok := a.info.Uses[id].(*types.Var); ok {
							to(f.Type(), x)
						}
					}
				} else if i < u.NumFields() {
					to(u.Field(i).Type(), x)
				}
			}
		}
	case *ast.FuncDecl:
		if f, ok := a.info.Defs[n.Name].(*types.Func); ok {
			a.results(f.Signature(), n.Body)
		}
	case *ast.FuncLit:
		if sig, ok := a.info.TypeOf(n).(*types.Signature); ok {
			a.results(sig, n.Body)
		}
	}
}

// isInterface reports whether t is an interface type. A type
// parameter's type is not (go/types has its constraint as its
// underlying type): its instantiations box its values.
func isInterface(t types.Type) bool {
	_, tparam := types.Unalias(t).(*types.TypeParam)
	return types.IsInterface(t) && !tparam
}

// convertedTo notes x if giving it to a t converts it to an interface.
func (a *allocFinder) convertedTo(t types.Type, x ast.Expr) {
	if t != nil && isInterface(t) && !isInterface(a.info.TypeOf(x)) {
		a.c.boxed[ast.Unparen(x)] = true
	}
}

// results notes the results the return statements of a body of
// signature sig convert to interfaces (not those of the function
// literals in it, which have bodies of their own).
func (a *allocFinder) results(sig *types.Signature, body *ast.BlockStmt) {
	if body == nil || sig.Results().Len() == 0 {
		return
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == sig.Results().Len() {
				for i, x := range n.Results {
					a.convertedTo(sig.Results().At(i).Type(), x)
				}
			}
		}
		return true
	})
}

// exprAt is an expression of a function's body (expression).
type exprAt struct {
	expr  ast.Expr
	owner *function
	info  *types.Info
	sizes types.Sizes
}

// mapAssign records an assignment to x when x is a map's element.
func (a *allocFinder) mapAssign(x ast.Expr, owner *function) {
	ix, ok := ast.Unparen(x).(*ast.IndexExpr)
	if !ok {
		return
	}
	if t := a.info.TypeOf(ix.X); t != nil {
		if _, ok := CoreType(t).(*types.Map); ok {
			a.add(ix.Lbrack, ix.End(), owner, allocMapAssign, t, nil, -1)
		}
	}
}

// call records new, make, append and the conversions that copy.
func (a *allocFinder) call(e *ast.CallExpr, owner *function) {
	fun := ast.Unparen(e.Fun)
	tv := a.info.Types[fun]
	if tv.IsType() {
		if len(e.Args) == 1 && copies(tv.Type, a.info.TypeOf(e.Args[0])) {
			// The compiler names a conversion at its operand.
			a.add(CompilerPos(e.Args[0]), e.End(), owner, allocConversion, tv.Type, nil, -1)
		}
		return
	}
	if !tv.IsBuiltin() {
		a.variadic(e, owner)
		return
	}
	if len(e.Args) == 0 {
		return
	}
	id, _ := fun.(*ast.Ident)
	if id == nil {
		return
	}
	switch id.Name {
	case "new":
		if t := a.info.TypeOf(e.Args[0]); a.info.Types[e.Args[0]].IsType() {
			a.add(e.Lparen, e.End(), owner, allocNew, t, nil, -1)
		} else { // new(expr), Go 1.26: a new variable of expr's type
			a.add(e.Lparen, e.End(), owner, allocNew, types.Default(t), nil, -1)
		}
	case "make":
		t := a.info.TypeOf(e.Args[0])
		switch under := CoreType(t).(type) {
		case *types.Slice:
			n := int64(-1)
			if size := e.Args[len(e.Args)-1]; len(e.Args) > 1 {
				n = constInt(a.info, size)
			}
			a.add(e.Lparen, e.End(), owner, allocMakeSlice, t, under.Elem(), n)
		case *types.Map:
			a.add(e.Lparen, e.End(), owner, allocMakeMap, t, nil, -1)
		case *types.Chan:
			a.add(e.Lparen, e.End(), owner, allocMakeChan, t, nil, -1)
		}
	case "append":
		t := a.info.TypeOf(e)
		var elem types.Type
		if s, ok := CoreType(t).(*types.Slice); ok {
			elem = s.Elem()
		}
		a.add(e.Lparen, e.End(), owner, allocAppend, t, elem, -1)
	}
}

// variadic records the slice a call of a variadic function makes for
// its extra arguments (none when they are passed as s...).
func (a *allocFinder) variadic(e *ast.CallExpr, owner *function) {
	sig, ok := a.info.TypeOf(e.Fun).Underlying().(*types.Signature)
	if !ok || !sig.Variadic() || e.Ellipsis.IsValid() {
		return
	}
	args := int64(len(e.Args))
	if len(e.Args) == 1 {
		if tuple, ok := a.info.TypeOf(e.Args[0]).(*types.Tuple); ok {
			args = int64(tuple.Len()) // f(g()): g's results are the arguments
		}
	}
	extra := args - int64(sig.Params().Len()-1)
	if extra <= 0 {
		return // no extra argument: a nil slice
	}
	t := sig.Params().At(sig.Params().Len() - 1).Type()
	a.add(e.Lparen, e.End(), owner, allocVariadic, t, t.Underlying().(*types.Slice).Elem(), extra)
}

// add records a site. t is the type allocated, elem the element type of
// a slice whose capacity n (elements) is known when n ≥ 0.
func (a *allocFinder) add(pos, end token.Pos, owner *function, kind string, t, elem types.Type, n int64) {
	k := a.c.key(pos)
	if prev := a.c.allocs[k]; prev != nil && !(kind == allocAppend && prev.kind == allocConversion) {
		return
	}
	// string(append(b, x)) is two allocations, a conversion and an
	// append, that the compiler names at one position: both are sites
	// (escape.go tells their diagnostics apart), the map keeps the first.
	owner.used = true
	al := &allocation{
		key: k, owner: owner, where: a.c.span(pos, end), kind: kind,
		typ: typeString(t), elements: -1, bytes: -1, heap: -1, heapInlined: -1, inlinable: -1,
	}
	switch kind {
	case allocNew, allocComposite, allocVariable:
		if ptr, ok := t.Underlying().(*types.Pointer); ok && kind == allocComposite {
			t = ptr.Elem()
			al.typ = typeString(t)
		}
		if elem == nil && !isRefType(t) {
			al.bytes = sizeOf(a.sizes, t)
		}
	}
	if elem != nil {
		al.elemType = typeString(elem)
		if n >= 0 {
			al.elements = n
			if size := sizeOf(a.sizes, elem); size >= 0 {
				al.bytes = n * size
			}
		}
	}
	if a.c.allocs[k] == nil {
		a.c.allocs[k] = al
	}
	a.c.allocList = append(a.c.allocList, al)
}

// variable records a local variable that escape analysis moved to the
// heap: an allocation at its declaration that the syntax does not show.
func (c *collector) variable(k posKey, v *types.Var, owner *function, where Span, sizes types.Sizes) *allocation {
	al := &allocation{
		key: k, owner: owner, where: where, kind: allocVariable, typ: typeString(v.Type()),
		elements: -1, bytes: sizeOf(sizes, v.Type()), heap: 1, heapInlined: 0, inlinable: -1,
	}
	c.allocs[k] = al
	c.allocList = append(c.allocList, al)
	return al
}

// sizeOf is t's size, or -1 when it depends on a type parameter: a
// generic function's instantiations allocate different sizes.
func sizeOf(sizes types.Sizes, t types.Type) int64 {
	if hasTypeParam(t, map[types.Type]bool{}) {
		return -1
	}
	return sizes.Sizeof(t)
}

// hasTypeParam says t's layout depends on a type parameter.
func hasTypeParam(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.TypeParam:
		return true
	case *types.Named:
		for i := 0; i < t.TypeArgs().Len(); i++ {
			if hasTypeParam(t.TypeArgs().At(i), seen) {
				return true
			}
		}
		return hasTypeParam(t.Underlying(), seen)
	case *types.Alias:
		return hasTypeParam(types.Unalias(t), seen)
	case *types.Array:
		return hasTypeParam(t.Elem(), seen)
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			if hasTypeParam(t.Field(i).Type(), seen) {
				return true
			}
		}
	}
	return false // pointers, slices, maps, chans, funcs, interfaces: one size
}

// isRefType says a map, slice, chan or func literal's size is not what
// its allocation requests (the header is not the allocation).
func isRefType(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Map, *types.Slice, *types.Chan, *types.Signature:
		return true
	}
	return false
}

func typeString(t types.Type) string {
	// Qualified as the functions table qualifies functions (main.T, and
	// the import path elsewhere).
	return types.TypeString(t, symbolPrefix)
}

// CompilerPos is where the compiler's diagnostics name an expression:
// where the allocations table places a site (package instrument finds
// the expression of a site by it).
func CompilerPos(e ast.Expr) token.Pos {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return CompilerPos(e.X)
	case *ast.BinaryExpr:
		return e.OpPos
	case *ast.CallExpr:
		return e.Lparen
	case *ast.CompositeLit:
		return e.Lbrace
	case *ast.SliceExpr:
		return e.Lbrack
	case *ast.IndexExpr:
		return e.Lbrack
	case *ast.IndexListExpr:
		return e.Lbrack
	case *ast.SelectorExpr:
		return e.X.End() // its dot, a field's, a method's or a package's
	case *ast.TypeAssertExpr:
		return e.X.End()
	}
	return e.Pos()
}

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// copies says a conversion of from to to copies the bytes: between
// strings and byte or rune slices.
func copies(to, from types.Type) bool {
	if from == nil {
		return false
	}
	_, toSlice := to.Underlying().(*types.Slice)
	_, fromSlice := from.Underlying().(*types.Slice)
	return isString(to) && fromSlice || toSlice && isString(from)
}

func constInt(info *types.Info, e ast.Expr) int64 {
	if v := info.Types[e].Value; v != nil {
		if n, ok := constant.Int64Val(constant.ToInt(v)); ok {
			return n
		}
	}
	return -1
}

// literalLen is the length of a slice literal: its highest index plus one.
func literalLen(info *types.Info, lit *ast.CompositeLit) int64 {
	var n, next int64
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if next = constInt(info, kv.Key); next < 0 {
				return -1
			}
		}
		next++
		n = max(n, next)
	}
	return n
}

// captures says a function literal refers to a variable of an enclosing
// function: the compiler makes a closure object for it.
func captures(info *types.Info, lit *ast.FuncLit) bool {
	found := false
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || found {
			return !found
		}
		v, ok := info.Uses[id].(*types.Var)
		if ok && !v.IsField() && v.Parent() != nil && v.Parent() != v.Pkg().Scope() &&
			(v.Pos() < lit.Pos() || v.Pos() >= lit.End()) {
			found = true
		}
		return !found
	})
	return found
}

// LayoutHasTypeParam says t's size, or where its pointers are, depends
// on a type parameter: a generic function's code learns them at run
// time, per instantiation.
func LayoutHasTypeParam(t types.Type) bool { return hasTypeParam(t, map[types.Type]bool{}) }

// HasPointers reports whether an object of type t holds pointers the
// garbage collector scans (the heap then adds a header to a large one).
func HasPointers(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&types.IsString != 0 || u.Kind() == types.UnsafePointer
	case *types.Array:
		return u.Len() > 0 && HasPointers(u.Elem())
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if HasPointers(u.Field(i).Type()) {
				return true
			}
		}
		return false
	}
	return true // pointers, slices, maps, chans, funcs, interfaces
}

// MarkReassigned marks in changed the local variables that n (and the
// code in it) assigns after their declaration or whose address it
// takes, explicitly (&x, x[:] of an array) or by calling a method with
// a pointer receiver: the compiler captures those by reference in a
// closure (the others by value, up to 128 bytes).
func MarkReassigned(info *types.Info, n ast.Node, changed map[*types.Var]bool) {
	ast.Inspect(n, func(n ast.Node) bool {
		markReassigned(info, n, changed)
		return true
	})
}

// markReassigned is MarkReassigned for node n alone. A write to, or the
// address of, a field or an array element of x is x's (cmd/compile's
// ir.OuterValue), unless a pointer is followed on the way.
func markReassigned(info *types.Info, n ast.Node, changed map[*types.Var]bool) {
	mark := func(e ast.Expr) {
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.Ident:
				if v, ok := info.Uses[x].(*types.Var); ok {
					changed[v] = true
				}
				return
			case *ast.SelectorExpr:
				sel, ok := info.Selections[x]
				if !ok || sel.Kind() != types.FieldVal || sel.Indirect() {
					return
				}
				if _, ptr := info.TypeOf(x.X).Underlying().(*types.Pointer); ptr {
					return
				}
				e = x.X
			case *ast.IndexExpr:
				if _, ok := info.TypeOf(x.X).Underlying().(*types.Array); !ok {
					return
				}
				e = x.X
			default:
				return
			}
		}
	}
	switch n := n.(type) {
	case *ast.AssignStmt:
		if n.Tok != token.DEFINE {
			for _, l := range n.Lhs {
				mark(l)
			}
		}
	case *ast.IncDecStmt:
		mark(n.X)
	case *ast.UnaryExpr:
		if n.Op == token.AND {
			mark(n.X)
		}
	case *ast.RangeStmt:
		if n.Tok == token.ASSIGN {
			mark(n.Key)
			if n.Value != nil {
				mark(n.Value)
			}
		}
	case *ast.SliceExpr:
		if _, ok := info.TypeOf(n.X).Underlying().(*types.Array); ok {
			mark(n.X)
		}
	case *ast.SelectorExpr:
		// x.M with M's receiver a pointer and x not: &x, or &x.E for a
		// method promoted from an embedded field E reached without
		// following a pointer.
		sel, ok := info.Selections[n]
		if !ok || sel.Kind() != types.MethodVal || sel.Indirect() {
			return
		}
		if _, ptr := sel.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer); !ptr {
			return
		}
		if _, ptr := info.TypeOf(n.X).Underlying().(*types.Pointer); !ptr {
			mark(n.X)
		}
	}
}

// CoreType is t's underlying type, or, for a type parameter, the
// underlying type every type of its constraint's type set has (a
// slice, map or chan a make, a literal or an index may be of), or nil.
func CoreType(t types.Type) types.Type {
	tp, ok := t.(*types.TypeParam)
	if !ok {
		return t.Underlying()
	}
	var core types.Type
	same := func(u types.Type) bool {
		if core == nil {
			core = u
		}
		return types.Identical(core, u)
	}
	var walk func(iface *types.Interface) bool
	walk = func(iface *types.Interface) bool {
		for e := range iface.EmbeddedTypes() {
			switch e := e.(type) {
			case *types.Union:
				for term := range e.Terms() {
					if !same(term.Type().Underlying()) {
						return false
					}
				}
			case *types.TypeParam:
				if c := CoreType(e); c == nil || !same(c) {
					return false
				}
			default:
				if i, ok := e.Underlying().(*types.Interface); ok {
					if !walk(i) {
						return false
					}
				} else if !same(e.Underlying()) {
					return false
				}
			}
		}
		return true
	}
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok || !walk(iface) {
		return nil
	}
	return core
}
