package instrument

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"
	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/spec"
)

// The data-conditions of a site (seed A.1, Data-condition): Go
// expressions of the source program, evaluated in the scope of the body
// of the function an execution runs, at its begin point (a definition
// site passes the value to enter) or at its end point (exit evaluates it
// through pointers to the variables it reads, once the body's deferred
// calls ran). Where the expression does not compile (a function without
// the variables it names) the execution has no such attribute: the
// event cannot match there, and the site records no data-condition tuple
// and passes no test of it.

// dataCondFields lists the data-conditions the site's tuples and filters
// read, each once, by expression and point.
func (sg *siteGen) dataCondFields() []plan.Field {
	var out []plan.Field
	seen := map[plan.Field]bool{}
	for _, f := range sg.fieldsRead() {
		if f.Cap == plan.CapDataCond && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return out
}

// dataCondPrefix is the prefix of the state fields of data-conditions
// taken at a point.
func dataCondPrefix(point int) string {
	if point == plan.PointEnd {
		return "de"
	}
	return "dc"
}

// dataCondValue finds the state field of data-condition f among vals.
func dataCondValue(vals map[string]value, f plan.Field) (string, value, bool) {
	for name, v := range vals {
		if strings.HasPrefix(name, dataCondPrefix(f.N)) && v.expr == f.Expr && v.walk == f.Walk && v.member == f.Member {
			return name, v, true
		}
	}
	return "", value{}, false
}

// noDataCond marks data-condition f as one the site's executions do not
// have.
func (sg *siteGen) noDataCond(f plan.Field) {
	if sg.absentConds == nil {
		sg.absentConds = map[plan.Field]bool{}
	}
	sg.absentConds[f] = true
}

// endDataCond adds data-condition f taken at the end point of the
// execution of a definition site whose body is body: a helper that
// evaluates it (evalHelper), and the after-form that calls it. It
// returns the exit function's parameters and the arguments the deferred
// call passes; ok is false when the expression does not compile in the
// body's scope.
func (sg *siteGen) endDataCond(body *ast.BlockStmt, f plan.Field, k int) (params, args []string, ok bool, err error) {
	call, params, args, t, ok, err := sg.evalHelper(body.Lbrace+1, f, true, "dcend"+strconv.Itoa(k)+"_")
	if !ok || err != nil {
		return nil, nil, ok, err
	}
	ts, err := sg.typeName(t)
	if err != nil {
		return nil, nil, false, err
	}
	field := dataCondPrefix(plan.PointEnd) + strconv.Itoa(k)
	sg.declare(field, ts)
	sg.declare(field+"ok", "bool")
	sg.vals[field] = value{field: field, typ: t, expr: f.Expr, walk: f.Walk, member: f.Member}
	sg.tmpl.After = append(sg.tmpl.After, fmt.Sprintf("s.%s, s.%sok = %s", field, field, call))
	return params, args, true, nil
}

// evalHelper declares a helper, named for prefix, that evaluates the Go
// expression of data-condition f in the scope at pos through pointers
// to the local variables it reads (the function's parameters, results
// and receiver, the variables a closure captures), and, with walk, walks
// the heap from its value as f says. The expression may panic (a nil
// pointer, an index out of range) where the program did not: it then
// has no value (ok false), and the program goes on as it would have. It
// returns the helper's call over its parameters params (pointers, named
// so), the arguments a caller passes for them, and the value's type;
// compiles is false when the expression does not compile there.
func (sg *siteGen) evalHelper(pos token.Pos, f plan.Field, walk bool, prefix string) (call string, params, args []string, t types.Type, compiles bool, err error) {
	expr := f.Expr
	fset := token.NewFileSet()
	x, err := parser.ParseExprFrom(fset, "", expr, 0)
	if err != nil {
		return "", nil, nil, nil, false, nil
	}
	pkg := sg.fi.pkg
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}}
	if types.CheckExpr(pkg.Fset, pkg.Types, pos, x, info) != nil {
		return "", nil, nil, nil, false, nil
	}
	t = types.Default(info.Types[x].Type)
	reads := map[string]bool{}
	ast.Inspect(x, func(n ast.Node) bool {
		id, isID := n.(*ast.Ident)
		if !isID || err != nil {
			return err == nil
		}
		switch obj := info.Uses[id].(type) {
		case *types.PkgName:
			err = &namesPackageError{fmt.Sprintf("data-condition %q in %s names package %s, which its helper does not import", expr, sg.s.Function, obj.Name())}
		case *types.Var:
			if obj.IsField() || obj.Parent() == pkg.Types.Scope() {
				return true
			}
			ts, terr := sg.typeName(obj.Type())
			if terr != nil {
				err = terr
				return false
			}
			p := sg.p + "v_" + id.Name
			if !reads[id.Name] {
				reads[id.Name] = true
				params = append(params, p+" *"+ts)
				args = append(args, "&"+id.Name)
			}
			id.Name = "(*" + p + ")"
		}
		return true
	})
	if err != nil {
		return "", nil, nil, nil, false, err
	}
	var text bytes.Buffer
	if err := printer.Fprint(&text, fset, x); err != nil {
		return "", nil, nil, nil, false, err
	}
	result := text.String()
	if walk && f.Walk != "" {
		t, result = types.Typ[types.Int64], sg.walkCall(f, result)
	}
	ts, err := sg.typeName(t)
	if err != nil {
		return "", nil, nil, nil, false, err
	}
	helper := sg.name(prefix)
	var names []string
	for _, p := range params {
		names = append(names, strings.Fields(p)[0])
	}
	sg.decls = append(sg.decls, fmt.Sprintf("func %s%s(%s) (v %s, ok bool) {\n\tdefer func() {\n\t\tif recover() != nil {\n\t\t\tok = false\n\t\t}\n\t}()\n\treturn %s, true\n}",
		helper, sg.tparam, strings.Join(params, ", "), ts, result))
	return helper + sg.targs + "(" + strings.Join(names, ", ") + ")", params, args, t, true, nil
}

// namesPackageError says that a data-condition names a package, which
// its helper (evalHelper) does not import.
type namesPackageError struct{ msg string }

func (e *namesPackageError) Error() string { return e.msg }

// beginDataCond adds data-condition f (not a walk) taken at the begin
// point of a definition site whose body is body, in state field field:
// a helper evaluates it (evalHelper: an expression that panics has no
// value, where the program goes on), and begin calls it. It returns the
// parameters enter and begin take for it and the arguments the call
// passes; direct is true when the expression names a package, which
// the helper cannot: enter then takes its value, evaluated in the body
// (as written, where a panic is the program's).
func (sg *siteGen) beginDataCond(body *ast.BlockStmt, f plan.Field, field string) (params, args []string, direct bool, err error) {
	call, params, args, t, _, err := sg.evalHelper(body.Lbrace+1, f, false, "dcbegin"+field+"_")
	if _, ok := err.(*namesPackageError); ok {
		return nil, nil, true, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	ts, err := sg.typeName(t)
	if err != nil {
		return nil, nil, false, err
	}
	sg.declare(field, ts)
	sg.declare(field+"ok", "bool")
	sg.vals[field] = value{field: field, typ: t, expr: f.Expr}
	sg.tmpl.Before = append(sg.tmpl.Before, fmt.Sprintf("s.%s, s.%sok = %s", field, field, call))
	return params, args, false, nil
}

// walkFuncs are the runtime's heap walks, by spec's Recording.Walk.
var walkFuncs = map[string]string{"objects": "ReachObjects", "bytes": "ReachBytes", "both": "Reach"}

// walkCall is the runtime call that walks the heap from root, the Go
// text of data-condition f's value, as f's walk says (docs/MEMORY.md,
// "Heap structures").
func (sg *siteGen) walkCall(f plan.Field, root string) string { return sg.walkCallOf(f.Walk, f, root) }

// walkCallOf is walkCall for the runtime's walk walk ("both": Reach).
func (sg *siteGen) walkCallOf(walk string, f plan.Field, root string) string {
	return sg.pc.Imports[sg.g.rtPath] + "." + walkFuncs[walk] + "(" + root + ", " + strconv.Quote(f.Member) + ", " + strconv.Quote(spec.WalkKey(f.Expr, f.Member)) + ")"
}

// beginWalks are the heap walks a site takes at one point (an
// execution's begin, an allocation), in order: one per expression and
// membership type, which gives both the objects and the bytes (their
// state fields, by Walk) from the value its helper (evalHelper) reads.
type beginWalks []*beginWalk

type beginWalk struct {
	f      plan.Field
	call   string // the helper's call, which gives the root and ok
	fields map[string]string
}

// add adds the walk of field f, in the state field field, whose root
// call gives; it reports whether f is the first of its walk, whose
// helper the site must call.
func (ws *beginWalks) add(f plan.Field, field, call string) bool {
	for _, w := range *ws {
		if w.f.Expr == f.Expr && w.f.Member == f.Member {
			w.fields[f.Walk] = field
			return false
		}
	}
	*ws = append(*ws, &beginWalk{f: f, call: call, fields: map[string]string{f.Walk: field}})
	return true
}

// walkStatements are the statements that take walks ws: the runtime's
// Reach where both the objects and the bytes are asked for; a walk whose
// root panicked has no value (its fields' ok flags stay false).
func (sg *siteGen) walkStatements(ws beginWalks) []string {
	var out []string
	for _, w := range ws {
		objects, bytes := w.fields["objects"], w.fields["bytes"]
		out = append(out, "if v, ok := "+w.call+"; ok {")
		switch {
		case objects != "" && bytes != "":
			out = append(out, fmt.Sprintf("\ts.%s, s.%s = %s", objects, bytes, sg.walkCallOf("both", w.f, "v")),
				fmt.Sprintf("\ts.%sok, s.%sok = true, true", objects, bytes))
		default:
			field := objects + bytes
			out = append(out, "\ts."+field+" = "+sg.walkCall(w.f, "v"), "\ts."+field+"ok = true")
		}
		out = append(out, "}")
	}
	return out
}

// walkField declares the state field of walk f, field, with its ok
// flag, and adds it to ws, evaluating its root in the scope at pos
// (evalHelper); it returns the helper's parameters and the arguments a
// caller passes for them when the site must call it (the first of its
// walk), and compiles false when the root does not compile there.
func (sg *siteGen) walkField(ws *beginWalks, pos token.Pos, f plan.Field, field string) (params, args []string, compiles bool, err error) {
	call, first := "", true
	for _, w := range *ws {
		if w.f.Expr == f.Expr && w.f.Member == f.Member {
			call, first = w.call, false
		}
	}
	if first {
		if call, params, args, _, compiles, err = sg.evalHelper(pos, f, false, "dcroot"+field+"_"); !compiles || err != nil {
			return nil, nil, compiles, err
		}
	}
	sg.declare(field, "int64")
	sg.declare(field+"ok", "bool")
	sg.vals[field] = value{field: field, typ: types.Typ[types.Int64], expr: f.Expr, walk: f.Walk, member: f.Member}
	ws.add(f, field, call)
	return params, args, true, nil
}

// callDataConds decides the data-conditions a call site's tuples read:
// they are evaluated in the body of the function called, which a call
// site cannot reach. Where the expression does not compile in that body,
// or the function has no body in the module, its executions have no
// such attribute; where it compiles, the site is refused.
func (sg *siteGen) callDataConds(call *ast.CallExpr) error {
	for _, f := range sg.dataCondFields() {
		fn := typeutil.StaticCallee(sg.fi.pkg.TypesInfo, call)
		if fn == nil {
			return fmt.Errorf("data-condition %q: the function called at %s:%d is not known before it runs, and the expression is evaluated in its body", f.Expr, sg.s.File, sg.s.Line)
		}
		body, pkg := sg.g.bodyOf(sg.fi.pkg.Fset, fn)
		if body != nil {
			if _, err := types.Eval(pkg.Fset, pkg.Types, body.Lbrace+1, f.Expr); err == nil {
				return fmt.Errorf("data-condition %q is evaluated in the body of %s, which its call site cannot reach", f.Expr, fn.FullName())
			}
		}
		sg.noDataCond(f)
	}
	return nil
}

// bodyOf finds the body of a function declared in the loaded packages,
// which share fset.
func (g *generator) bodyOf(fset *token.FileSet, fn *types.Func) (*ast.BlockStmt, *packages.Package) {
	fi := g.files[fset.Position(fn.Pos()).Filename]
	if fi == nil {
		return nil, nil
	}
	for _, d := range fi.file.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Name.Pos() == fn.Pos() && d.Body != nil {
			return d.Body, fi.pkg
		}
	}
	return nil, nil
}
