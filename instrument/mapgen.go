package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"pmm.dev/pmm/static"
)

// Maps (issue 13): what the runtime allocates for a map, which the
// compiler does not say, read from the map itself by rt/pmmrt
// (maps.go): a make's or a literal's objects from the made map, an
// assignment's from the map before and after it:
//
//	m[k] = f(x)  →  {var pmm__m9 pmm__state9; m[pmm__key9(&pmm__m9, k)] = pmm__mapstate9(&pmm__m9, m, f(x)); pmm__alloc9(&pmm__m9, m)}
//	m[k]++       →  {var pmm__m9 pmm__state9; m[pmm__key9(&pmm__m9, m, k)]++; pmm__alloc9(&pmm__m9, m)}
//
// The key is evaluated once, as written, and kept for its hash; the
// map's state is taken after the value is evaluated (which may itself
// put elements in the map: a memo's recursion), before the element is
// assigned; the allocations are recorded after it. The map is
// evaluated again (as written, so only an expression without calls).

// mapElementExpr finds the element m[k] assigned at offsets start (its
// '[') to end (static.allocFinder's span of a map-assign site).
func mapElementExpr(fi *fileInfo, start, end int) (ast.Expr, []ast.Node) {
	n, path := firstPath(fi.file, fi.tf, start, end, func(n ast.Node) bool {
		ix, ok := n.(*ast.IndexExpr)
		return ok && fi.tf.Offset(ix.Lbrack) == start && fi.tf.Offset(ix.End()) == end
	})
	if n == nil {
		return nil, nil
	}
	return n.(ast.Expr), path
}

// mapAssignment is an assignment to a map's element, as pmm rewrites it.
type mapAssignment struct {
	stmt ast.Stmt       // the assignment or the ++/--
	ix   *ast.IndexExpr // m[k]
	// rhs is the value, when its evaluation may have effects (a call,
	// a receive): the map's state is taken after it. Otherwise nil, and
	// the state is taken as the key is evaluated.
	rhs     ast.Expr
	rhsType types.Type // what the value's helper takes and returns
	mapText string     // m, as written
}

// mapAssignmentOf finds the assignment whose element is ix, or says why
// pmm does not record it.
func mapAssignmentOf(info *types.Info, path []ast.Node, ix *ast.IndexExpr) (mapAssignment, string) {
	ma := mapAssignment{ix: ix, mapText: types.ExprString(ix.X)}
	switch st := parentOf(path, ix).(type) {
	case *ast.AssignStmt:
		if len(st.Lhs) != 1 || len(st.Rhs) != 1 {
			return ma, "an assignment of several values, one to a map's element, is not instrumented yet"
		}
		ma.stmt = st
		if mayHaveEffects(info, st.Rhs[0]) {
			ma.rhs, ma.rhsType = st.Rhs[0], info.TypeOf(ix)
			if st.Tok == token.SHL_ASSIGN || st.Tok == token.SHR_ASSIGN {
				ma.rhsType = info.TypeOf(st.Rhs[0]) // the shift's count
			}
			if b, ok := ma.rhsType.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
				return ma, "an assignment to a map's element of an untyped value that calls is not instrumented yet"
			}
		}
	case *ast.IncDecStmt:
		ma.stmt = st
	default:
		return ma, "pmm bug: the element of the map-assign site at " + types.ExprString(ix) + " is not assigned"
	}
	if !inStatementList(path, ma.stmt) {
		return ma, "an assignment to a map's element in an if's, for's or switch's header, or a select's case, is not instrumented yet"
	}
	if !withoutEffects(info, ix.X) {
		return ma, "an assignment to the element of a map that an expression with calls gives is not instrumented yet " +
			"(pmm reads the map again after the assignment)"
	}
	return ma, ""
}

// inStatementList reports whether stmt (or the labeled statement it is)
// stands in a block's, a case's or a select case's list of statements,
// where a block can take its place.
func inStatementList(path []ast.Node, stmt ast.Stmt) bool {
	parent := parentOf(path, stmt)
	if l, ok := parent.(*ast.LabeledStmt); ok {
		parent = parentOf(path, l)
	}
	switch p := parent.(type) {
	case *ast.BlockStmt, *ast.CaseClause:
		return true
	case *ast.CommClause:
		return p.Comm != stmt
	}
	return false
}

// mayHaveEffects reports whether evaluating e may call a function or
// receive: what could change a map.
func mayHaveEffects(info *types.Info, e ast.Expr) bool {
	effects := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if !info.Types[n.Fun].IsType() {
				effects = true
			}
		case *ast.UnaryExpr:
			effects = effects || n.Op == token.ARROW
		case *ast.FuncLit:
			return false // made, not run
		}
		return !effects
	})
	return effects
}

// withoutEffects reports whether e is a variable, a field, an element,
// a constant, or an operation, a conversion or a builtin that only reads
// of them: what evaluating again gives the same value without doing
// anything else (but panic as it did).
func withoutEffects(info *types.Info, e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return withoutEffects(info, e.X)
	case *ast.StarExpr:
		return withoutEffects(info, e.X)
	case *ast.SelectorExpr:
		if sel := info.Selections[e]; sel != nil {
			return sel.Kind() == types.FieldVal && withoutEffects(info, e.X)
		}
		return true // a package's name
	case *ast.IndexExpr:
		return withoutEffects(info, e.X) && withoutEffects(info, e.Index)
	case *ast.BinaryExpr:
		return withoutEffects(info, e.X) && withoutEffects(info, e.Y)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && withoutEffects(info, e.X)
	case *ast.CallExpr:
		// A conversion, or a builtin that only reads.
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok && info.Types[e.Fun].IsBuiltin() && !slices.Contains([]string{"len", "cap", "min", "max", "real", "imag", "complex"}, id.Name) {
			return false
		} else if !ok && !info.Types[e.Fun].IsType() {
			return false
		}
		for _, a := range e.Args {
			if !withoutEffects(info, a) {
				return false
			}
		}
		return info.Types[e.Fun].IsType() || info.Types[e.Fun].IsBuiltin()
	}
	return false
}

// mayHoldNaN reports whether a key of type t may be a NaN, or hold one,
// whose hash the runtime draws at random: floats, complex numbers,
// interfaces and type parameters, and arrays and structs of them.
func mayHoldNaN(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsFloat|types.IsComplex) != 0
	case *types.Interface:
		return true
	case *types.Array:
		return mayHoldNaN(u.Elem())
	case *types.Struct:
		for f := range u.Fields() {
			if mayHoldNaN(f.Type()) {
				return true
			}
		}
	}
	return false
}

// mapAssignmentEdits are the helpers and edits of assignment ma (the
// site's state type state, its variable in the user's block v, the
// map's type ts), but for the statement that records the allocations
// after it (allocationSite's).
func (sg *siteGen) mapAssignmentEdits(ma mapAssignment, state, v, ts string) ([]string, error) {
	fi, info := sg.fi, sg.fi.pkg.TypesInfo
	mt := static.CoreType(info.TypeOf(ma.ix.X)).(*types.Map)
	keyType, err := sg.typeName(mt.Key())
	if err != nil {
		return nil, err
	}
	key, before := sg.name("key"), sg.name("mapstate")
	st := "s *" + state + sg.targs
	takeState := fmt.Sprintf("s.mapWrite.Before(m, %s.Pointer(&s.mapKey), %t)", sg.pc.importName("unsafe"), mayHoldNaN(mt.Key()))
	at := func(p token.Pos) int { return fi.tf.Offset(p) }
	wrap := func(e ast.Expr, open string) {
		from, to := at(e.Pos()), at(e.End())
		sg.edits = append(sg.edits,
			Edit{Off: from, End: from, Text: open, Order: outerFirst(from, to+1)},
			Edit{Off: to, End: to, Text: ")", Order: orderWrapEnd})
	}
	var decls []string
	if ma.rhs == nil {
		decls = append(decls, fmt.Sprintf("func %s%s(%s, m %s, k %s) %s {\n\ts.mapKey = k\n\t%s\n\treturn k\n}", key, sg.tparam, st, ts, keyType, keyType, takeState))
		wrap(ma.ix.Index, key+sg.uargs+"(&"+v+", "+ma.mapText+", ")
	} else {
		valueType, err := sg.typeName(ma.rhsType)
		if err != nil {
			return nil, err
		}
		decls = append(decls,
			fmt.Sprintf("func %s%s(%s, k %s) %s {\n\ts.mapKey = k\n\treturn k\n}", key, sg.tparam, st, keyType, keyType),
			fmt.Sprintf("func %s%s(%s, m %s, x %s) %s {\n\t%s\n\treturn x\n}", before, sg.tparam, st, ts, valueType, valueType, takeState))
		wrap(ma.ix.Index, key+sg.uargs+"(&"+v+", ")
		wrap(ma.rhs, before+sg.uargs+"(&"+v+", "+ma.mapText+", ")
	}
	from := at(ma.stmt.Pos())
	sg.edits = append(sg.edits, Edit{Off: from, End: from, Text: "{var " + v + " " + state + sg.uargs + "; ", Order: orderMoved})
	return decls, nil
}
