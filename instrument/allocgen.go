package instrument

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/static"
)

// Allocation sites (issue 13): an expression that allocates on the
// heap, wrapped in a typed helper that takes the allocated value,
// records the allocation and returns the value:
//
//	p := &Node{v: 1}      →  p := pmm__alloc5(&Node{v: 1})
//	s = append(s, x)      →  s = pmm__alloc6(&pmm__a6, append(pmm__keep6(&pmm__a6, s), x))
//
// The helper is a static call whose parameter flows only to its
// result, so escape analysis decides of the value what it decided
// without it (docs/MEMORY.md). An append is an allocation only when it
// grows: the capacity before it is kept in a state at the top of the
// body, and the helper records when the capacity changed. The runtime
// does not allocate zero bytes (make([]T, 0), new(struct{})), nor a
// string of one byte converted from a []byte: those are no events.

// allocExpr finds the expression of allocation site s: the outermost
// expression that ends where the site ends and that the compiler names
// where the site begins (static.allocFinder's positions).
func allocExpr(fi *fileInfo, start, end int) (ast.Expr, []ast.Node) {
	at := func(p token.Pos) bool { return p.IsValid() && fi.tf.Offset(p) == start }
	n, path := firstPath(fi.file, fi.tf, start, end, func(n ast.Node) bool {
		if _, ok := n.(ast.Expr); !ok || fi.tf.Offset(n.End()) != end {
			return false
		}
		switch e := n.(type) {
		case *ast.CallExpr:
			return at(e.Lparen) || len(e.Args) == 1 && at(static.CompilerPos(e.Args[0]))
		case *ast.UnaryExpr:
			return at(e.OpPos)
		case *ast.CompositeLit:
			return at(e.Lbrace)
		case *ast.BinaryExpr:
			return at(e.OpPos)
		case *ast.FuncLit:
			return at(e.Type.Func)
		}
		return false
	})
	if n == nil {
		return nil, nil
	}
	return n.(ast.Expr), path
}

// allocNotRecorded are the kinds of allocation sites (static.db's
// allocations table) pmm does not record yet, and why.
var allocNotRecorded = map[string]string{
	"make-map":      "a map's allocations (its header and groups, and more as it grows) are not instrumented yet",
	"make-chan":     "a channel's allocations (its header, and its buffer apart when it holds pointers) are not instrumented yet",
	"variable":      "a variable moved to the heap is allocated at its declaration, which is not instrumented yet",
	"variadic":      "the slice of a variadic call's extra arguments is not instrumented yet",
	"concat-assign": "a string's s += t is not instrumented yet: escape analysis says nothing of it",
}

// outerFirst is the order of an insertion that opens a wrapper of the
// source from offset from to offset to: outer wrappers before inner
// ones, and before a call site's wrapper of the same span.
func outerFirst(from, to int) int { return orderCall*1_000_000 + (1_000_000 - (to - from + 1)) }

// allocationSite generates allocation site s, of expression e (path:
// the nodes from the file to e).
func (g *generator) allocationSite(s *plan.Site, fi *fileInfo, e ast.Expr, path []ast.Node) error {
	if tps := enclosingTypeParams(fi, e.Pos()); tps != nil && tps.Len() > 0 {
		return fmt.Errorf("the allocations of %s are not instrumented: pmm does not instrument them in generic functions yet", s.Function)
	}
	info := fi.pkg.TypesInfo
	t := info.TypeOf(e)
	// An element {...} of a literal, whose type the literal's gives, is
	// written out in the call that wraps it: &T{...}, or []T{...}.
	elided := false
	if lit, ok := e.(*ast.CompositeLit); ok && lit.Type == nil {
		elided = true
	}
	if tv := info.Types[e]; tv.Value != nil {
		return fmt.Errorf("pmm bug: the allocation at %s is a constant", s.Position())
	}
	if _, ok := t.Underlying().(*types.Map); ok {
		return fmt.Errorf("%s", allocNotRecorded["make-map"])
	}
	if p, ok := t.Underlying().(*types.Pointer); ok && sizes(fi).Sizeof(p.Elem()) == 0 {
		// The runtime allocates no zero-size object: no event, no code.
		g.done[s] = true
		return nil
	}
	madeCap, constCap := makeCap(info, e)
	if sl, ok := t.Underlying().(*types.Slice); ok && constCap && madeCap*sizes(fi).Sizeof(sl.Elem()) == 0 {
		g.done[s] = true // likewise
		return nil
	}
	isAppend := s.Label == "append"
	if why := evaluatedEarlier(info, path, e); why != "" {
		return fmt.Errorf("%s", why)
	}
	if isAppend {
		if why := evaluatedEarlier(info, path, e.(*ast.CallExpr).Args[0]); why != "" {
			return fmt.Errorf("%s", why)
		}
	}
	sg := g.newSiteGen(s, fi)
	if isAppend {
		sg.declare("capBefore", "int")
	}
	sg.common()
	sg.takeClocks()
	// Heap walks at the allocation's point: their roots are evaluated
	// after the value, as further arguments of the helper.
	walkParams, walkArgs, walkBody, err := sg.allocWalks(e)
	if err != nil {
		return err
	}
	if err := sg.action(); err != nil {
		return err
	}
	ts, err := sg.typeName(t)
	if err != nil {
		return err
	}
	rt := sg.pc.Imports[g.rtPath]
	// elements and bytes are the allocation's, as Go expressions over
	// the value v; pointers whether the object holds pointers; none are
	// events when skip.
	var elements, bytes, skip string
	var pointers bool
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		elements, bytes = "1", strconv.FormatInt(sizes(fi).Sizeof(u.Elem()), 10)
		pointers = hasPointers(u.Elem())
	case *types.Slice:
		if constCap {
			// make's capacity is the one asked for: its sizes, and
			// its heap bytes, are taken once.
			elements, bytes = strconv.FormatInt(madeCap, 10), strconv.FormatInt(madeCap*sizes(fi).Sizeof(u.Elem()), 10)
		} else {
			elements = "int64(cap(v))"
			bytes = "int64(cap(v)) * int64(" + sg.pc.importName("unsafe") + ".Sizeof(v[0]))"
		}
		pointers = hasPointers(u.Elem())
	case *types.Basic: // a string: a concatenation or a conversion
		elements, bytes = "int64(len(v))", "int64(len(v))"
		if call, ok := e.(*ast.CallExpr); ok && isByteSlice(info.TypeOf(call.Args[0])) {
			skip = "len(v) == 1" // the runtime's own one-byte strings
		}
	case *types.Signature:
		size, ptrs := closureSize(info, e.(*ast.FuncLit), sizes(fi), path)
		elements, bytes, pointers = "1", strconv.FormatInt(size, 10), ptrs
	default:
		return fmt.Errorf("pmm bug: an allocation of %s at %s", t, s.Position())
	}
	state, enter, exit := sg.name("state"), sg.name("enter"), sg.name("exit")
	body := []string{"if !" + rt + ".Enabled() {", "\treturn v", "}"}
	if skip != "" {
		body = append(body, "if "+skip+" {", "\treturn v", "}")
	}
	if _, err := strconv.ParseInt(bytes, 10, 64); err != nil {
		body = append(body, "var n int64 = "+bytes, "if n == 0 {", "\treturn v // the runtime allocates no zero-size object", "}")
		bytes = "n"
	}
	if sg.caps[plan.CapElements] {
		body = append(body, "s.elems = "+elements)
	}
	if sg.caps[plan.CapBytes] {
		body = append(body, "s.bytes = "+bytes)
	}
	if sg.caps[plan.CapHeapBytes] {
		heap := fmt.Sprintf("int64(%s.HeapBytes(%s, %t))", rt, bytes, pointers)
		if bytes == "n" {
			heap = fmt.Sprintf("int64(%s.HeapBytes(uintptr(n), %t))", rt, pointers)
		} else {
			// A constant size: its heap bytes are taken once.
			name := sg.name("heap")
			sg.decls = append(sg.decls, "var "+name+" = "+heap)
			heap = name
		}
		body = append(body, "s.heap = "+heap)
	}
	body = append(body, walkBody...)
	emits := false // the site records tuples, not only cells
	fbody := enclosingBody(path)
	sg.accountCached = fbody != nil && !inRangeFuncBody(info, path)
	for _, t := range s.Targets {
		emits = emits || len(t.Emits) > 0
		add, decls, err := sg.allocCells(t, t.Cells)
		if err != nil {
			return err
		}
		body = append(body, add...)
		sg.decls = append(sg.decls, decls...)
	}
	st := "&s"
	if isAppend {
		st = "s" // the state at the top of the body
	}
	calls := []string{enter + "(" + st + ")", exit + "(" + st + ")"}
	if !emits {
		calls = nil // nothing to take or record: the cells are all
	}
	if sg.caps[plan.CapLive] {
		// The object's address, the first word of a pointer, slice,
		// string or func value, for a weak pointer (TrackLive); the
		// state forgets it, so that only the program keeps it alive.
		unsafe := sg.pc.importName("unsafe")
		sg.declare("live", unsafe+".Pointer")
		body = append(body, "s.live = *(*"+unsafe+".Pointer)("+unsafe+".Pointer(&v))")
		body = append(append(body, calls...), "s.live = nil", "return v")
	} else {
		body = append(append(body, calls...), "return v")
	}
	decls := append([]string{sg.stateDecl()}, sg.enterDecls(nil)...)
	decls = append(decls, sg.exitDecl(nil, nil))
	name := sg.name("alloc")
	params := "v " + ts
	open := name + "(" + walkArgs
	if isAppend {
		// The state holds the capacity before the append, which keep
		// takes of the append's first argument as it is evaluated.
		call := e.(*ast.CallExpr)
		if fbody == nil {
			return fmt.Errorf("an append outside a function body is not instrumented")
		}
		v, keep := sg.name("a"), sg.name("keep")
		decls = append(decls, fmt.Sprintf("func %s(s *%s, v %s) %s {\n\ts.capBefore = cap(v)\n\treturn v\n}", keep, state, ts, ts))
		params = "s *" + state + ", " + params
		body = append([]string{"if cap(v) == s.capBefore {", "\treturn v // it did not grow", "}"}, body...)
		open += "&" + v + ", "
		at := fi.tf.Offset(fbody.Lbrace) + 1
		first := fi.tf.Offset(call.Args[0].Pos())
		sg.edits = append(sg.edits,
			Edit{Off: at, End: at, Text: "var " + v + " " + state + ";", Order: orderDefinition},
			Edit{Off: first, End: first, Text: keep + "(&" + v + ", ", Order: outerFirst(first, fi.tf.Offset(call.Args[0].End()))},
			Edit{Off: fi.tf.Offset(call.Args[0].End()), End: fi.tf.Offset(call.Args[0].End()), Text: ")", Order: orderWrapEnd})
	} else if emits {
		body = append([]string{"var s " + state}, body...)
	} else {
		// Only cells: nothing but the sizes may use the state (a count
		// of a type's objects uses none of it).
		body = append([]string{"var s " + state, "_ = s"}, body...)
	}
	params = walkParams + params
	for _, set := range slices.Backward(sg.cachedSets) {
		// The function's account cache, first: its address.
		params = accountCache(set) + " *int, " + params
		open = strings.Replace(open, "(", "(&"+accountCache(set)+", ", 1)
	}
	decls = append(decls, fmt.Sprintf("func %s(%s) %s {\n\t%s\n}", name, params, ts, strings.Join(body, "\n\t")))
	if elided {
		written := t
		if p, ok := t.Underlying().(*types.Pointer); ok {
			written = p.Elem()
			open += "&"
		}
		tn, err := sg.typeName(written)
		if err != nil {
			return err
		}
		open += tn
	}
	from, to := fi.tf.Offset(e.Pos()), fi.tf.Offset(e.End())
	sg.edits = append(sg.edits,
		Edit{Off: from, End: from, Text: open, Order: outerFirst(from, to)},
		Edit{Off: to, End: to, Text: ")", Order: orderWrapEnd})
	if why := allocInexact(info, s.Label, e, path, sizes(fi)); why != "" {
		for _, t := range s.Targets {
			g.code.Inexact = append(g.code.Inexact, plan.Inexact{Site: s, Target: t, Reason: why})
		}
	}
	fd := enclosingDecl(path)
	noinline := fd != nil && !g.notInlined[fd] && !hasDirective(fd, "//go:noinline")
	if noinline {
		// An inlined copy of the function may keep the value on the
		// stack, where the helper would still record it: not inlined,
		// the function's own escape analysis decides for every call.
		at := fi.tf.Offset(fd.Pos())
		sg.edits = append(sg.edits, Edit{Off: at, End: at, Text: "//go:noinline\n", Order: orderDefinition})
	}
	if err := sg.finish(decls...); err != nil {
		return err
	}
	for _, set := range sg.cachedSets {
		if g.accountCaches == nil {
			g.accountCaches = map[accountCacheKey]bool{}
		}
		g.accountCaches[accountCacheKey{file: fi.tf.Name(), at: fi.tf.Offset(fbody.Lbrace) + 1, set: set}] = true
	}
	if noinline {
		if g.notInlined == nil {
			g.notInlined = map[*ast.FuncDecl]bool{}
		}
		g.notInlined[fd] = true
	}
	g.done[s] = true
	return nil
}

// makeCap is the capacity of a make of a slice whose capacity (or
// length, without one) is a constant: the capacity of the slice it
// returns, exactly.
func makeCap(info *types.Info, e ast.Expr) (int64, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) < 2 {
		return 0, false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if b, isBuiltin := info.Uses[id].(*types.Builtin); !ok || !isBuiltin || b.Name() != "make" {
		return 0, false
	}
	tv := info.Types[call.Args[len(call.Args)-1]]
	if tv.Value == nil {
		return 0, false
	}
	n, exact := constant.Int64Val(constant.ToInt(tv.Value))
	return n, exact && n >= 0
}

// enclosingDecl is the function declaration on path, or nil.
func enclosingDecl(path []ast.Node) *ast.FuncDecl {
	for _, n := range path {
		if fd, ok := n.(*ast.FuncDecl); ok {
			return fd
		}
	}
	return nil
}

// hasDirective reports whether fd's doc comment holds the directive.
func hasDirective(fd *ast.FuncDecl, directive string) bool {
	if fd.Doc == nil {
		return false
	}
	for _, c := range fd.Doc.List {
		if strings.TrimSpace(c.Text) == directive {
			return true
		}
	}
	return false
}

// sizes are the sizes of types of fi's package.
func sizes(fi *fileInfo) types.Sizes {
	if fi.pkg.TypesSizes != nil {
		return fi.pkg.TypesSizes
	}
	return types.SizesFor("gc", "amd64")
}

// stackAppendBytes is the compiler's bound (its VariableMakeThreshold)
// on the element size of a slice whose appends it may back with a
// buffer in the frame.
const stackAppendBytes = 32

// allocWalks are the heap walks an allocation site takes at its point
// (reachable-objects, reachable-bytes of an allocation): the helper's
// first parameters (pointers to the variables the roots read, in the
// allocation's scope), the call's first arguments, and the statements
// of the helper that walk once the value is made (walkStatements).
// Where a root does not compile there, the allocation has no such walk.
func (sg *siteGen) allocWalks(e ast.Expr) (params, args string, body []string, err error) {
	var ws beginWalks
	for k, f := range sg.dataCondFields() {
		if f.Walk == "" {
			return "", "", nil, fmt.Errorf("pmm bug: data-condition %q of an allocation", f.Expr)
		}
		ps, as, compiles, err := sg.walkField(&ws, e.Pos(), f, dataCondPrefix(plan.PointBegin)+strconv.Itoa(k))
		if err != nil {
			return "", "", nil, err
		}
		if !compiles {
			sg.noDataCond(f)
		}
		for j, p := range ps {
			if !strings.Contains(params, p+", ") {
				params, args = params+p+", ", args+as[j]+", "
			}
		}
	}
	return params, args, sg.walkStatements(ws), nil
}

// allocInexact says why the allocations pmm records at the allocation
// e of kind may not be those of the program without pmm, or "".
func allocInexact(info *types.Info, kind string, e ast.Expr, path []ast.Node, sz types.Sizes) string {
	switch kind {
	case "concat":
		// Go returns the one non-empty operand without allocating: not
		// when two operands are non-empty constants.
		nonEmpty := 0
		for x := e; ; {
			b, ok := ast.Unparen(x).(*ast.BinaryExpr)
			if !ok {
				if tv := info.Types[x]; tv.Value != nil && constant.StringVal(tv.Value) != "" {
					nonEmpty++
				}
				break
			}
			if tv := info.Types[b.Y]; tv.Value != nil && constant.StringVal(tv.Value) != "" {
				nonEmpty++
			}
			x = b.X
		}
		if nonEmpty < 2 {
			return "a concatenation whose operands but one are empty returns that one without allocating; pmm counts an allocation of its length"
		}
	case "append":
		// s = append(s, ...) of a local slice of small elements: Go
		// 1.26 may back its first growths with a buffer in the frame
		// and move the slice to the heap where it escapes; through
		// pmm's helper it does not.
		call := e.(*ast.CallExpr)
		as, ok := parentOf(path, e).(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(call.Args) == 0 {
			return ""
		}
		lhs, ok1 := ast.Unparen(as.Lhs[0]).(*ast.Ident)
		arg, ok2 := ast.Unparen(call.Args[0]).(*ast.Ident)
		if !ok1 || !ok2 || lhs.Name != arg.Name {
			return ""
		}
		v, ok := info.Uses[arg].(*types.Var)
		if !ok || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
			return ""
		}
		if sl, ok := v.Type().Underlying().(*types.Slice); ok && sz.Sizeof(sl.Elem()) <= stackAppendBytes {
			return "Go may keep the first growths of this append (to 32 bytes) on the stack and move the slice to the heap where it escapes; " +
				"through pmm's helper it allocates each growth on the heap: pmm counts those of the instrumented program"
		}
	}
	return ""
}

// enclosingBody is the body of the innermost function on path.
func enclosingBody(path []ast.Node) *ast.BlockStmt {
	for i := len(path) - 1; i >= 0; i-- {
		switch f := path[i].(type) {
		case *ast.FuncDecl:
			return f.Body
		case *ast.FuncLit:
			return f.Body
		}
	}
	return nil
}

func isByteSlice(t types.Type) bool {
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && b.Kind() == types.Byte
}

// hasPointers reports whether an object of type t holds pointers the
// garbage collector scans (the heap then adds a header to a large one).
func hasPointers(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&types.IsString != 0 || u.Kind() == types.UnsafePointer
	case *types.Array:
		return u.Len() > 0 && hasPointers(u.Elem())
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if hasPointers(u.Field(i).Type()) {
				return true
			}
		}
		return false
	}
	return true // pointers, slices, maps, chans, funcs, interfaces
}

// closureSize is the size of the object a function literal that
// captures variables allocates, and whether it holds pointers: its code
// pointer, then each captured variable, by value when the compiler
// captures it so (at most 128 bytes, never assigned after its
// declaration nor its address taken), else by reference.
func closureSize(info *types.Info, lit *ast.FuncLit, sizes types.Sizes, path []ast.Node) (int64, bool) {
	var outer ast.Node = lit
	for i := len(path) - 2; i >= 0; i-- {
		if _, ok := path[i].(*ast.FuncDecl); ok {
			outer = path[i]
			break
		}
	}
	// The variables assigned or addressed anywhere in the outermost
	// function, after their declaration.
	changed := map[*types.Var]bool{}
	mark := func(e ast.Expr) {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok {
				changed[v] = true
			}
		}
	}
	ast.Inspect(outer, func(n ast.Node) bool {
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
		}
		return true
	})
	fields := []*types.Var{types.NewField(token.NoPos, nil, "F", types.Typ[types.Uintptr], false)}
	pointers := false
	seen := map[*types.Var]bool{}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		v, ok := info.Uses[id].(*types.Var)
		if !ok || seen[v] || v.IsField() || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() || v.Pos() >= lit.Pos() && v.Pos() < lit.End() {
			return true
		}
		seen[v] = true
		t := v.Type()
		if changed[v] || sizes.Sizeof(t) > 128 {
			t = types.NewPointer(t)
		}
		if hasPointers(t) {
			pointers = true
		}
		fields = append(fields, types.NewField(token.NoPos, nil, "x"+strconv.Itoa(len(fields)), t, false))
		return true
	})
	return sizes.Sizeof(types.NewStruct(fields, nil)), pointers
}

// evaluatedEarlier says why x, an operand that pmm's helper turns into
// a call, is not wrapped, or "": Go evaluates an operand that is no call
// after the calls and receives of its statement (gc does so), and a
// call in their lexical order, so a helper's call would read x's
// variables before a call that follows it in the statement changes
// them. x is wrapped when it reads no variable or no call follows it.
func evaluatedEarlier(info *types.Info, path []ast.Node, x ast.Expr) string {
	if _, ok := x.(*ast.FuncLit); ok {
		return "" // a closure captures variables, which no call changes
	}
	reads := false
	ast.Inspect(x, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.Ident:
			if v, ok := info.Uses[n].(*types.Var); ok && !v.IsField() {
				reads = true // a field's key or selector is read through a variable
			}
		}
		return !reads
	})
	if !reads {
		return ""
	}
	// The scope of x's evaluation: its statement, or the outermost
	// expression of a statement's header (an if's or a for's condition,
	// a switch's tag, a range's operand, a case's expression).
	i := len(path) - 1 // the allocation, x or the expression that holds it
	for i > 0 {
		if _, ok := path[i-1].(ast.Expr); !ok {
			break
		}
		i--
	}
	scope := path[i]
	if i > 0 {
		switch path[i-1].(type) {
		case *ast.AssignStmt, *ast.ReturnStmt, *ast.ExprStmt, *ast.GoStmt, *ast.DeferStmt,
			*ast.SendStmt, *ast.ValueSpec, *ast.IncDecStmt:
			scope = path[i-1]
		}
	}
	var after ast.Node
	ast.Inspect(scope, func(n ast.Node) bool {
		if after != nil || n == nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if n.Pos() < x.End() {
			return true
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if tv := info.Types[n.Fun]; tv.IsType() {
				return true // a conversion
			}
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if _, ok := info.Uses[id].(*types.Builtin); ok {
					switch id.Name {
					case "len", "cap", "make", "new", "append", "min", "max", "complex", "real", "imag":
						return true // changes no variable
					}
				}
			}
			after = n
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				after = n
			}
		}
		return true
	})
	if after == nil {
		return ""
	}
	return "Go evaluates this allocation after the call or receive that follows it in its statement, which may change what it reads; " +
		"pmm's helper, a call, would evaluate it before: not instrumented"
}
