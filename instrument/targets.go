package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"pmm.dev/pmm/plan"
)

// A call that may run several functions (the call graph's CallTargets:
// a call through an interface or a function value) records an
// execution only when the function it runs is one of the site's
// Targets. Which one runs is decided at run time: for an interface call
// by the receiver's dynamic type (a type switch, dispatch), for a
// function value by its code pointer (funcDispatch). docs/RUNTIME.md,
// "Dynamic call sites", has the cost.

// interfaceCall tells how a call of a method selected by sel reaches it:
// through an interface value (the receiver sel.X is an interface), or
// through an interface embedded in a struct, which no test of the
// receiver's type or of a code pointer tells apart.
func interfaceCall(info *types.Info, sel *ast.SelectorExpr) (direct bool, err error) {
	s, ok := info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal {
		return false, nil
	}
	if types.IsInterface(s.Recv()) {
		return true, nil
	}
	if recv := s.Obj().(*types.Func).Type().(*types.Signature).Recv(); recv != nil && types.IsInterface(recv.Type()) {
		return false, fmt.Errorf("the method %s of an interface embedded in %s may run several functions, and the site cannot tell which one ran", sel.Sel.Name, s.Recv())
	}
	return false, nil
}

// funcDispatch returns the expression that tells which target a call of
// the function value f, of type ft, runs (1, 2, ... in the order of the
// site's Targets; 0 for none), and the declarations it calls: the code
// pointers of the targets the site can name, taken at init, compared
// first; any other pointer (a closure, a method value, a generic
// instantiation, a function the site cannot name) is found once by its
// name, then among the pointers seen (pmmrt.Targets).
func (sg *siteGen) funcDispatch(ft string) (string, string) {
	rt := sg.pc.Imports[sg.g.rtPath]
	targets, code, test := sg.name("targets"), sg.name("code"), sg.name("target")
	var names []string
	for _, t := range sg.s.Targets {
		names = append(names, strconv.Quote(t.Function))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "var %s = %s.NewTargets(%s)", targets, rt, strings.Join(names, ", "))
	// The functions it can name, recorded or not, with their target.
	type known struct {
		expr   string
		target int
	}
	var ks []known
	all := sg.s.Functions()
	for _, c := range sg.s.CallTargets {
		if !slices.Contains(all, c) {
			all = append(all, c)
		}
	}
	for _, name := range all {
		if expr, ok := sg.funcValue(name); ok {
			ks = append(ks, known{expr, slices.Index(sg.s.Functions(), name) + 1})
		}
	}
	// The wrappers of the method expressions that promote a recorded
	// method (Rect.Name runs Base.Name): their runtime names are the
	// promoting type's, which Targets does not know.
	for i, name := range sg.s.Functions() {
		exprs, gaps := sg.promotedWrappers(name)
		for _, expr := range exprs {
			ks = append(ks, known{expr, i + 1})
		}
		for _, gap := range gaps {
			sg.g.code.Inexact = append(sg.g.code.Inexact, plan.Inexact{Site: sg.s, Target: sg.s.Targets[i], Reason: gap})
		}
	}
	if len(ks) > 0 {
		// Taken by init, not by the variable's initializer: that would
		// be an initialization cycle when a target calls this site.
		fmt.Fprintf(&b, "\n\nvar %s [%d]uintptr\n\nfunc init() {\n", code, len(ks))
		for i, k := range ks {
			fmt.Fprintf(&b, "\t%s[%d] = %s.Code(%s)\n", code, i, rt, k.expr)
		}
		b.WriteString("}")
	}
	fmt.Fprintf(&b, "\n\nfunc %s%s(f %s) int {\n\tif f == nil {\n\t\treturn 0\n\t}\n\tpc := **(**uintptr)(%s.Pointer(&f))\n",
		test, sg.tparam, ft, sg.pc.importName("unsafe"))
	if len(ks) > 0 {
		b.WriteString("\tswitch pc {")
		for i, k := range ks {
			fmt.Fprintf(&b, "\n\tcase %s[%d]:\n\t\treturn %d", code, i, k.target)
		}
		b.WriteString("\n\t}\n")
	}
	fmt.Fprintf(&b, "\treturn %s.Func(pc)\n}", targets)
	return test + sg.targs + "(f)", b.String()
}

// promotedWrappers returns the method expressions, written for the
// site's helpers, whose wrappers run the method of runtime name by
// promotion from an embedded field ((T).M and (*T).M of a type T that
// embeds the method's receiver), and for each such wrapper the site
// cannot name, why a call of it is not recorded.
func (sg *siteGen) promotedWrappers(name string) (exprs, gaps []string) {
	tn, err := sg.receiverTypeName(name)
	if err != nil {
		return nil, nil
	}
	method := name[strings.LastIndex(name, ".")+1:]
	want := strings.ReplaceAll(name, "[...]", "")
	for _, c := range sg.candidateTypes() {
		named, ok := c.Type().(*types.Named)
		if !ok || types.IsInterface(named) {
			continue
		}
		for _, dt := range []types.Type{named, types.NewPointer(named)} {
			sel := types.NewMethodSet(dt).Lookup(tn.Pkg(), method)
			if sel == nil || len(sel.Index()) < 2 {
				continue // not promoted: its own name, or its pointer wrapper's, which Targets knows
			}
			fn, ok := sel.Obj().(*types.Func)
			if !ok || methodRuntimeName(fn) != want {
				continue
			}
			why := ""
			ts, err := sg.typeName(dt)
			switch {
			case named.TypeParams().Len() > 0:
				why = "it is generic"
			case c.Parent() != c.Pkg().Scope():
				why = "it is declared in a function"
			case !token.IsExported(method) && !samePackage(fn.Pkg(), sg.self):
				why = "the method is not exported"
			case err != nil:
				why = err.Error()
			}
			if why != "" {
				gaps = append(gaps, fmt.Sprintf("the call may run %s through the method expression %s.%s, whose wrapper the site cannot tell (%s), so those calls are not recorded", name, dt, method, why))
				continue
			}
			exprs = append(exprs, "("+ts+")."+method)
		}
	}
	return exprs, gaps
}

// funcValue returns how the site's helpers name the function of a
// runtime name as a value, when they can: a function (not a method, a
// closure or a generic function) of the site's package, or exported by
// a package it imports, declared in a file built with the site's.
func (sg *siteGen) funcValue(name string) (string, bool) {
	i := strings.LastIndex(name, ".")
	if i < 0 {
		return "", false
	}
	pkg := sg.g.findPackage(name[:i], sg.self)
	if pkg == nil {
		return "", false
	}
	fn, ok := pkg.Scope().Lookup(name[i+1:]).(*types.Func)
	if !ok || fn.Type().(*types.Signature).TypeParams().Len() > 0 {
		return "", false
	}
	// A function of a test file is not there when the site's file is
	// built without the tests.
	if file := sg.fi.pkg.Fset.Position(fn.Pos()).Filename; strings.HasSuffix(file, "_test.go") && !strings.HasSuffix(sg.fi.tf.Name(), "_test.go") {
		return "", false
	}
	if pkg == sg.self {
		return fn.Name(), true
	}
	if !fn.Exported() || !importable(sg.self.Path(), pkg.Path()) {
		return "", false
	}
	return sg.pc.importName(pkg.Path()) + "." + fn.Name(), true
}

// ifaceMethodValue is an interface method taken as a function value
// (s.Area, Shape.Area): calling it runs a wrapper that every dynamic
// type shares, so its code pointer does not tell which method runs.
type ifaceMethodValue struct {
	method   string
	sig      types.Type // the value's type
	position string     // file:line:col, the file relative to the module root
}

// methodValues returns the interface methods the loaded packages take
// as function values.
func (g *generator) methodValues() []ifaceMethodValue {
	if g.foundMethodValues {
		return g.ifaceMethodValues
	}
	g.foundMethodValues = true
	called := map[ast.Expr]bool{}
	for path, fi := range g.files {
		ast.Inspect(fi.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				called[ast.Unparen(n.Fun)] = true
			case *ast.SelectorExpr:
				// An interface's method, or one a struct forwards to an
				// interface it embeds (w.Name of a Wrapped{Namer}).
				sel, ok := fi.pkg.TypesInfo.Selections[n]
				if !ok || called[n] || sel.Kind() == types.FieldVal || !types.IsInterface(sel.Recv()) && !viaEmbeddedInterface(sel) {
					return true
				}
				pos := fi.pkg.Fset.Position(n.Sel.Pos())
				rel, err := filepath.Rel(g.root, path)
				if err != nil {
					rel = path
				}
				g.ifaceMethodValues = append(g.ifaceMethodValues, ifaceMethodValue{n.Sel.Name, sel.Type(), fmt.Sprintf("%s:%d:%d", rel, pos.Line, pos.Column)})
			}
			return true
		})
	}
	sort.Slice(g.ifaceMethodValues, func(i, j int) bool { return g.ifaceMethodValues[i].position < g.ifaceMethodValues[j].position })
	return g.ifaceMethodValues
}

// viaEmbeddedInterface says whether a method selected on a concrete type
// is the method of an interface the type embeds.
func viaEmbeddedInterface(sel *types.Selection) bool {
	fn, ok := sel.Obj().(*types.Func)
	if !ok {
		return false
	}
	recv := fn.Type().(*types.Signature).Recv()
	return recv != nil && types.IsInterface(recv.Type())
}

// methodValueGaps returns the site's targets that a call of a function
// value of type sig may run without the site recognizing them: an
// interface method of the same name and type is taken as a value
// somewhere.
func (sg *siteGen) methodValueGaps(sig *types.Signature) []plan.Inexact {
	var out []plan.Inexact
	for _, t := range sg.s.Targets {
		for _, mv := range sg.g.methodValues() {
			if types.Identical(mv.sig, sig) && strings.HasSuffix(t.Function, "."+mv.method) {
				out = append(out, plan.Inexact{Site: sg.s, Target: t, Reason: fmt.Sprintf("the call may run %s through the interface method value %s taken at %s, "+
					"which every dynamic type shares, so those calls are not recorded", t.Function, mv.method, mv.position)})
				break
			}
		}
	}
	return out
}
