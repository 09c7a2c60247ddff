package instrument

import (
	"fmt"
	"go/ast"
	"go/types"
	"strconv"
	"strings"

	"pmm.dev/pmm/plan"
)

// Go sites (issue 14): a goroutine, from its go statement to the end of
// the function the statement starts. The statement's call becomes a call
// of a helper that runs on the new goroutine:
//
//	go F(A...)   →   go pmm__go5(pmm__start5(caller), F, A...)
//
// start, evaluated first on the spawning goroutine, takes the
// goroutine's id and begin clock (and its spawner's id, for spawns);
// go5, on the new goroutine, takes its goroutine id, records what is
// known at the begin, defers the end and calls F(A...). F and A are
// evaluated where and in the order they were. When a call site records
// the same statement's callee, its wrapper W takes the state instead
// (go W(caller, pmm__start5(caller), F, A...)), so that the goroutine's
// end comes after the end of the execution W records.

// goStart is what the call site of a go statement needs of the go site
// at the same statement to take its part (goStart's use in call).
type goStart struct {
	site  *plan.Site
	start string // the expression that begins the goroutine, in the user's code
	param string // the wrapper's parameter that receives it
	// prelude, at the top of the wrapper, begins the goroutine on the
	// new goroutine and defers its end.
	prelude string
	// alone adds the go site's own wrapper and edits, for when no call
	// site took its part.
	alone func()
	taken bool
}

// goSite generates go site s, at call, the call of a go statement.
func (g *generator) goSite(s *plan.Site, fi *fileInfo, call *ast.CallExpr, path []ast.Node) error {
	if len(path) < 2 {
		return fmt.Errorf("pmm bug: no go statement at %s", s.Position())
	}
	if st, ok := path[len(path)-2].(*ast.GoStmt); !ok || st.Call != call {
		return fmt.Errorf("pmm bug: the call at %s is not a go statement's", s.Position())
	}
	info := fi.pkg.TypesInfo
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok && s.Dynamic() {
		if viaRecv, err := interfaceCall(info, sel); err != nil || viaRecv {
			return fmt.Errorf("the go statement calls a method of an interface, which may start any of %s: pmm tells the functions a go statement starts apart by a function value's code", strings.Join(s.Functions(), ", "))
		}
	}
	if tv, ok := info.Types[call.Fun]; ok && tv.IsBuiltin() {
		return fmt.Errorf("the go statement calls a built-in function, which has no function value to wrap")
	}
	var sig *types.Signature
	if t := info.TypeOf(call.Fun); t != nil {
		sig, _ = t.Underlying().(*types.Signature)
	}
	if sig == nil {
		return fmt.Errorf("the go statement's call of %s has no function type", s.Function)
	}
	if len(call.Args) == 1 {
		if tup, ok := info.TypeOf(call.Args[0]).(*types.Tuple); ok && tup.Len() > 1 {
			return fmt.Errorf("the go statement passes a multi-valued call as the arguments of %s", s.Function)
		}
	}
	sg := g.newSiteGen(s, fi)
	if err := sg.typeParams(enclosingTypeParams(fi, call.Pos())); err != nil {
		return err
	}
	sg.common()
	sg.takeClocks()
	// A statement that may start several functions (a function value)
	// tells on the new goroutine which one it started, by the value's
	// code: the goroutine is recorded only when that is a target, as the
	// target's (s.target, with several). The id and the begin clock are
	// taken at the statement all the same.
	started := ""
	if s.Dynamic() {
		ft, err := sg.typeName(sig)
		if err != nil {
			return err
		}
		test, dispatchDecl := sg.funcDispatch(ft)
		sg.pc.Decls = append(sg.pc.Decls, dispatchDecl)
		g.code.Inexact = append(g.code.Inexact, sg.methodValueGaps(sig)...)
		if len(s.Targets) > 1 {
			sg.declare("target", "int")
			started = "gs.target = " + test + "; gs.target != 0"
		} else {
			started = test + " == 1"
		}
	}
	if err := sg.action(); err != nil {
		return err
	}
	rt := sg.pc.Imports[g.rtPath]
	// The id and the begin clock are taken at the go statement; the rest
	// of the before-form (the goroutine id, the tuples known at the
	// begin) on the new goroutine.
	atStatement := map[string]bool{"s.id = " + rt + ".NextID()": true, "s.t0 = " + rt + ".Now()": true}
	var startLines, beginLines []string
	for _, l := range sg.tmpl.Before {
		if atStatement[strings.TrimSpace(l)] {
			startLines = append(startLines, l)
		} else {
			beginLines = append(beginLines, l)
		}
	}
	startParam, callerArg := "", ""
	if sg.caps[plan.CapCaller] {
		state, _ := sg.callerState()
		if state == "" {
			return fmt.Errorf("the go statement records its spawner, whose definition is not instrumented")
		}
		startParam, callerArg = "caller uint64", state+".id"
		startLines = append([]string{"s.caller = caller"}, startLines...)
	}
	state := sg.name("state") + sg.targs
	start, begin, exit := sg.name("start"), sg.name("gbegin"), sg.name("exit")
	var b strings.Builder
	fmt.Fprintf(&b, "func %s%s(%s) (s %s) {\n\tif !(%s) {\n\t\treturn\n\t}\n\ts.on = true\n", start, sg.tparam, startParam, state, sg.tmpl.Pre)
	for _, l := range startLines {
		b.WriteString("\t" + l + "\n")
	}
	b.WriteString("\treturn\n}")
	decls := []string{sg.stateDecl(), b.String()}
	b.Reset()
	fmt.Fprintf(&b, "func %s%s(s *%s) {\n", begin, sg.tparam, state)
	for _, l := range beginLines {
		b.WriteString("\t" + l + "\n")
	}
	b.WriteString("}")
	decls = append(decls, b.String(), sg.exitDecl(nil, nil))

	prelude := fmt.Sprintf("if gs.on {\n\t\t%s%s(&gs)\n\t\tdefer %s%s(&gs)\n\t}\n\t", begin, sg.targs, exit, sg.targs)
	if started != "" {
		// The wrapper's callee is f, the function value it starts.
		prelude = fmt.Sprintf("if gs.on {\n\t\tif %s {\n\t\t\t%s%s(&gs)\n\t\t\tdefer %s%s(&gs)\n\t\t}\n\t}\n\t", started, begin, sg.targs, exit, sg.targs)
	}
	gs := &goStart{site: s, param: "gs " + state, start: start + sg.uargs + "(" + callerArg + ")", prelude: prelude}
	wrapper, edits, imports, err := sg.goWrapper(gs, call, sig)
	if err != nil {
		return err
	}
	gs.alone = func() { sg.useWrapper(wrapper, edits, imports) }
	if err := sg.finish(decls...); err != nil {
		return err
	}
	g.goStarts[s.Span] = gs
	return nil
}

// goWrapper returns the go site's own wrapper, go(s, f, p...), the
// edits that rewrite the call F(A...) into go(start, F, A...), and the
// packages those edits name.
func (sg *siteGen) goWrapper(gs *goStart, call *ast.CallExpr, sig *types.Signature) (string, []Edit, []string, error) {
	ft, err := sg.typeName(sig)
	if err != nil {
		return "", nil, nil, err
	}
	fparams, forward, err := sg.forwardedParams(sig)
	if err != nil {
		return "", nil, nil, err
	}
	params := append([]string{gs.param, "f " + ft}, fparams...)
	w := sg.name("go")
	line := fmt.Sprintf("/*line %s:%d:%d*/", sg.fi.tf.Name(), sg.s.Line, sg.s.Col)
	decl := fmt.Sprintf("func %s%s(%s) {\n\t%s%sf(%s)\n}", w, sg.tparam, strings.Join(params, ", "), gs.prelude, line, strings.Join(forward, ", "))
	fi := sg.fi
	start, end := fi.tf.Offset(call.Pos()), fi.tf.Offset(call.End())
	lparen := fi.tf.Offset(call.Lparen)
	// As callEdits: a generic callee's type arguments, then the "(".
	edits := []Edit{{Off: start, End: start, Text: w + sg.uargs + "(" + gs.start + ", ", Order: orderCall*1_000_000 + (1_000_000 - (end - start))}}
	had := len(sg.imports)
	if inst := sg.instantiation(call.Fun); inst != "" {
		funEnd := fi.tf.Offset(call.Fun.End())
		edits = append(edits, Edit{Off: funEnd, End: funEnd, Text: inst})
	}
	edits = append(edits, Edit{Off: lparen, End: lparen + 1, Text: ", "})
	imports := append([]string(nil), sg.imports[had:]...)
	sg.imports = sg.imports[:had]
	return decl, edits, imports, nil
}

// useWrapper adds the go site's own wrapper and edits to the code.
func (sg *siteGen) useWrapper(decl string, edits []Edit, imports []string) {
	sg.pc.Decls = append(sg.pc.Decls, decl)
	fi, path := sg.fi, sg.fi.tf.Name()
	sg.g.code.Files[path] = append(sg.g.code.Files[path], edits...)
	for _, p := range imports {
		if sg.g.fileImports[path] == nil {
			sg.g.fileImports[path] = map[string]bool{}
		}
		if !sg.g.fileImports[path][p] {
			sg.g.fileImports[path][p] = true
			off := fi.tf.Offset(fi.file.Name.End())
			sg.g.code.Files[path] = append(sg.g.code.Files[path], Edit{Off: off, End: off, Text: "; import " + sg.pc.Imports[p] + " " + strconv.Quote(p)})
		}
	}
}

// goSitesAlone adds the wrappers of the go sites no call site took the
// part of (there was none, or it was skipped).
func (g *generator) goSitesAlone() {
	for _, s := range g.plan.Sites {
		if gs := g.goStarts[s.Span]; gs != nil && gs.site == s && !gs.taken {
			gs.alone()
		}
	}
}
