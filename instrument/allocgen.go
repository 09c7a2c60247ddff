package instrument

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"go/version"
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
//	log.Printf(f, a, b)   →  log.Printf(f, pmm__alloc7(a, b)...)
//	x := T{}              →  x := T{}; pmm__alloc8(&x)      (x moved to the heap)
//
// The helper is a static call whose parameter flows only to its
// result, so escape analysis decides of the value what it decided
// without it (docs/MEMORY.md). The slice of a variadic call's extra
// arguments is made by the call of a variadic helper, which passes it
// on: the same slice of the same values, converted as the callee's
// parameter converts them, made where the call made it. A variable
// moved to the heap is recorded by a statement of its own where it is
// declared (variableAllocation). An append is an allocation only when
// it grows: the capacity before it is kept in a state at the top of
// the body, and the helper records when the capacity changed. The runtime
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
		case *ast.Ident: // a variable moved to the heap, where it is declared
			return at(e.Pos())
		}
		return false
	})
	if n == nil {
		return nil, nil
	}
	return n.(ast.Expr), path
}

// valueExpr finds the expression of a value converted to an interface
// or a method value: the outermost one from offset start to end (the
// span static.db gives such sites).
func valueExpr(fi *fileInfo, start, end int) (ast.Expr, []ast.Node) {
	n, path := firstPath(fi.file, fi.tf, start, end, func(n ast.Node) bool {
		_, ok := n.(ast.Expr)
		return ok && fi.tf.Offset(n.Pos()) == start && fi.tf.Offset(n.End()) == end
	})
	if n == nil {
		return nil, nil
	}
	return n.(ast.Expr), path
}

// typeSwitchVar finds the variable of a type switch's clause whose
// first type (or default) is at offset start: the guard's name (x of
// switch x := v.(type)), and the path to the clause, which ends it.
func typeSwitchVar(fi *fileInfo, start int) (ast.Expr, []ast.Node) {
	n, path := firstPath(fi.file, fi.tf, start, start, func(n ast.Node) bool {
		cl, ok := n.(*ast.CaseClause)
		if !ok {
			return false
		}
		at, _ := static.ClausePos(cl)
		return fi.tf.Offset(at) == start
	})
	if n == nil || len(path) < 3 {
		return nil, nil
	}
	sw, ok := path[len(path)-3].(*ast.TypeSwitchStmt)
	if !ok {
		return nil, nil
	}
	as, ok := sw.Assign.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 {
		return nil, nil
	}
	return as.Lhs[0], path
}

// allocNotRecorded are the kinds of allocation sites (static.db's
// allocations table) pmm does not record yet, and why.
var allocNotRecorded = map[string]string{
	"concat-assign": "a string's s += t is not instrumented yet: escape analysis says nothing of it",
	"range-func": "a range over a function whose iterator Go does not inline (or which is the module's code, which the instrumented program " +
		"may compile otherwise) allocates at its for statement: the closure of the loop's body and the loop's state; not instrumented yet",
}

// outerFirst is the order of an insertion that opens a wrapper of the
// source from offset from to offset to: outer wrappers before inner
// ones, and before a call site's wrapper of the same span.
func outerFirst(from, to int) int { return orderCall*1_000_000 + (1_000_000 - (to - from + 1)) }

// allocationSite generates allocation site s, of expression e (path:
// the nodes from the file to e).
func (g *generator) allocationSite(s *plan.Site, fi *fileInfo, e ast.Expr, path []ast.Node) error {
	tps := enclosingTypeParams(fi, e.Pos())
	info := fi.pkg.TypesInfo
	t := info.TypeOf(e)
	isVariadic, isVariable := s.Label == "variadic", s.Label == "variable"
	// A value converted to an interface, or a method value: the helper
	// takes the value, which the conversion then boxes, or the method
	// value, whose closure is made before.
	isBox, isMethodValue := s.Label == "interface", s.Label == "method-value"
	// f(g()): the helper takes g's results and passes them on, and the
	// call converts them as it did (resultBoxes).
	results, _ := info.TypeOf(e).(*types.Tuple)
	if results != nil && !isBox {
		return fmt.Errorf("pmm bug: the allocation at %s is a call's results", s.Position())
	}
	var movedAt movedPoint // where a moved variable's allocation is recorded
	if isVariable {
		v, ok := info.Defs[e.(*ast.Ident)].(*types.Var)
		if cl, isClause := path[len(path)-1].(*ast.CaseClause); !ok && isClause {
			// A type switch's variable, moved in this clause: made as
			// the clause begins.
			v, ok = info.Implicits[cl].(*types.Var)
			movedAt = movedPoint{off: fi.tf.Offset(cl.Colon) + 1}
		} else if ok {
			var why string
			if movedAt, why = variableAllocation(fi, path, e.(*ast.Ident)); why != "" {
				return fmt.Errorf("%s", why)
			}
		}
		if !ok {
			return fmt.Errorf("pmm bug: the variable at %s is no variable", s.Position())
		}
		t = types.NewPointer(v.Type())
	}
	var extra []ast.Expr // a variadic call's extra arguments
	resultsOf := 0       // or, f(g()), the number of g's results
	if isVariadic {
		call := e.(*ast.CallExpr)
		sig, ok := info.TypeOf(call.Fun).Underlying().(*types.Signature)
		if !ok || !sig.Variadic() || call.Ellipsis.IsValid() {
			return fmt.Errorf("pmm bug: the variadic site at %s is no variadic call", s.Position())
		}
		fixed := sig.Params().Len() - 1
		if results, multi := info.TypeOf(call.Args[0]).(*types.Tuple); multi && len(call.Args) == 1 {
			// f(g()): g's results are the slice's elements, passed
			// to the helper as they would be to f. Where f has
			// parameters before its variadic one, g's first results
			// go to them: no helper can take those and give a slice.
			if fixed > 0 {
				return fmt.Errorf("the slice of a variadic call of another call's results, f(g()), where f has parameters before its variadic one, is not instrumented")
			}
			resultsOf = results.Len()
		}
		extra, t = call.Args[fixed:], sig.Params().At(fixed).Type()
	}
	// An element {...} of a literal, whose type the literal's gives, is
	// written out in the call that wraps it: &T{...}, or []T{...}.
	elided := false
	if lit, ok := e.(*ast.CompositeLit); ok && lit.Type == nil {
		elided = true
	}
	if tv := info.Types[e]; tv.Value != nil {
		return fmt.Errorf("pmm bug: the allocation at %s is a constant", s.Position())
	}
	isChan := s.Label == "make-chan"
	if isChan {
		if why := chanRecorded(g.opt.GoVersion, t); why != "" {
			return fmt.Errorf("%s", why)
		}
	}
	// A map's make, literal or assignment to an element: its objects
	// are read from the map (mapgen.go).
	isMapAssign := s.Label == "map-assign"
	var assignment mapAssignment
	if isMapAssign {
		var why string
		if assignment, why = mapAssignmentOf(info, path, e.(*ast.IndexExpr)); why != "" {
			return fmt.Errorf("%s", why)
		}
		t = info.TypeOf(assignment.ix.X)
	}
	// A map or a slice of a type parameter's type is read as any map or
	// slice is, by its core type; a channel of one is not recorded yet.
	mapType, isMap := static.CoreType(t).(*types.Map)
	isMap = isMap && !isBox
	_, isSlice := static.CoreType(t).(*types.Slice)
	if _, ok := t.(*types.TypeParam); ok && !isBox && !isVariable && !isMap && !isSlice {
		return fmt.Errorf("an allocation of a type parameter's type (a make of %s) is not instrumented yet", t)
	}
	if isMap && !runtimeLayoutKnown(g.opt.GoVersion) {
		return fmt.Errorf("a map's objects are not instrumented for %s: pmm knows the layout of the runtime's maps for Go 1.26", goVersionOrUnknown(g.opt.GoVersion))
	}
	if isBox && static.BoxedBy(sizes(fi), t) == "" {
		// A pointer-shaped, zero-size or one-byte value: never boxed
		// by allocating.
		g.done[s] = true
		return nil
	}
	if p, ok := t.Underlying().(*types.Pointer); ok && !isBox && !isMethodValue && !static.LayoutHasTypeParam(p.Elem()) && sizes(fi).Sizeof(p.Elem()) == 0 {
		// The runtime allocates no zero-size object: no event, no code.
		g.done[s] = true
		return nil
	}
	madeCap, constCap := makeCap(info, e)
	if isVariadic {
		madeCap, constCap = int64(max(len(extra), resultsOf)), true
	}
	if sl, ok := static.CoreType(t).(*types.Slice); ok && constCap && !isBox && !static.LayoutHasTypeParam(sl.Elem()) && madeCap*sizes(fi).Sizeof(sl.Elem()) == 0 {
		g.done[s] = true // likewise
		return nil
	}
	isAppend := s.Label == "append"
	// A variadic call's slice is made as the call is evaluated, and so
	// is its helper's: at the end of the call's arguments.
	if why := evaluatedEarlier(info, path, e); why != "" && !isVariadic && !isVariable && !isMapAssign {
		return fmt.Errorf("%s", why)
	}
	if isAppend {
		if why := evaluatedEarlier(info, path, e.(*ast.CallExpr).Args[0]); why != "" {
			return fmt.Errorf("%s", why)
		}
	}
	sg := g.newSiteGen(s, fi)
	if err := sg.typeParams(tps); err != nil {
		return err
	}
	rt := sg.pc.importName(g.rtPath)
	if isAppend {
		sg.declare("capBefore", "int")
	}
	if isMapAssign {
		// The map's state before the assignment, and the key it takes.
		keyType, err := sg.typeName(mapType.Key())
		if err != nil {
			return err
		}
		sg.declare("mapWrite", rt+".MapWrite")
		sg.declare("mapKey", keyType)
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
	var ts string
	if results != nil {
		ts, err = sg.tupleName(results)
	} else {
		ts, err = sg.typeName(t)
	}
	if err != nil {
		return err
	}
	// elements and bytes are the allocation's, as Go expressions over
	// the value v; pointers whether the object holds pointers; none are
	// events when skip. In a generic function, an object whose layout
	// depends on a type parameter has its size from unsafe.Sizeof, and
	// its pointers from the instantiation's type at run time (pointersOf,
	// the object's or the slice element's type).
	var elements, bytes, skip, pointersOf string
	var pointers bool
	unsafeName := func() string { return sg.pc.importName("unsafe") }
	// Several objects, a channel's or a map's: the event's statements
	// in a loop (objectsLoop, its first lines) after objectsPrelude, of
	// n bytes, elems elements and pointers each.
	var objectsPrelude, objectsLoop []string
	if isChan {
		// One or two: their bytes are n, then rest.
		elements, bytes, pointers = "elems", "n", false
		objectsPrelude = chanObjects(rt, t.Underlying().(*types.Chan).Elem(), sizes(fi))
		objectsLoop = []string{"for ; n != 0; n, rest, elems, pointers = rest, 0, int64(cap(v)), true {"}
	} else if isMap {
		elements, bytes = "elems", "n"
		objects := fmt.Sprintf("%s.MapMade(v, %t)", rt, !s.InFrame)
		if isMapAssign {
			objects = "s.mapWrite.After(v)"
		}
		objectsPrelude = []string{"objects := " + objects}
		objectsLoop = []string{"for objects.Next() {",
			"\tn, elems, pointers := objects.Bytes, objects.Elements, objects.Pointers",
			"\t_, _, _ = n, elems, pointers // (read only where a question asks for them)"}
	} else if results != nil {
		elements, bytes = "elems", "n"
		if objectsPrelude, err = resultBoxes(info, path, e, results, sizes(fi), unsafeName); err != nil {
			return err
		}
		objectsLoop = []string{"for _, box := range boxes {",
			"\tn, elems, pointers := box.n, int64(1), box.pointers",
			"\t_, _ = elems, pointers // (read only where a question asks for them)",
			"\tif n == 0 {", "\t\tcontinue // not boxed by allocating", "\t}"}
	} else if isBox && static.LayoutHasTypeParam(t) {
		// The instantiation's type decides whether it boxes, and the
		// object's size (pmmrt.BoxBytes: 0 for none).
		if pointersOf, err = sg.typeName(t); err != nil {
			return err
		}
		elements, bytes = "1", "int64("+rt+".BoxBytes(v))"
	} else if isBox || isMethodValue {
		size, ptrs, sk, err := valueAllocation(info, e, t, sizes(fi), unsafeName)
		if err != nil {
			return err
		}
		elements, bytes, pointers, skip = "1", strconv.FormatInt(size, 10), ptrs, sk
	} else {
		switch u := static.CoreType(t).(type) {
		case *types.Pointer:
			if static.LayoutHasTypeParam(u.Elem()) {
				elements, bytes = "1", "int64("+unsafeName()+".Sizeof(*v))"
				if pointersOf, err = sg.typeName(u.Elem()); err != nil {
					return err
				}
			} else {
				elements, bytes = "1", strconv.FormatInt(sizes(fi).Sizeof(u.Elem()), 10)
				pointers = static.HasPointers(u.Elem())
			}
		case *types.Slice:
			if static.LayoutHasTypeParam(u.Elem()) {
				elements, bytes = "int64(cap(v))", "int64(cap(v)) * int64("+unsafeName()+".Sizeof(v[0]))"
				if pointersOf, err = sg.typeName(u.Elem()); err != nil {
					return err
				}
			} else if constCap {
				// make's capacity is the one asked for: its sizes, and
				// its heap bytes, are taken once.
				elements, bytes = strconv.FormatInt(madeCap, 10), strconv.FormatInt(madeCap*sizes(fi).Sizeof(u.Elem()), 10)
			} else {
				elements = "int64(cap(v))"
				bytes = "int64(cap(v)) * int64(" + sg.pc.importName("unsafe") + ".Sizeof(v[0]))"
			}
			pointers = static.HasPointers(u.Elem())
		case *types.Basic: // a string: a concatenation or a conversion
			elements, bytes = "int64(len(v))", "int64(len(v))"
			if call, ok := e.(*ast.CallExpr); ok && isByteSlice(info.TypeOf(call.Args[0])) {
				skip = "len(v) == 1" // the runtime's own one-byte strings
			}
		case *types.Signature:
			if tps != nil && tps.Len() > 0 {
				if bytes, err = sg.genericClosureBytes(info, e.(*ast.FuncLit), sizes(fi), path); err != nil {
					return err
				}
				elements, pointers = "1", true // the dictionary
				break
			}
			size, ptrs := closureSize(info, e.(*ast.FuncLit), sizes(fi), path)
			elements, bytes, pointers = "1", strconv.FormatInt(size, 10), ptrs
		default:
			return fmt.Errorf("pmm bug: an allocation of %s at %s", t, s.Position())
		}
	}
	state, enter, exit := sg.name("state"), sg.name("enter"), sg.name("exit")
	body := []string{"if !" + rt + ".Enabled() {", "\treturn v", "}"}
	if skip != "" {
		body = append(body, "if "+skip+" {", "\treturn v", "}")
	}
	if objectsLoop != nil {
		body = append(body, objectsPrelude...)
	} else if _, err := strconv.ParseInt(bytes, 10, 64); err != nil {
		body = append(body, "var n int64 = "+bytes, "if n == 0 {", "\treturn v // the runtime allocates no zero-size object", "}")
		bytes = "n"
	}
	event := len(body) // the event's statements begin here
	if sg.caps[plan.CapElements] {
		body = append(body, "s.elems = "+elements)
	}
	if sg.caps[plan.CapBytes] {
		body = append(body, "s.bytes = "+bytes)
	}
	if sg.caps[plan.CapHeapBytes] {
		heap := fmt.Sprintf("int64(%s.HeapBytes(%s, %t))", rt, bytes, pointers)
		if pointersOf != "" {
			heap = fmt.Sprintf("int64(%s.HeapBytesOf[%s](uintptr(n)))", rt, pointersOf)
		} else if objectsLoop != nil {
			heap = fmt.Sprintf("int64(%s.HeapBytes(uintptr(n), pointers))", rt)
		} else if bytes == "n" {
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
	if isAppend || isMapAssign {
		st = "s" // the state in the user's code
	}
	calls := []string{enter + "(" + st + ")", exit + "(" + st + ")"}
	if !emits {
		calls = nil // nothing to take or record: the cells are all
	}
	if sg.caps[plan.CapLive] && isBox {
		return fmt.Errorf("the liveness of a value converted to an interface is not instrumented yet: the helper sees the value, not the object the conversion allocates")
	}
	if sg.caps[plan.CapLive] && isChan {
		return fmt.Errorf("the liveness of a channel's objects is not instrumented yet")
	}
	if sg.caps[plan.CapLive] && isMap {
		return fmt.Errorf("the liveness of a map's objects is not instrumented yet")
	}
	if sg.caps[plan.CapLive] {
		// The object's address, the first word of a pointer, slice,
		// string or func value, for a weak pointer (TrackLive); the
		// state forgets it, so that only the program keeps it alive.
		unsafe := sg.pc.importName("unsafe")
		sg.declare("live", unsafe+".Pointer")
		body = append(body, "s.live = *(*"+unsafe+".Pointer)("+unsafe+".Pointer(&v))")
		body = append(append(body, calls...), "s.live = nil", "return v")
	} else if objectsLoop != nil {
		// The event's statements once for each object.
		loop := slices.Clone(objectsLoop)
		for _, st := range append(body[event:], calls...) {
			loop = append(loop, "\t"+st)
		}
		body = append(append(body[:event], loop...), "}", "return v")
	} else {
		body = append(append(body, calls...), "return v")
	}
	decls := append([]string{sg.stateDecl()}, sg.enterDecls(nil)...)
	decls = append(decls, sg.exitDecl(nil, nil))
	name := sg.name("alloc")
	params := "v " + ts
	open := name + sg.uargs + "(" + walkArgs
	if isVariadic {
		elem, err := sg.typeName(t.Underlying().(*types.Slice).Elem())
		if err != nil {
			return err
		}
		params = "v ..." + elem
	}
	if isAppend {
		// The state holds the capacity before the append, which keep
		// takes of the append's first argument as it is evaluated.
		call := e.(*ast.CallExpr)
		if fbody == nil {
			return fmt.Errorf("an append outside a function body is not instrumented")
		}
		v, keep := sg.name("a"), sg.name("keep")
		decls = append(decls, fmt.Sprintf("func %s%s(s *%s%s, v %s) %s {\n\ts.capBefore = cap(v)\n\treturn v\n}", keep, sg.tparam, state, sg.targs, ts, ts))
		params = "s *" + state + sg.targs + ", " + params
		body = append([]string{"if cap(v) == s.capBefore {", "\treturn v // it did not grow", "}"}, body...)
		open += "&" + v + ", "
		at := fi.tf.Offset(fbody.Lbrace) + 1
		first := fi.tf.Offset(call.Args[0].Pos())
		sg.edits = append(sg.edits,
			Edit{Off: at, End: at, Text: "var " + v + " " + state + sg.uargs + ";", Order: orderDefinition},
			Edit{Off: first, End: first, Text: keep + sg.uargs + "(&" + v + ", ", Order: outerFirst(first, fi.tf.Offset(call.Args[0].End()))},
			Edit{Off: fi.tf.Offset(call.Args[0].End()), End: fi.tf.Offset(call.Args[0].End()), Text: ")", Order: orderWrapEnd})
	} else if isMapAssign {
		v := sg.name("m")
		mapDecls, err := sg.mapAssignmentEdits(assignment, state, v, ts)
		if err != nil {
			return err
		}
		decls = append(decls, mapDecls...)
		params = "s *" + state + sg.targs + ", " + params
		open += "&" + v + ", "
	} else if emits {
		body = append([]string{"var s " + state + sg.targs}, body...)
	} else {
		// Only cells: nothing but the sizes may use the state (a count
		// of a type's objects uses none of it).
		body = append([]string{"var s " + state + sg.targs, "_ = s"}, body...)
	}
	params = walkParams + params
	for _, set := range slices.Backward(sg.cachedSets) {
		// The function's account cache, first: its address.
		params = accountCache(set) + " *int, " + params
		open = strings.Replace(open, "(", "(&"+accountCache(set)+", ", 1)
	}
	if results != nil {
		// The results in, the same results out.
		var ps, vs []string
		for i := range results.Len() {
			rt, err := sg.typeName(results.At(i).Type())
			if err != nil {
				return err
			}
			ps, vs = append(ps, fmt.Sprintf("v%d %s", i, rt)), append(vs, fmt.Sprintf("v%d", i))
		}
		params = strings.Join(ps, ", ")
		for i, st := range body {
			if r, _, _ := strings.Cut(strings.TrimLeft(st, "\t"), " //"); r == "return v" {
				body[i] = strings.Replace(st, "return v", "return "+strings.Join(vs, ", "), 1)
			}
		}
	}
	decls = append(decls, fmt.Sprintf("func %s%s(%s) %s {\n\t%s\n}", name, sg.tparam, params, ts, strings.Join(body, "\n\t")))
	if elided {
		written := t
		if p, ok := t.Underlying().(*types.Pointer); ok {
			written = p.Elem()
			open += "&"
		}
		// In the user's code: its own names of type parameters.
		tn, err := sg.g.typeName(sg.pc, sg.self, written)
		if err != nil {
			return err
		}
		if namesOtherPackage(written, sg.self) {
			// The user's file may not import that package, or not by
			// that name: an alias in the helpers' file, of the package.
			if tps != nil && tps.Len() > 0 {
				return fmt.Errorf("an element {...} of a literal whose type is of another package, in a generic function, is not instrumented yet")
			}
			alias := sg.name("type")
			sg.decls = append(sg.decls, "type "+alias+" = "+tn)
			tn = alias
		}
		open += tn
	}
	from, to := fi.tf.Offset(e.Pos()), fi.tf.Offset(e.End())
	if isVariable {
		// The helper takes the variable's address, which escapes already.
		text := open + "&" + e.(*ast.Ident).Name + ");"
		switch {
		case movedAt.cond != nil:
			// if x := f(); pmm__alloc8(&x) != nil && (cond) {: the
			// helper's result is never nil, and cond is evaluated after.
			from, to := fi.tf.Offset(movedAt.cond.Pos()), fi.tf.Offset(movedAt.cond.End())
			sg.edits = append(sg.edits,
				Edit{Off: from, End: from, Text: strings.TrimSuffix(text, ";") + " != nil && (", Order: outerFirst(from, to+1)},
				Edit{Off: to, End: to, Text: ")", Order: orderOuterEnd})
		case movedAt.switchStmt != nil:
			kw, init, after, end := switchParts(movedAt.switchStmt)
			if sg.holdsSite(fi.pkg.Fset.Position(kw), fi.pkg.Fset.Position(init)) {
				return fmt.Errorf("a variable of a switch's init moved to the heap, where another site begins at the switch, is not instrumented yet")
			}
			keyword := " switch "
			if l := movedAt.label; l != nil {
				// The label goes into the block, on the switch.
				keyword = " " + l.Label.Name + ": switch "
				sg.edits = append(sg.edits, Edit{Off: fi.tf.Offset(l.Pos()), End: fi.tf.Offset(l.Colon) + 1, Text: "", Order: orderMoved})
			}
			sg.edits = append(sg.edits,
				Edit{Off: fi.tf.Offset(kw), End: fi.tf.Offset(init), Text: "{", Order: orderMoved},
				Edit{Off: fi.tf.Offset(after), End: fi.tf.Offset(end), Text: "; " + text + keyword, Order: orderMoved},
				Edit{Off: fi.tf.Offset(movedAt.switchStmt.End()), End: fi.tf.Offset(movedAt.switchStmt.End()), Text: "}", Order: orderWrapEnd})
		case movedAt.loop != nil:
			l := movedAt.loop
			next := l.Body.Lbrace
			if l.Post != nil {
				next = l.Post.Pos()
			}
			sg.edits = append(sg.edits, Edit{Off: fi.tf.Offset(l.Init.End()), End: fi.tf.Offset(next), Text: "; " + strings.TrimSuffix(text, ";") + " != nil; ", Order: orderMoved})
			if movedAt.endless {
				var stmt ast.Node = l
				if lab, ok := parentOf(path, l).(*ast.LabeledStmt); ok {
					stmt = lab
				}
				end := fi.tf.Offset(stmt.End())
				sg.edits = append(sg.edits, Edit{Off: end, End: end, Text: `; panic("pmm: unreachable")`, Order: orderWrapEnd})
			}
		case movedAt.afterStmt:
			sg.edits = append(sg.edits, Edit{Off: movedAt.off, End: movedAt.off, Text: ";" + text, Order: orderMoved})
		default:
			sg.edits = append(sg.edits, Edit{Off: movedAt.off, End: movedAt.off, Text: text, Order: orderMoved})
		}
	}
	closing, closingOrder := ")", orderWrapEnd
	up := parentOf(path, e)
	for paren, ok := up.(*ast.ParenExpr); ok; paren, ok = up.(*ast.ParenExpr) {
		up = parentOf(path, paren)
	}
	if amp, ok := up.(*ast.UnaryExpr); ok && amp.Op == token.AND && !elided {
		// &[]T{...}: the helper's result is no operand of &; its copy,
		// through a pointer, is (&*ref(v) is ref's v, on the heap where
		// the pointer escapes, as the literal's header was).
		ref := sg.name("ref")
		sg.decls = append(sg.decls, fmt.Sprintf("func %s%s(v %s) *%s {\n\treturn &v\n}", ref, sg.tparam, ts, ts))
		open, closing = "*"+ref+sg.uargs+"("+open, closing+")"
	}
	if isVariadic {
		from, to = fi.tf.Offset(extra[0].Pos()), fi.tf.Offset(extra[len(extra)-1].End())
		closing, closingOrder = ")...", orderOuterEnd
	}
	switch {
	case isMapAssign:
		// After the assignment: the allocations of the map's state
		// before it and after, and the end of the block.
		end := fi.tf.Offset(assignment.stmt.End())
		sg.edits = append(sg.edits, Edit{Off: end, End: end, Text: "; " + open + assignment.mapText + ")}", Order: orderOuterEnd})
	case !isVariable:
		sg.edits = append(sg.edits,
			Edit{Off: from, End: from, Text: open, Order: outerFirst(from, to)},
			Edit{Off: to, End: to, Text: closing, Order: closingOrder})
	}
	if why := allocInexact(info, s.Label, e, path, sizes(fi)); why != "" {
		for _, t := range s.Targets {
			g.code.Inexact = append(g.code.Inexact, plan.Inexact{Site: s, Target: t, Reason: why})
		}
	}
	fd := enclosingDecl(path)
	// (Every copy of a channel's make allocates on the heap, and every
	// copy of a map's assignment what the map needs.)
	noinline := fd != nil && !isChan && !isMapAssign && !g.notInlined[fd] && !hasDirective(fd, "//go:noinline")
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

// movedPoint is where the allocation of a variable moved to the heap is
// recorded: at offset off of the file, after the statement that ends
// there (afterStmt) or before the first statement of a body; or before
// an if's condition cond.
type movedPoint struct {
	off        int
	afterStmt  bool
	cond       ast.Expr
	switchStmt ast.Stmt         // a switch or type switch whose init declares it
	label      *ast.LabeledStmt // switchStmt's label, if any
	loop       *ast.ForStmt     // a for statement without a condition whose init declares it
	endless    bool             // no break leaves loop
}

// variableAllocation finds where the runtime allocates the variable id
// declares, when escape analysis moves it to the heap, or says why pmm
// does not record it: after its declaration statement; at the top of
// its function's body for a parameter, receiver or result; at the top
// of the body for a range statement's variables (one each iteration
// since Go 1.22) and a select case's.
func variableAllocation(fi *fileInfo, path []ast.Node, id *ast.Ident) (movedPoint, string) {
	at := func(p token.Pos) int { return fi.tf.Offset(p) }
	parent := parentOf(path, id)
	switch p := parent.(type) {
	case *ast.Field: // a parameter, receiver or result: copied at entry
		body := enclosingBody(path) // its function's: the innermost on path
		if body == nil {
			return movedPoint{}, "pmm bug: a moved parameter of no function body"
		}
		return movedPoint{off: at(body.Lbrace) + 1}, ""
	case *ast.AssignStmt, *ast.ValueSpec:
		stmt := ast.Node(p)
		if _, ok := p.(*ast.ValueSpec); ok {
			stmt = parentOf(path, parentOf(path, p)) // the DeclStmt of the GenDecl
			if _, ok := stmt.(*ast.DeclStmt); !ok {
				return movedPoint{}, "pmm bug: a moved variable declared outside a statement"
			}
		}
		switch holder := parentOf(path, stmt).(type) {
		case *ast.BlockStmt, *ast.CaseClause, *ast.LabeledStmt:
			return movedPoint{off: at(stmt.End()), afterStmt: true}, ""
		case *ast.CommClause:
			if holder.Comm == stmt { // case v := <-ch: at the top of its body
				return movedPoint{off: at(holder.Colon) + 1}, ""
			}
			return movedPoint{off: at(stmt.End()), afterStmt: true}, ""
		case *ast.ForStmt:
			// Since Go 1.22 the variable is copied to a new one before
			// each post statement: one object for the init and one for
			// each post, as many as the condition's evaluations.
			if v := fi.pkg.TypesInfo.FileVersions[fi.file]; v != "" && version.Compare(v, "go1.22") < 0 {
				return movedPoint{}, "before Go 1.22 a for statement's variables are one for the whole loop: not instrumented"
			}
			if holder.Cond == nil {
				// A condition that always holds, pmm__alloc9(&i) != nil,
				// evaluated as often: after the init and each post. A
				// loop no break leaves was a terminating statement; a
				// panic after it keeps the function's end unreachable.
				label := ""
				if l, ok := parentOf(path, holder).(*ast.LabeledStmt); ok {
					label = l.Label.Name
				}
				return movedPoint{loop: holder, endless: !breaks(holder, label)}, ""
			}
			return movedPoint{cond: holder.Cond}, ""
		case *ast.IfStmt:
			return movedPoint{cond: holder.Cond}, ""
		case *ast.SwitchStmt, *ast.TypeSwitchStmt:
			// switch x := f(); tag { becomes { x := f(); pmm__alloc8(&x); switch tag {,
			// a block of the same scope. A label of the switch goes
			// into the block with it (a break of it would name the
			// block), unless a goto names it (it would jump into the
			// block).
			if sw, ok := holder.(*ast.SwitchStmt); ok && sw.Init != stmt {
				break
			}
			if sw, ok := holder.(*ast.TypeSwitchStmt); ok && sw.Init != stmt {
				break
			}
			label, _ := parentOf(path, holder).(*ast.LabeledStmt)
			if label != nil && gotoTarget(enclosingBody(path), label.Label.Name) {
				return movedPoint{}, "a variable of the init of a switch a goto names moved to the heap is not instrumented yet"
			}
			return movedPoint{switchStmt: holder.(ast.Stmt), label: label}, ""
		}
		return movedPoint{}, "a variable moved to the heap declared where pmm does not record it yet"
	case *ast.RangeStmt:
		if v := fi.pkg.TypesInfo.FileVersions[fi.file]; v != "" && version.Compare(v, "go1.22") < 0 {
			return movedPoint{}, "before Go 1.22 a range statement's variables are one for the whole loop, allocated before it: not instrumented"
		}
		return movedPoint{off: at(p.Body.Lbrace) + 1}, ""
	}
	return movedPoint{}, "a variable moved to the heap declared where pmm does not record it yet"
}

// switchParts are the positions of switch statement st with an init:
// its keyword, its init, the init's end, and what follows the ";" after
// it (the tag, the type switch's guard, or the body's brace).
func switchParts(st ast.Stmt) (kw, init, after, next token.Pos) {
	switch st := st.(type) {
	case *ast.SwitchStmt:
		next = st.Body.Lbrace
		if st.Tag != nil {
			next = st.Tag.Pos()
		}
		return st.Switch, st.Init.Pos(), st.Init.End(), next
	case *ast.TypeSwitchStmt:
		return st.Switch, st.Init.Pos(), st.Init.End(), st.Assign.Pos()
	}
	panic("pmm bug: no switch")
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
	case "variable":
		// Go 1.26 allocates the pointer-free variables under 16 bytes a
		// block moves to the heap together, up to 16 bytes, in one
		// object (ssagen's newHeapaddr).
		var t types.Type
		if id, ok := e.(*ast.Ident); ok {
			if v, ok := info.Defs[id].(*types.Var); ok {
				t = v.Type()
			} else if cl, ok := path[len(path)-1].(*ast.CaseClause); ok && info.Implicits[cl] != nil {
				t = info.Implicits[cl].Type()
			}
		}
		if t != nil && aggregable(t, sz) && smallPartner(info, path, sz) {
			return "Go 1.26 allocates the variables under 16 bytes without pointers that one block moves to the heap together, up to 16 bytes, in one object; " +
				"pmm counts an object each (their bytes are the same)"
		}
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
		// (In a generic function, an instantiation's elements may be.)
		if sl, ok := static.CoreType(v.Type()).(*types.Slice); ok && (static.LayoutHasTypeParam(sl.Elem()) || sz.Sizeof(sl.Elem()) <= stackAppendBytes) {
			return "Go may keep the first growths of this append (to 32 bytes) on the stack and move the slice to the heap where it escapes; " +
				"through pmm's helper it allocates each growth on the heap: pmm counts those of the instrumented program"
		}
	}
	return ""
}

// chanRecorded says why pmm does not record the objects of a make of
// channel type t, or "": their sizes follow the runtime's hchan, which
// pmm knows for some versions of the toolchain that builds the program
// (goVersion) only.
func chanRecorded(goVersion string, t types.Type) string {
	if static.LayoutHasTypeParam(t.Underlying().(*types.Chan).Elem()) {
		return "a channel of a type parameter's elements is not instrumented yet: each instantiation's elements decide its objects"
	}
	if !runtimeLayoutKnown(goVersion) {
		return fmt.Sprintf("a channel's objects are not instrumented for %s: pmm knows the size of the runtime's channel header for Go 1.26", goVersionOrUnknown(goVersion))
	}
	return ""
}

// runtimeLayoutKnown reports whether rt/pmmrt's ChanHeader is the size
// of the channel header of the runtime of Go goVersion ("go1.26.1"),
// and its maps.go reads that runtime's maps.
func runtimeLayoutKnown(goVersion string) bool {
	return version.Lang(goVersion) == "go1.26"
}

func goVersionOrUnknown(v string) string {
	if v == "" {
		return "an unknown Go version"
	}
	return v
}

// chanObjects are the statements that compute, over the made channel v,
// the bytes of the objects makechan allocates: the header and its
// buffer in one object without pointers (n, and rest = 0), or, for a
// buffer of elements with pointers, the header (n) and the buffer
// (rest), both scanned; elems is the first object's elements and
// pointers whether it holds pointers.
func chanObjects(rt string, elem types.Type, sz types.Sizes) []string {
	lines := []string{
		fmt.Sprintf("n, rest, elems, pointers := int64(%s.ChanHeader)+int64(cap(v))*%d, int64(0), int64(cap(v)), false", rt, sz.Sizeof(elem)),
		"_, _ = elems, pointers // (read only where a question asks for them)",
	}
	if static.HasPointers(elem) {
		lines = append(lines, fmt.Sprintf("if n > %s.ChanHeader {", rt),
			fmt.Sprintf("\tn, rest, elems, pointers = %s.ChanHeader, n-%s.ChanHeader, 0, true", rt, rt),
			"}")
	}
	return lines
}

// resultBoxes are the statements of a helper of f(g()) (its parameters
// v0, v1, ... g's results) that set boxes: for each result f's
// variadic parameter of interface type boxes by allocating, its bytes
// (0 where the value is one the runtime boxes without allocating) and
// pointers. Only a call whose parameters are one variadic slice: its
// elements escape together, as the one site's heap says of them all.
func resultBoxes(info *types.Info, path []ast.Node, e ast.Expr, results *types.Tuple, sz types.Sizes, unsafeName func() string) ([]string, error) {
	call, ok := parentOf(path, e).(*ast.CallExpr)
	var sig *types.Signature
	if ok {
		sig, ok = info.TypeOf(call.Fun).Underlying().(*types.Signature)
	}
	if !ok || !sig.Variadic() || sig.Params().Len() != 1 || call.Ellipsis.IsValid() {
		return nil, fmt.Errorf("the values of a call's results converted to interfaces, f(g()), are not instrumented where f has parameters besides one variadic")
	}
	boxed := types.IsInterface(sig.Params().At(0).Type().(*types.Slice).Elem())
	var lines []string
	for i := range results.Len() {
		t := results.At(i).Type()
		if !boxed || types.IsInterface(t) || static.BoxedBy(sz, t) == "" {
			continue
		}
		size, pointers, skip, err := valueAllocation(info, e, t, sz, unsafeName)
		if err != nil {
			return nil, err
		}
		v := fmt.Sprintf("v%d", i)
		k := len(lines)
		if skip == "" {
			lines = append(lines, fmt.Sprintf("boxes[%d] = pmm__box{%d, %t}", k, size, pointers))
			continue
		}
		lines = append(lines, fmt.Sprintf("if !(%s) {\n\t\tboxes[%d] = pmm__box{%d, %t}\n\t}", strings.ReplaceAll(skip, "(&v)", "(&"+v+")"), k, size, pointers))
	}
	return append([]string{"type pmm__box struct {\n\t\tn        int64\n\t\tpointers bool\n\t}", fmt.Sprintf("var boxes [%d]pmm__box", len(lines))}, lines...), nil
}

// valueAllocation is the object the runtime allocates for e, a value
// converted to an interface (its type t) or a method value: its size,
// whether it holds pointers, and the Go condition over the helper's
// value v under which the runtime allocates none (convT16, convT32 and
// convT64 of a value under 256, convTstring of "", convTslice of a nil
// slice: static.BoxedBy), or "".
func valueAllocation(info *types.Info, e ast.Expr, t types.Type, sz types.Sizes, unsafeName func() string) (int64, bool, string, error) {
	if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok && info.Selections[sel] != nil && info.Selections[sel].Kind() == types.MethodVal {
		// The closure: the method's code, then the receiver as the
		// method takes it (a pointer, a copy of the value, the
		// interface) (cmd/compile's typecheck.MethodValueType).
		recv := info.Selections[sel].Obj().Type().(*types.Signature).Recv().Type()
		if static.LayoutHasTypeParam(recv) {
			return 0, false, "", fmt.Errorf("a method value of a receiver of a type parameter's type is not instrumented yet")
		}
		closure := types.NewStruct([]*types.Var{
			types.NewField(token.NoPos, nil, "F", types.Typ[types.Uintptr], false),
			types.NewField(token.NoPos, nil, "R", recv, false),
		}, nil)
		return sz.Sizeof(closure), static.HasPointers(recv), "", nil
	}
	if static.LayoutHasTypeParam(t) {
		return 0, false, "", fmt.Errorf("a value of a type parameter's type converted to an interface is not instrumented yet: each instantiation's type decides whether it allocates")
	}
	word := func(as string) string {
		u := unsafeName()
		return "*(*" + strings.ReplaceAll(as, "unsafe.", u+".") + ")(" + u + ".Pointer(&v))"
	}
	skip := ""
	switch static.BoxedBy(sz, t) {
	case "convT16":
		skip = word("uint16") + " < 256"
	case "convT32":
		skip = word("uint32") + " < 256"
	case "convT64":
		skip = word("uint64") + " < 256"
	case "convTstring":
		skip = word("string") + ` == ""`
	case "convTslice":
		skip = word("unsafe.Pointer") + " == nil"
	}
	return sz.Sizeof(t), static.HasPointers(t), skip, nil
}

// aggregable reports whether Go 1.26 may allocate a variable of type t
// moved to the heap in one object with others: without pointers, under
// 16 bytes (ssagen's newHeapaddr), or of a type parameter's layout.
func aggregable(t types.Type, sz types.Sizes) bool {
	return static.LayoutHasTypeParam(t) || !static.HasPointers(t) && sz.Sizeof(t) > 0 && sz.Sizeof(t) < 16
}

// smallPartner reports whether the innermost function on path has
// another variable, besides the one asked about, that may be moved to the heap
// with it in one object: aggregable, and its address taken (&x, x[:] of
// an array, a method of a pointer receiver) or used in a function
// literal (a superset of the variables escape analysis moves).
func smallPartner(info *types.Info, path []ast.Node, sz types.Sizes) bool {
	var fn ast.Node
	for i := len(path) - 1; i >= 0 && fn == nil; i-- {
		switch f := path[i].(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			fn = f
		}
	}
	if fn == nil {
		return false
	}
	candidates := 0
	seen := map[*types.Var]bool{}
	var lits []*ast.FuncLit
	ast.Inspect(fn, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && lit != fn {
			lits = append(lits, lit)
		}
		return true
	})
	note := func(id *ast.Ident) {
		if v, ok := info.Uses[id].(*types.Var); ok && !v.IsField() && !seen[v] && v.Pkg() != nil && v.Parent() != v.Pkg().Scope() && aggregable(v.Type(), sz) {
			seen[v] = true
			candidates++
		}
	}
	ast.Inspect(fn, func(n ast.Node) bool {
		var x ast.Expr // an operand whose address is taken
		switch n := n.(type) {
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				x = n.X
			}
		case *ast.SliceExpr: // of an array
			x = n.X
		case *ast.SelectorExpr: // a method of a pointer receiver: &x implied
			if sel := info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal {
				if _, ptr := sel.Obj().Type().(*types.Signature).Recv().Type().(*types.Pointer); ptr {
					x = n.X
				}
			}
		}
		if id, ok := ast.Unparen(x).(*ast.Ident); ok {
			note(id)
		}
		return true
	})
	for _, lit := range lits {
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if v, ok := info.Uses[id].(*types.Var); ok && (v.Pos() < lit.Pos() || v.Pos() >= lit.End()) {
					note(id)
				}
			}
			return true
		})
	}
	// The variable itself is among them (its address is taken, or a
	// literal uses it): another makes two.
	return candidates >= 2
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

// closureSize is the size of the object a function literal that
// captures variables allocates, and whether it holds pointers: its code
// pointer, then each captured variable, by value when the compiler
// captures it so (at most 128 bytes, never assigned after its
// declaration nor its address taken), else by reference.
func closureSize(info *types.Info, lit *ast.FuncLit, sizes types.Sizes, path []ast.Node) (int64, bool) {
	fields := []*types.Var{types.NewField(token.NoPos, nil, "F", types.Typ[types.Uintptr], false)}
	pointers := false
	vars, changed := capturedVars(info, lit, path)
	for _, v := range vars {
		t := v.Type()
		if changed[v] || sizes.Sizeof(t) > 128 {
			t = types.NewPointer(t)
		}
		if static.HasPointers(t) {
			pointers = true
		}
		fields = append(fields, types.NewField(token.NoPos, nil, "x"+strconv.Itoa(len(fields)), t, false))
	}
	return sizes.Sizeof(types.NewStruct(fields, nil)), pointers
}

// genericClosureBytes is the expression, in the allocation's helper,
// of the size of the object a function literal in a generic function
// allocates (pmmrt.ClosureBytes): as closureSize's, with the
// instantiation's dictionary captured last, and the sizes of variables
// of a type parameter's type, and so whether they are captured by
// value, known at run time. The object holds a pointer, the dictionary.
func (sg *siteGen) genericClosureBytes(info *types.Info, lit *ast.FuncLit, sizes types.Sizes, path []ast.Node) (string, error) {
	rt, unsafe := sg.pc.Imports[sg.g.rtPath], sg.pc.importName("unsafe")
	vars, changed := capturedVars(info, lit, path)
	var fields []string
	for _, v := range vars {
		t := v.Type()
		switch {
		case changed[v] || !static.LayoutHasTypeParam(t) && sizes.Sizeof(t) > 128:
			fields = append(fields, fmt.Sprintf("%s.Captured{Size: %d, Align: %d}", rt, sizes.Sizeof(types.Typ[types.UnsafePointer]), sizes.Alignof(types.Typ[types.UnsafePointer])))
		case !static.LayoutHasTypeParam(t):
			fields = append(fields, fmt.Sprintf("%s.Captured{Size: %d, Align: %d, ByValue: true}", rt, sizes.Sizeof(t), sizes.Alignof(t)))
		default:
			ts, err := sg.typeName(t)
			if err != nil {
				return "", err
			}
			fields = append(fields, fmt.Sprintf("%s.Captured{Size: %s.Sizeof(*new(%s)), Align: %s.Alignof(*new(%s)), ByValue: true}", rt, unsafe, ts, unsafe, ts))
		}
	}
	return rt + ".ClosureBytes(" + strings.Join(fields, ", ") + ")", nil
}

// capturedVars are the variables function literal lit captures, in the
// order of their first use in its body (the order of the closure's
// fields), and those of them that the outermost function around lit
// assigns or takes the address of after their declaration
// (static.MarkReassigned), which the compiler captures by reference.
func capturedVars(info *types.Info, lit *ast.FuncLit, path []ast.Node) ([]*types.Var, map[*types.Var]bool) {
	var outer ast.Node = lit
	for i := len(path) - 2; i >= 0; i-- {
		if _, ok := path[i].(*ast.FuncDecl); ok {
			outer = path[i]
			break
		}
	}
	changed := map[*types.Var]bool{}
	static.MarkReassigned(info, outer, changed)
	var vars []*types.Var
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
		vars = append(vars, v)
		return true
	})
	return vars, changed
}

// evaluatedEarlier says why x, an operand that pmm's helper turns into
// a call, is not wrapped, or "": Go evaluates an operand that is no call
// after the calls and receives of its statement (gc does so), and a
// call in their lexical order, so a helper's call would read x's
// variables before a call that follows it in the statement changes
// them. x is wrapped when it reads no variable or no call follows it.
func evaluatedEarlier(info *types.Info, path []ast.Node, x ast.Expr) string {
	switch x := ast.Unparen(x).(type) {
	case *ast.FuncLit:
		return "" // a closure captures variables, which no call changes
	case *ast.CallExpr:
		// A call (its result converted to an interface) is evaluated in
		// its lexical order, its operands with it: so is the helper's.
		if tv := info.Types[x.Fun]; !tv.IsType() && !tv.IsBuiltin() {
			return ""
		}
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

// namesOtherPackage reports whether writing t takes the name of a
// package other than self.
func namesOtherPackage(t types.Type, self *types.Package) bool {
	other := false
	types.TypeString(t, func(p *types.Package) string {
		other = other || !samePackage(p, self)
		return p.Name()
	})
	return other
}
