package instrument

import (
	"fmt"
	"go/ast"
	"go/printer"
	"go/types"
	"maps"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"pmm.dev/pmm/plan"
)

// definition generates a definition site: two statements at the top of
// the body, `var s state; if enter(&s, params) { defer exit(&s) }`, with the
// typed helpers in the package's generated file. No function literal is
// added to the user's code, so closures keep their runtime names; the
// deferred exit runs on return and on panic, and lets the panic go on.
func (g *generator) definition(s *plan.Site, fi *fileInfo, n ast.Node) error {
	var ftype *ast.FuncType
	var body *ast.BlockStmt
	var recv *ast.FieldList
	var sig *types.Signature
	switch fn := n.(type) {
	case *ast.FuncDecl:
		ftype, body, recv = fn.Type, fn.Body, fn.Recv
		if obj, ok := fi.pkg.TypesInfo.Defs[fn.Name].(*types.Func); ok {
			sig = obj.Type().(*types.Signature)
		}
	case *ast.FuncLit:
		ftype, body = fn.Type, fn.Body
		sig, _ = fi.pkg.TypesInfo.TypeOf(fn).(*types.Signature)
	}
	if body == nil || sig == nil {
		return fmt.Errorf("%s has no body to instrument", s.Function)
	}
	sg := g.newSiteGen(s, fi)
	// Those of the function, of its receiver's type, or, for a function
	// literal, of the function that holds it. Their constraints may add
	// imports to the helpers (cmp.Ordered), which a site that only counts
	// does not use: it takes them back.
	imports := maps.Clone(sg.pc.Imports)
	if err := sg.typeParams(enclosingTypeParams(fi, n.Pos())); err != nil {
		return err
	}
	if decls, counts, ok := sg.constantCells(); ok {
		sg.pc.Imports = imports
		return sg.countOnly(body, decls, counts)
	}
	sg.common()
	if g.adopters[s.FuncID] && sg.caps[plan.CapID] {
		sg.adoptID()
	}
	state := sg.name("s")
	var enterParams, enterArgs []string
	capture := func(field string, t types.Type, arg string) error {
		if err := sg.field(field, t, field); err != nil {
			return err
		}
		ts := strings.TrimPrefix(sg.fields[len(sg.fields)-1], field+" ")
		enterParams = append(enterParams, field+" "+ts)
		enterArgs = append(enterArgs, arg)
		sg.tmpl.Before = append(sg.tmpl.Before, "s."+field+" = "+field)
		return nil
	}

	// The receiver and the parameters, named where the source leaves them
	// unnamed or blank.
	if recv != nil && len(recv.List) == 1 && sg.caps[plan.CapReceiver] {
		name := sg.paramName(recv.List[0], 0, sg.p+"recv")
		if err := capture("recv", sig.Recv().Type(), name); err != nil {
			return err
		}
	}
	wanted := sg.wantedParams(sig.Params().Len())
	if len(wanted) > 0 {
		names := sg.paramNames(ftype.Params, sig.Params().Len(), "p")
		for i := 1; i <= sig.Params().Len(); i++ {
			if wanted[i] {
				if err := capture("p"+strconv.Itoa(i), sig.Params().At(i-1).Type(), names[i-1]); err != nil {
					return err
				}
			}
		}
	}
	// Data conditions at the begin point: Go expressions evaluated in
	// the body's scope, passed to enter (see datacond.go).
	k := 0
	var endConds []plan.Field
	var walks beginWalks
	for _, f := range sg.dataCondFields() {
		if f.N == plan.PointEnd {
			endConds = append(endConds, f)
			continue
		}
		tv, err := types.Eval(fi.pkg.Fset, fi.pkg.Types, body.Lbrace+1, f.Expr)
		if err != nil {
			sg.noDataCond(f) // this function's executions have no such value
			continue
		}
		t := types.Default(tv.Type)
		field := dataCondPrefix(plan.PointBegin) + strconv.Itoa(k)
		k++
		if f.Walk != "" {
			// A heap walk from the value, at the begin point: enter
			// takes pointers to the variables its root reads (once for
			// the objects and the bytes of one walk), the root's helper
			// reads it where the program may not have (a nil pointer),
			// and the walk's count is the state's.
			params, args, compiles, err := sg.walkField(&walks, body.Lbrace+1, f, field)
			if err != nil {
				return err
			}
			if !compiles {
				sg.noDataCond(f)
			}
			for j, p := range params {
				if !slices.Contains(enterParams, p) {
					enterParams, enterArgs = append(enterParams, p), append(enterArgs, args[j])
				}
			}
			continue
		}
		params, args, direct, err := sg.beginDataCond(body, f, field)
		if err != nil {
			return err
		}
		if direct {
			if err := capture(field, t, "("+f.Expr+")"); err != nil {
				return err
			}
			sg.vals[field] = value{field: field, typ: t, expr: f.Expr}
		}
		for j, p := range params {
			if !slices.Contains(enterParams, p) {
				enterParams, enterArgs = append(enterParams, p), append(enterArgs, args[j])
			}
		}
	}
	sg.tmpl.Before = append(sg.tmpl.Before, sg.walkStatements(walks)...)

	// Results, and whether the execution ended by a return statement.
	var exitParams, exitArgs, reads []string
	needResults := sg.caps[plan.CapResults] || sg.caps[plan.CapResult]
	named := namedResults(ftype)
	resultNames := make([]string, sig.Results().Len())
	for i := range resultNames {
		resultNames[i] = sig.Results().At(i).Name()
	}
	if needResults && !named && ftype.Results != nil && len(ftype.Results.List[0].Names) > 0 {
		// Named results, some blank: a deferred function may still set
		// the others after return, so name the blank ones and read them
		// all when the execution ends.
		resultNames = sg.paramNames(ftype.Results, sig.Results().Len(), "r")
		named = true
	}
	// Whether the execution returned: it has results only then
	// (docs/LANGUAGE.md, panicked).
	useRet := sg.caps[plan.CapPanicked] || needResults
	for i := 1; i <= sig.Results().Len() && needResults; i++ {
		t := sig.Results().At(i - 1).Type()
		field := "r" + strconv.Itoa(i)
		if err := sg.field(field, t, field); err != nil {
			return err
		}
		if named {
			ts := strings.TrimPrefix(sg.fields[len(sg.fields)-1], field+" ")
			exitParams = append(exitParams, field+" *"+ts)
			exitArgs = append(exitArgs, "&"+resultNames[i-1])
			reads = append(reads, "s."+field+" = *"+field)
		}
	}
	// Data conditions at the end point, evaluated by exit through
	// pointers to the variables they read.
	passed := map[string]bool{}
	for i, f := range endConds {
		params, args, ok, err := sg.endDataCond(body, f, i)
		if err != nil {
			return err
		}
		if !ok {
			sg.noDataCond(f)
			continue
		}
		for j, p := range params {
			if !passed[p] {
				passed[p] = true
				exitParams, exitArgs = append(exitParams, p), append(exitArgs, args[j])
			}
		}
	}
	if err := sg.filterSetup(); err != nil {
		return err
	}
	sg.takeClocks()
	if err := sg.action(); err != nil {
		return err
	}
	returnsFrom := len(sg.edits)
	if useRet {
		if err := sg.rewriteReturns(body, sig, state, needResults && !named); err != nil {
			return err
		}
		// No return statement ran: a panic, or runtime.Goexit, or a
		// panic that a deferred call of the function recovered, after
		// which it returns normally. Only the runtime can tell. Nor can
		// a return statement tell where the body defers calls: one may
		// panic, or call runtime.Goexit, once the return ran.
		returning := sg.pc.Imports[sg.g.rtPath] + ".Returning()"
		if defers(body) {
			sg.tmpl.After = append(sg.tmpl.After, "s.ok = "+returning)
		} else {
			sg.tmpl.After = append(sg.tmpl.After, "if !s.ok {", "\ts.ok = "+returning, "}")
		}
	}

	// The code in the user's body, then the helpers.
	// A disabled site costs the inlined test of enter and a branch; the
	// state is zero and nothing is deferred.
	enter := sg.name("enter") + sg.uargs
	call := enter + "(" + strings.Join(append([]string{"&" + state}, enterArgs...), ", ") + ")"
	text := "var " + state + " " + sg.name("state") + sg.uargs + "; "
	decls := []string{sg.stateDecl()}
	decls = append(decls, sg.enterDecls(enterParams)...)
	deferred := len(sg.tmpl.Action) > 0 || len(sg.tmpl.After) > 0
	if deferred {
		text += "if " + call + " { defer " + sg.name("exit") + sg.uargs + "(" + strings.Join(append([]string{"&" + state}, exitArgs...), ", ") + ") }"
		decls = append(decls, sg.exitDecl(exitParams, reads))
	} else {
		text += call
	}
	if useRet && sig.Results().Len() > 0 {
		decls = append(decls, sg.retDecl(sig, needResults && !named))
	}
	top := sg.fi.tf.Offset(body.Lbrace) + 1
	edit := Edit{Off: top, End: top, Text: text + ";"}
	if deferred && g.opt.Twin && sg.twinnable(body) {
		edit = sg.twin(edit, ftype, body, resultNames)
		for i := returnsFrom; i < len(sg.edits); i++ {
			sg.edits[i].Only = edit.Twin
		}
		decls = append(decls, fmt.Sprintf("func %s() bool { return %s }", sg.name("gate"), sg.tmpl.Pre))
		g.twinState[edit.Twin] = " var " + state + " " + sg.name("state") + sg.uargs + "; _ = " + state + ";"
	}
	sg.edits = append(sg.edits, edit)
	if err := sg.finish(decls...); err != nil {
		return err
	}
	g.done[s] = true
	g.defVals[s] = sg.vals
	g.typeArgs[s] = sg.targs
	return nil
}

// twinnable tells whether the body of a definition site may run in a
// function literal of its own when the site is enabled (twin): the
// literal adds a frame between the function and its callees, and names
// its own function literals after it. So not when the body holds
// function literals (their runtime names identify them: pmmrt.Targets,
// profiles), calls recover (which stops a panic only when the deferred
// function calls it itself), calls into runtime, runtime/debug or
// testing (runtime.Caller, t.Helper and the lines testing reports look
// at the frames above), adopts its caller's id (Adopt runs before
// the pre-condition), or has regions instrumented.
func (sg *siteGen) twinnable(body *ast.BlockStmt) bool {
	if sg.adopt != "" || sg.tmpl.Pre != sg.pc.Imports[sg.g.rtPath]+".Enabled()" {
		return false
	}
	// Its regions' code is in the body, once (regionSites).
	for _, o := range sg.g.plan.Sites {
		if o.InBody() && o.FuncID == sg.s.FuncID {
			return false
		}
	}
	// main runs once, and its first statement defers the end of the run
	// (endRunAtMain), which must run after the site's exit: in a twin it
	// would run first, inside the copy, and hold the log for good.
	if mainFunc(sg.fi) != nil && mainFunc(sg.fi).Body == body {
		return false
	}
	ok := true
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			ok = false
		case *ast.CallExpr:
			switch f := typeutil.Callee(sg.fi.pkg.TypesInfo, n).(type) {
			case *types.Builtin:
				ok = ok && f.Name() != "recover"
			case *types.Func:
				if f.Pkg() != nil {
					switch f.Pkg().Path() {
					case "runtime", "runtime/debug", "testing":
						ok = false
					}
				}
			}
		}
		return ok
	})
	return ok
}

// twin turns the statements at the top of a definition's body (top)
// into a test of the site's pre-condition: when it holds, the
// statements and a copy of the body run in a function literal called
// at once, whose result is the function's; when it does not, the body
// runs as the user wrote it. The function itself then has no defer: a
// defer anywhere in a function costs every execution its bookkeeping
// (results kept in memory, the bits of the open-coded defers), also
// when the site is off (docs/PERFORMANCE.md, "A site that is off").
func (sg *siteGen) twin(top Edit, ftype *ast.FuncType, body *ast.BlockStmt, resultNames []string) Edit {
	var results []string
	i := 0
	if ftype.Results != nil {
		for _, f := range ftype.Results.List {
			var t strings.Builder
			printer.Fprint(&t, sg.fi.pkg.Fset, f.Type) //nolint:errcheck // a strings.Builder
			if len(f.Names) == 0 {
				results = append(results, t.String())
				i++
				continue
			}
			for range f.Names {
				results = append(results, resultNames[i]+" "+t.String())
				i++
			}
		}
	}
	call := "func() (" + strings.Join(results, ", ") + ") {" + top.Text
	after := "}(); return };"
	if len(results) > 0 {
		call, after = "return "+call, "}() };"
	}
	top.Text = "if " + sg.name("gate") + "() { " + call
	top.Twin = sg.s.Index + 1
	top.CopyEnd = sg.fi.tf.Offset(body.Rbrace)
	top.After = after
	return top
}

// countOnly generates a definition site whose only work is counting its
// executions in Cells (constantCells): the counts at the top of the
// body, the Cells in the package's generated file. Nothing is deferred:
// an execution is counted when it begins, whether it returns, panics or
// never ends.
func (sg *siteGen) countOnly(body *ast.BlockStmt, decls, counts []string) error {
	sg.tmpl = Template{Pre: sg.pc.Imports[sg.g.rtPath] + ".Enabled()", Before: counts, Post: "true"}
	sg.fields = nil // no state
	off := sg.fi.tf.Offset(body.Lbrace) + 1
	sg.edits = append(sg.edits, Edit{Off: off, End: off, Text: strings.Join(counts, "; ") + ";"})
	if err := sg.finish(decls...); err != nil {
		return err
	}
	sg.g.done[sg.s] = true
	sg.g.defVals[sg.s] = sg.vals
	sg.g.typeArgs[sg.s] = sg.targs
	return nil
}

// fieldsRead lists the values the site's tuples and filters read.
func (sg *siteGen) fieldsRead() []plan.Field {
	var out []plan.Field
	for _, t := range sg.s.Targets {
		for _, e := range t.Emits {
			out = append(out, e.Fields...)
		}
		for _, fs := range t.Filters {
			for _, f := range fs {
				for _, c := range append(append([]plan.Cond(nil), f.Pre...), f.Post...) {
					for _, v := range c.Values {
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
}

// wantedParams returns the parameter positions (from 1) the site captures.
func (sg *siteGen) wantedParams(n int) map[int]bool {
	want := map[int]bool{}
	for _, f := range sg.fieldsRead() {
		switch f.Cap {
		case plan.CapParams:
			for i := 1; i <= n; i++ {
				want[i] = true
			}
		case plan.CapParam:
			want[f.N] = true
		}
	}
	return want
}

// paramName returns the name of a one-name field, naming it when it is
// unnamed or blank.
func (sg *siteGen) paramName(f *ast.Field, i int, name string) string {
	if len(f.Names) == 1 && f.Names[0].Name != "_" {
		return f.Names[0].Name
	}
	if len(f.Names) == 1 {
		off := sg.fi.tf.Offset(f.Names[0].Pos())
		sg.edits = append(sg.edits, Edit{Off: off, End: off + 1, Text: name})
	} else {
		off := sg.fi.tf.Offset(f.Type.Pos())
		sg.edits = append(sg.edits, Edit{Off: off, End: off, Text: name + " "})
	}
	return name
}

// paramNames returns the names of the n parameters (or results) of a
// function, naming all of them when they are unnamed (Go allows no mix)
// and the blank ones, after the prefix of generated names and kind.
func (sg *siteGen) paramNames(params *ast.FieldList, n int, kind string) []string {
	var names []string
	i := 0
	for _, f := range params.List {
		if len(f.Names) == 0 {
			i++
			names = append(names, sg.paramName(f, i, sg.p+kind+strconv.Itoa(i)))
			continue
		}
		for _, id := range f.Names {
			i++
			if id.Name == "_" {
				off := sg.fi.tf.Offset(id.Pos())
				name := sg.p + kind + strconv.Itoa(i)
				sg.edits = append(sg.edits, Edit{Off: off, End: off + 1, Text: name})
				names = append(names, name)
				continue
			}
			names = append(names, id.Name)
		}
	}
	return names
}

func namedResults(ft *ast.FuncType) bool {
	if ft.Results == nil || len(ft.Results.List) == 0 {
		return false
	}
	for _, f := range ft.Results.List {
		if len(f.Names) == 0 {
			return false
		}
		for _, n := range f.Names {
			if n.Name == "_" {
				return false
			}
		}
	}
	return true
}

// rewriteReturns makes every return statement of the body (not of the
// function literals inside it) say that the execution returned: return
// X becomes return s.ret(X), which evaluates X first; a bare return gets
// s.ok = true before it; falling off the end of a function without
// results sets it too.
func (sg *siteGen) rewriteReturns(body *ast.BlockStmt, sig *types.Signature, state string, capture bool) error {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) == 0 {
				off := sg.fi.tf.Offset(n.Pos())
				sg.edits = append(sg.edits, Edit{Off: off, End: off, Text: state + ".ok = true; ", Order: orderReturn})
				return false
			}
			start := sg.fi.tf.Offset(n.Results[0].Pos())
			end := sg.fi.tf.Offset(n.Results[len(n.Results)-1].End())
			sg.edits = append(sg.edits, Edit{Off: start, End: start, Text: state + ".ret(", Order: orderReturn}, Edit{Off: end, End: end, Text: ")"})
			return false
		}
		return true
	})
	if sig.Results().Len() == 0 {
		off := sg.fi.tf.Offset(body.Rbrace)
		if n := len(body.List); n > 0 {
			// After the last statement, not after the comments that
			// follow it: an example's // Output: comment must stay the
			// last comment of its body, or go test does not run it.
			off = sg.fi.tf.Offset(body.List[n-1].End())
		}
		// In an empty body, after the statements at the top, which
		// declare the state.
		sg.edits = append(sg.edits, Edit{Off: off, End: off, Text: "; " + state + ".ok = true;", Order: orderReturn})
	}
	return nil
}

// enterDecls declares enter, which tests the pre-condition and is small
// enough to be inlined, and begin, which runs the before-form.
func (sg *siteGen) enterDecls(params []string) []string {
	state := "s *" + sg.name("state") + sg.targs
	all := strings.Join(append([]string{state}, params...), ", ")
	var names []string
	for _, p := range params {
		names = append(names, strings.Fields(p)[0])
	}
	args := strings.Join(append([]string{"s"}, names...), ", ")
	enter := fmt.Sprintf("func %s%s(%s) bool {\n%s\tif !(%s) {\n\t\treturn false\n\t}\n\t%s%s(%s)\n\treturn s.on\n}",
		sg.name("enter"), sg.tparam, all, sg.adopt, sg.tmpl.Pre, sg.name("begin"), sg.targs, args)
	var b strings.Builder
	fmt.Fprintf(&b, "func %s%s(%s) {\n\ts.on = true\n", sg.name("begin"), sg.tparam, all)
	for _, l := range sg.tmpl.Before {
		b.WriteString("\t" + l + "\n")
	}
	b.WriteString("}")
	return []string{enter, b.String()}
}

// retDecl declares the method that return statements pass their results
// through: it notes that the execution returned, and keeps the results
// when they are captured and unnamed.
func (sg *siteGen) retDecl(sig *types.Signature, capture bool) string {
	var params, resultTypes, names []string
	for i := 1; i <= sig.Results().Len(); i++ {
		ts, _ := sg.typeName(sig.Results().At(i - 1).Type())
		params = append(params, "r"+strconv.Itoa(i)+" "+ts)
		resultTypes = append(resultTypes, ts)
		names = append(names, "r"+strconv.Itoa(i))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "func (s *%s%s) ret(%s) (%s) {\n\ts.ok = true\n", sg.name("state"), sg.targs, strings.Join(params, ", "), strings.Join(resultTypes, ", "))
	if capture {
		for _, n := range names {
			fmt.Fprintf(&b, "\ts.%s = %s\n", n, n)
		}
	}
	fmt.Fprintf(&b, "\treturn %s\n}", strings.Join(names, ", "))
	return b.String()
}

// adoptID makes a definition whose call sites publish ids (a call site
// that records the execution as a callee, Target.Publish) take the id of
// the call that entered it, if any: one execution, one id. Adopt runs on
// every entry, before the tests, so that no published id outlives the
// execution it was published for.
func (sg *siteGen) adoptID() {
	rt := sg.pc.Imports[sg.g.rtPath]
	sg.declare("pend", "uint64")
	sg.adopt = "\ts.pend = " + rt + ".Adopt(" + strconv.FormatInt(sg.s.FuncID, 10) + ")\n"
	for i, l := range sg.clocks {
		if l == "s.id = "+rt+".NextID()" {
			sg.clocks[i] = "s.id = s.pend"
			sg.clocks = slices.Insert(sg.clocks, i+1, "if s.id == 0 {", "\ts.id = "+rt+".NextID()", "}")
			return
		}
	}
}

// defers says whether body holds a defer statement of its own (not one
// of its function literals').
func defers(body *ast.BlockStmt) bool {
	found := false
	inspectBody(body, func(n ast.Node) {
		_, ok := n.(*ast.DeferStmt)
		found = found || ok
	})
	return found
}
