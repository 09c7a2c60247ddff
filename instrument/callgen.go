package instrument

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"
	"pmm.dev/pmm/plan"
)

// call generates a call site: the call F(A...) becomes W(caller, F, A...)
// where W, in the package's generated file, runs the before-form, calls
// F(A...), and runs the after-form, post-condition and action in a
// deferred call, on return and on panic. F and A are evaluated once, in
// their original order, before W runs; go and defer statements keep
// their meaning (W runs on the new goroutine, or when deferred). A
// /*line*/ comment gives the call inside W the position of the original
// call, so that runtime.Caller in F still sees the user's line.
func (g *generator) call(s *plan.Site, fi *fileInfo, call *ast.CallExpr, path []ast.Node) error {
	info := fi.pkg.TypesInfo
	// A function type's underlying signature: h(n) with h a HandlerFunc.
	var sig *types.Signature
	if t := info.TypeOf(call.Fun); t != nil {
		sig, _ = t.Underlying().(*types.Signature)
	}
	if sig == nil {
		return fmt.Errorf("the call of %s has no function type", s.Function)
	}
	for _, t := range s.Targets {
		if callerSensitive[t.Function] {
			return fmt.Errorf("%s looks at the frames of its callers: through a wrapper, it would see the wrapper's", t.Function)
		}
	}
	if len(call.Args) == 1 {
		// f(g()) with g multi-valued: W(caller, f, g()) is not Go.
		if tup, ok := info.TypeOf(call.Args[0]).(*types.Tuple); ok && tup.Len() > 1 {
			return fmt.Errorf("the call of %s passes a multi-valued call as arguments", s.Function)
		}
	}
	// A deferred call of a function that calls recover stays a direct
	// deferred call, with the site's code deferred beside it (split).
	var split *ast.DeferStmt
	if s.Via == "defer" {
		recovers, err := g.deferrable(fi, call)
		if err != nil {
			return err
		}
		if recovers {
			if split, err = splittable(s, path, call); err != nil {
				return err
			}
		}
	}
	sg := g.newSiteGen(s, fi)
	// In a generic function, the helpers take its type parameters.
	if err := sg.typeParams(enclosingTypeParams(fi, call.Pos())); err != nil {
		return err
	}
	sg.common()
	if err := sg.callDataConds(call); err != nil {
		return err
	}

	// How W calls the function: through a function value, or, when an
	// interface call may run several methods, through the receiver, so
	// that W can tell by its dynamic type which one runs. A call that may
	// run several functions records an execution only when it runs one
	// of the site's targets: target is the test that tells which.
	//
	// A static callee W calls by its name instead (staticCallee), as the
	// plain program does: through a function value, escape analysis
	// would make every argument passed by reference escape, and a
	// method value x.M would move x to the heap, allocations the plain
	// program does not make.
	var calleeParam, target, dispatchDecl string
	sel, isSel := call.Fun.(*ast.SelectorExpr)
	viaRecv := false
	if isSel && s.Dynamic() {
		var err error
		if viaRecv, err = interfaceCall(info, sel); err != nil {
			return err
		}
	}
	var direct staticCallee
	if !s.Dynamic() && split == nil {
		direct = sg.staticCallee(call)
	}
	recv := direct.recv
	switch {
	case viaRecv:
		rt, err := sg.typeName(info.TypeOf(sel.X))
		if err != nil {
			return err
		}
		calleeParam = "recv " + rt
		if target, dispatchDecl, err = sg.dispatch(sel, info.TypeOf(sel.X)); err != nil {
			return err
		}
	case recv != nil:
		calleeParam = "recv " + direct.recvType
	default:
		ft, err := sg.typeName(sig)
		if err != nil {
			return err
		}
		calleeParam = "f " + ft
		if s.Dynamic() {
			target, dispatchDecl = sg.funcDispatch(ft)
			g.code.Inexact = append(g.code.Inexact, sg.methodValueGaps(sig)...)
		}
	}

	// Parameters of W: the caller's id (or its state, when the callee's
	// filters read and mark it), the callee, the arguments.
	var params []string
	args := []string{"0"} // the caller's id
	callerParam := "caller uint64"
	state, def := sg.callerState()
	if sg.caps[plan.CapCaller] && state == "" {
		return fmt.Errorf("the call of %s records its caller, whose definition is not instrumented", s.Function)
	}
	callee := false
	for _, qi := range s.Targets[0].Questions() {
		callee = callee || sg.hasCaller(sg.filters(s.Targets[0], qi))
	}
	if callee && def != nil && g.typeArgs[def] == "" {
		sg.callerPtr, sg.callerSite = true, def
		stateType := sg.p + "state" + strconv.Itoa(sg.g.local[def])
		args[0] = "&" + state
		// Not a field of the state: the escape analysis does not tell
		// fields apart, so a state with the pointer, one of whose values
		// leaks (recorded as an any), would move the caller's state to
		// the heap, at every execution (testdata/stateescape). The
		// wrapper, its record and exit functions take it as cs.
		callerParam = "cs *" + stateType
		sg.callerParam = callerParam
	} else if state != "" {
		args[0] = state + ".id"
	}
	params = append(params, callerParam, calleeParam)
	// The go site of the same go statement, whose goroutine ends after
	// the execution this wrapper records: the wrapper takes its state
	// after the caller's and begins and ends it around its own work.
	prelude, callerArg := "", args[0]
	gs := g.goStarts[s.Span]
	if gs != nil && (gs.taken || s.Via != "go") {
		gs = nil
	}
	if gs != nil {
		params = slices.Insert(params, 1, gs.param)
		prelude, callerArg = gs.prelude, args[0]+", "+gs.start
	}
	wanted := sg.wantedParams(sig.Params().Len())
	fparams, forward, err := sg.forwardedParams(sig)
	if err != nil {
		return err
	}
	params = append(params, fparams...)
	for i := 0; i < sig.Params().Len(); i++ {
		p := "p" + strconv.Itoa(i+1)
		t := sig.Params().At(i).Type()
		if wanted[i+1] {
			if err := sg.field(p, t, p); err != nil {
				return err
			}
			sg.tmpl.Before = append(sg.tmpl.Before, "s."+p+" = "+p)
		}
	}

	var results, resultNames, exitParams, exitArgs, reads []string
	if sg.callerPtr {
		exitParams, exitArgs = append(exitParams, callerParam), append(exitArgs, "cs")
	}
	needResults := sg.caps[plan.CapResults] || sg.caps[plan.CapResult]
	if split != nil && (needResults && sig.Results().Len() > 0 || sg.caps[plan.CapPanicked]) {
		return fmt.Errorf("%s calls recover, so its deferred call stays direct, where its results and whether it panicked are not seen", s.Function)
	}
	for i := 0; i < sig.Results().Len(); i++ {
		r := "r" + strconv.Itoa(i+1)
		ts, err := sg.typeName(sig.Results().At(i).Type())
		if err != nil {
			return err
		}
		results = append(results, r+" "+ts)
		resultNames = append(resultNames, r)
		if needResults {
			if err := sg.field(r, sig.Results().At(i).Type(), r); err != nil {
				return err
			}
			exitParams = append(exitParams, r+" *"+ts)
			exitArgs = append(exitArgs, "&"+r)
			reads = append(reads, "s."+r+" = *"+r)
		}
	}
	switch {
	case len(s.Targets) > 1:
		sg.declare("target", "int")
		sg.tmpl.Before = append([]string{"s.target = " + target}, sg.tmpl.Before...)
	case target != "":
		// Its one target: a call of another function is not recorded.
		sg.tmpl.Pre += " && " + target + " == 1"
	}
	if sg.caps[plan.CapCaller] {
		if sg.callerPtr {
			sg.tmpl.Before = append(sg.tmpl.Before, "s.caller = cs.id")
		} else {
			sg.tmpl.Before = append(sg.tmpl.Before, "s.caller = caller")
		}
	}
	// A call whose only work is counting the callee's executions in
	// Cells (constantCells) counts them in its wrapper and calls.
	cellDecls, counts, countOnly := sg.constantCells()
	countOnly = countOnly && split == nil && target == "" && !viaRecv && !sg.callerPtr
	if !countOnly {
		if err := sg.filterSetup(); err != nil {
			return err
		}
		sg.publish()
		sg.takeClocks()
		if err := sg.action(); err != nil {
			return err
		}
	}

	if split != nil {
		return sg.splitDefer(split, call, params[0], args[0])
	}

	// The call itself, at the user's position.
	line := fmt.Sprintf("/*line %s:%d:%d*/", fi.tf.Name(), s.Line, s.Col)
	invoke := "f(" + strings.Join(forward, ", ") + ")"
	switch {
	case viaRecv || recv != nil:
		invoke = "recv." + sel.Sel.Name + "(" + strings.Join(forward, ", ") + ")"
	case direct.name != "":
		invoke = direct.name + "(" + strings.Join(forward, ", ") + ")"
	}
	resultList := ""
	if len(results) > 0 {
		resultList = " (" + strings.Join(results, ", ") + ")"
	}
	w, won := sg.name("call"), sg.name("record")
	fast := "\t\t" + line + invoke + "\n\t\treturn\n"
	if len(results) > 0 {
		fast = "\t\t" + line + strings.Join(resultNames, ", ") + " = " + invoke + "\n\t\treturn\n"
	}
	if countOnly {
		sg.tmpl = Template{Pre: sg.tmpl.Pre, Before: counts, Post: "true"}
		sg.fields = nil // no state
		wrapper := fmt.Sprintf("func %s%s(%s)%s {\n\t%s%s\n%s}", w, sg.tparam, strings.Join(params, ", "), resultList,
			prelude, strings.Join(counts, "\n\t"), strings.ReplaceAll(fast, "\t\t", "\t"))
		sg.callEdits(call, sel, viaRecv, recv, w, callerArg, calleeParam, &dispatchDecl)
		decls := append(cellDecls, wrapper)
		if direct.decl != "" {
			decls = append(decls, direct.decl)
		}
		return sg.finishTaking(gs, decls...)
	}
	wrapper := fmt.Sprintf("func %s%s(%s)%s {\n\t%sif !(%s) {\n%s\t}\n\t%s%s%s(%s)\n\treturn\n}",
		w, sg.tparam, strings.Join(params, ", "), resultList, prelude, sg.tmpl.Pre, fast, returnOrNot(results), won, sg.targs, strings.Join(paramNames(params), ", "))
	if len(results) > 0 {
		wrapper = fmt.Sprintf("func %s%s(%s)%s {\n\t%sif !(%s) {\n%s\t}\n\treturn %s%s(%s)\n}",
			w, sg.tparam, strings.Join(params, ", "), resultList, prelude, sg.tmpl.Pre, fast, won, sg.targs, strings.Join(paramNames(params), ", "))
	}
	var rec strings.Builder
	fmt.Fprintf(&rec, "func %s%s(%s)%s {\n\tvar s %s%s\n\ts.on = true\n", won, sg.tparam, strings.Join(params, ", "), resultList, sg.name("state"), sg.targs)
	for _, l := range sg.tmpl.Before {
		rec.WriteString("\t" + l + "\n")
	}
	// Executions the pre-condition filtered out defer nothing, nor those
	// whose tuples were all recorded when they began.
	if len(sg.tmpl.Action) > 0 || len(sg.tmpl.After) > 0 {
		fmt.Fprintf(&rec, "\tif s.on {\n\t\tdefer %s%s(%s)\n\t}\n", sg.name("exit"), sg.targs, strings.Join(append([]string{"&s"}, exitArgs...), ", "))
	}
	if len(results) > 0 {
		fmt.Fprintf(&rec, "\t%s%s = %s\n", line, strings.Join(resultNames, ", "), invoke)
	} else {
		fmt.Fprintf(&rec, "\t%s%s\n", line, invoke)
	}
	rec.WriteString("\ts.ok = true\n\treturn\n}")

	sg.callEdits(call, sel, viaRecv, recv, w, callerArg, calleeParam, &dispatchDecl)
	decls := []string{sg.stateDecl(), wrapper, rec.String(), sg.exitDecl(exitParams, reads)}
	for _, d := range []string{dispatchDecl, direct.decl} {
		if d != "" {
			decls = append(decls, d)
		}
	}
	return sg.finishTaking(gs, decls...)
}

// finishTaking finishes a call site whose wrapper takes the part of go
// site gs (nil: none), which then has no wrapper of its own.
func (sg *siteGen) finishTaking(gs *goStart, decls ...string) error {
	if err := sg.finish(decls...); err != nil {
		return err
	}
	if gs != nil {
		gs.taken = true
	}
	return nil
}

// forwardedParams are the parameters p1, p2, ... of a wrapper that
// forwards the arguments of a call of a function of signature sig, and
// the arguments by which it forwards them (p3... for a variadic one).
func (sg *siteGen) forwardedParams(sig *types.Signature) (params, forward []string, err error) {
	for i := 0; i < sig.Params().Len(); i++ {
		p := "p" + strconv.Itoa(i+1)
		ts, err := sg.typeName(sig.Params().At(i).Type())
		if err != nil {
			return nil, nil, err
		}
		if sig.Variadic() && i == sig.Params().Len()-1 {
			params = append(params, p+" ..."+strings.TrimPrefix(ts, "[]"))
			forward = append(forward, p+"...")
		} else {
			params = append(params, p+" "+ts)
			forward = append(forward, p)
		}
	}
	return params, forward, nil
}

// staticCallee is how a call site's wrapper calls a static callee by
// its name: a function (name), or a method of the receiver it takes
// (recv, of type recvType). The zero value: through the function value.
type staticCallee struct {
	name     string
	recv     *receiverArg
	recvType string
	decl     string // a declaration name needs, or ""
}

// wrapperLocals are the names a call site's wrapper and record
// function declare, which would hide a function of the package by that
// name.
var wrapperLocals = regexp.MustCompile(`^(f|s|cs|caller|recv|[pr][0-9]+)$`)

// calleeAlias calls function name, of signature sig, of the package,
// which the wrapper's variables would hide, through a function of the
// package that calls it by name: a static call, which escape analysis
// sees through. Its parameters have the package's unused prefix.
func (sg *siteGen) calleeAlias(name string, sig *types.Signature) staticCallee {
	params, forward, err := sg.forwardedParams(sig)
	if err != nil {
		return staticCallee{}
	}
	for i := range params {
		params[i], forward[i] = sg.p+params[i], sg.p+forward[i]
	}
	var results []string
	for i := 0; i < sig.Results().Len(); i++ {
		ts, err := sg.typeName(sig.Results().At(i).Type())
		if err != nil {
			return staticCallee{}
		}
		results = append(results, ts)
	}
	alias, ret := sg.name("callee"), ""
	if len(results) > 0 {
		ret = "return "
	}
	// The call has the user's position, as the wrapper's has.
	line := fmt.Sprintf("/*line %s:%d:%d*/", sg.fi.tf.Name(), sg.s.Line, sg.s.Col)
	decl := fmt.Sprintf("func %s(%s) (%s) {\n\t%s%s%s(%s)\n}", alias, strings.Join(params, ", "), strings.Join(results, ", "), line, ret, name, strings.Join(forward, ", "))
	return staticCallee{name: alias, decl: decl}
}

// staticCallee returns how the wrapper of call, whose site is static,
// calls its callee by name: a function or a method of the package or
// of another, neither generic nor of C; else the zero value.
func (sg *siteGen) staticCallee(call *ast.CallExpr) staticCallee {
	info := sg.fi.pkg.TypesInfo
	fn := typeutil.StaticCallee(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() == "C" || strings.HasPrefix(fn.Name(), "_C") || fn.Origin() != fn {
		return staticCallee{}
	}
	sig := fn.Type().(*types.Signature)
	if sig.TypeParams().Len() > 0 || sig.RecvTypeParams().Len() > 0 {
		return staticCallee{}
	}
	if sig.Recv() == nil {
		if _, ok := ast.Unparen(call.Fun).(*ast.IndexExpr); ok {
			return staticCallee{}
		}
		if samePackage(fn.Pkg(), sg.self) {
			if wrapperLocals.MatchString(fn.Name()) {
				return sg.calleeAlias(fn.Name(), sig)
			}
			return staticCallee{name: fn.Name()}
		}
		return staticCallee{name: sg.pc.importName(fn.Pkg().Path()) + "." + fn.Name()}
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok || sel != call.Fun {
		return staticCallee{}
	}
	arg, recv, err := sg.methodReceiver(call, sel.X)
	if err != nil {
		return staticCallee{}
	}
	rt, err := sg.typeName(recv)
	if err != nil {
		return staticCallee{}
	}
	return staticCallee{recv: &arg, recvType: rt}
}

// callEdits rewrites the call F(A...) into W(caller, F, A...), w the
// wrapper's name: the arguments stay where they are, so that the edits
// of call sites among them apply too. A go statement's call through an
// interface adds the check of its receiver to dispatchDecl.
func (sg *siteGen) callEdits(call *ast.CallExpr, sel *ast.SelectorExpr, viaRecv bool, recv *receiverArg, w, caller, calleeParam string, dispatchDecl *string) {
	s, fi := sg.s, sg.fi
	start, end := fi.tf.Offset(call.Pos()), fi.tf.Offset(call.End())
	lparen := fi.tf.Offset(call.Lparen)
	order := orderCall*1_000_000 + (1_000_000 - (end - start)) // outer first
	open, afterRecv := w+sg.uargs+"("+caller+", ", ", "
	if recv != nil {
		// A static method's receiver: x, &(x.E) or *(x), as x.M binds it.
		open, afterRecv = open+recv.open, recv.close+", "
	}
	if viaRecv && s.Via == "go" {
		// go x.M() evaluates the method value x.M in the goroutine of
		// the go statement, which panics there if x is nil: so does
		// check(x).
		check := sg.name("check")
		open += check + sg.uargs + "("
		afterRecv = "), "
		*dispatchDecl += fmt.Sprintf("\n\nfunc %s%s(%sx %s) %s {\n\tm := %sx.%s\n\t_ = m\n\treturn %sx\n}",
			check, sg.tparam, sg.p, strings.TrimPrefix(calleeParam, "recv "), strings.TrimPrefix(calleeParam, "recv "), sg.p, sel.Sel.Name, sg.p)
	}
	sg.edits = append(sg.edits, Edit{Off: start, End: start, Text: open, Order: order})
	if viaRecv || recv != nil {
		sg.edits = append(sg.edits, Edit{Off: fi.tf.Offset(sel.X.End()), End: lparen + 1, Text: afterRecv})
	} else {
		if inst := sg.instantiation(call.Fun); inst != "" {
			funEnd := fi.tf.Offset(call.Fun.End())
			sg.edits = append(sg.edits, Edit{Off: funEnd, End: funEnd, Text: inst})
		}
		sg.edits = append(sg.edits, Edit{Off: lparen, End: lparen + 1, Text: ", "})
	}
}

// callerSensitive are the functions, by runtime name, whose result
// depends on which function calls them: a call site that wrapped them
// would change what they return (runtime.Caller(0) would name the
// wrapper, t.Helper() would mark it).
var callerSensitive = map[string]bool{
	"runtime.Caller":           true,
	"runtime.Callers":          true,
	"runtime.Stack":            true,
	"runtime/debug.Stack":      true,
	"runtime/debug.PrintStack": true,
	"testing.(*common).Helper": true,
	"testing.(*T).Helper":      true,
	"testing.(*B).Helper":      true,
	"testing.(*F).Helper":      true,
	// They report the line of the first caller not marked as a helper.
	"testing.(*common).Log":    true,
	"testing.(*common).Logf":   true,
	"testing.(*common).Error":  true,
	"testing.(*common).Errorf": true,
	"testing.(*common).Fatal":  true,
	"testing.(*common).Fatalf": true,
	"testing.(*common).Skip":   true,
	"testing.(*common).Skipf":  true,
}

func returnOrNot(results []string) string {
	if len(results) > 0 {
		return "return "
	}
	return ""
}

// paramNames turns "name type" parameters into arguments that forward
// them, variadic ones with "...".
func paramNames(params []string) []string {
	var out []string
	for _, p := range params {
		name, typ, _ := strings.Cut(p, " ")
		if strings.HasPrefix(typ, "...") {
			name += "..."
		}
		out = append(out, name)
	}
	return out
}

// callerState returns the state variable, and the site, of the
// definition site of the function whose body holds this call site, if
// that site is instrumented.
func (sg *siteGen) callerState() (string, *plan.Site) {
	for _, t := range sg.s.Targets {
		for _, e := range t.Emits {
			if e.CallerSite != nil && sg.g.done[e.CallerSite] {
				sg.g.stateUsed[e.CallerSite.Index+1] = true
				return sg.p + "s" + strconv.Itoa(sg.g.local[e.CallerSite]), e.CallerSite
			}
		}
	}
	return "", nil
}

// instantiation returns the type arguments a generic callee needs to be
// passed as a value, when the call leaves them to inference.
func (sg *siteGen) instantiation(fun ast.Expr) string {
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return "" // explicit instantiation, or not generic
	}
	inst, ok := sg.fi.pkg.TypesInfo.Instances[id]
	if !ok || inst.TypeArgs.Len() == 0 {
		return ""
	}
	var args []string
	for i := 0; i < inst.TypeArgs.Len(); i++ {
		ts, err := sg.g.typeName(sg.pc, sg.self, inst.TypeArgs.At(i))
		if err != nil {
			return "" // the build will say why
		}
		args = append(args, ts)
		// ts names packages as the helpers import them: the user's file
		// must import them too, under those names.
		types.TypeString(inst.TypeArgs.At(i), func(p *types.Package) string {
			if p != sg.self {
				sg.imports = append(sg.imports, p.Path())
			}
			return ""
		})
	}
	return "[" + strings.Join(args, ", ") + "]"
}

// dispatch returns the expression that tells which target a call of the
// method sel.Sel through an interface of type iface (written ifaceName)
// runs, by the receiver's dynamic type, and the declaration of the
// function it calls: a type switch in a function whose only local name
// is generated, so that the receiver types' names are not shadowed by
// those of the helpers (recv, s, f, ...). Its cases are the dynamic
// types whose method sets select a target: the target's receiver type,
// and every type that promotes the method from an embedded field
// (dispatchTypes).
func (sg *siteGen) dispatch(sel *ast.SelectorExpr, iface types.Type) (string, string, error) {
	dts, err := sg.dispatchTypes(sel, iface)
	if err != nil {
		return "", "", err
	}
	x, v, test := sg.p+"x", sg.p+"v", sg.name("target")+sg.targs
	var b strings.Builder
	forwards := slices.ContainsFunc(dts, func(dt dispatchType) bool { return dt.target < 0 })
	if forwards {
		fmt.Fprintf(&b, "func %s%s(%s interface{}) int {\n\tswitch %s := %s.(type) {", sg.name("target"), sg.tparam, x, v, x)
	} else {
		fmt.Fprintf(&b, "func %s%s(%s interface{}) int {\n\tswitch %s.(type) {", sg.name("target"), sg.tparam, x, x)
	}
	emitted := map[string]bool{} // a type once (the instantiations of two loads of a package)
	for i := range sg.s.Targets {
		var cases []string
		for _, dt := range dts {
			if dt.target != i || dt.generic != nil || dt.hidden != nil {
				continue
			}
			ts, err := sg.typeName(dt.t)
			if err != nil {
				return "", "", err
			}
			if !emitted[ts] {
				emitted[ts] = true
				cases = append(cases, ts)
			}
		}
		if len(cases) > 0 {
			fmt.Fprintf(&b, "\n\tcase %s:\n\t\treturn %d", strings.Join(cases, ", "), i+1)
		}
	}
	// A type that forwards the method to an embedded interface runs
	// what the embedded value's dynamic type runs: the test of that
	// value, unless a nil pointer on the way makes the call panic.
	for _, dt := range dts {
		if dt.target >= 0 {
			continue
		}
		ts, err := sg.typeName(dt.t)
		if err != nil {
			return "", "", err
		}
		if emitted[ts] {
			continue
		}
		emitted[ts] = true
		fmt.Fprintf(&b, "\n\tcase %s:", ts)
		expr := v
		for _, step := range dt.path {
			if step.nilable {
				fmt.Fprintf(&b, "\n\t\tif %s == nil {\n\t\t\treturn 0\n\t\t}", expr)
			}
			expr += "." + step.field
		}
		fmt.Fprintf(&b, "\n\t\treturn %s(%s)", test, expr)
	}
	b.WriteString("\n\t}")
	// The types told by their names: generic ones first, then those the
	// site cannot name.
	for _, fn := range []string{"Generic", "Named"} {
		for _, dt := range dts {
			tn := dt.generic
			if fn == "Named" {
				tn = dt.hidden
			}
			if tn == nil {
				continue
			}
			pkg := tn.Pkg()
			fmt.Fprintf(&b, "\n\tif %s.%s(%s, %s, %s, %t, %t) {\n\t\treturn %d\n\t}", sg.pc.Imports[sg.g.rtPath], fn, x,
				strconv.Quote(pkg.Path()), strconv.Quote(tn.Name()), pkg.Name() == "main", dt.pointer, dt.target+1)
		}
	}
	b.WriteString("\n\treturn 0\n}")
	return test + "(recv)", b.String(), nil
}

// A dispatchType is a dynamic type of an interface call's receiver that
// runs the site's target (by index in Targets).
type dispatchType struct {
	t      types.Type
	target int // -1: the type forwards the method to an embedded interface
	path   []fieldStep
	// generic is a generic type whose instantiations the sources do not
	// all write, told by its name at run time; pointer: *T.
	generic *types.TypeName
	// hidden is a type the site's package cannot name (unexported in
	// another package), told by its name at run time too.
	hidden  *types.TypeName
	pointer bool
}

// A fieldStep is an embedded field on the way from a dynamic type to the
// interface it embeds: its name, and whether the value it is selected
// from is a pointer (nil makes the call panic, and runs no target).
type fieldStep struct {
	field   string
	nilable bool
}

// dispatchTypes returns the dynamic types an interface call of sel.Sel
// through iface runs one of the site's targets for: of the named types
// of the loaded packages and the targets' receiver types, each T and
// *T that implements iface and whose method set selects a target,
// declared or promoted from an embedded field (Rect embedding Base runs
// Base.Name). A generic type whose instantiations the sources do not all
// write, and a type the site's package cannot name (unexported in
// another package), are told by their names at run time. A type whose
// method the site cannot tell otherwise is an error, so that the site is
// left out and the answers say so: a type declared in a function, or
// one that forwards the method to an embedded interface it cannot
// reach.
func (sg *siteGen) dispatchTypes(sel *ast.SelectorExpr, iface types.Type) ([]dispatchType, error) {
	it, ok := iface.Underlying().(*types.Interface)
	if !ok {
		return nil, fmt.Errorf("the receiver of %s is not an interface", sel.Sel.Name)
	}
	targets := map[string]int{}
	for i, t := range sg.s.Targets {
		targets[strings.ReplaceAll(t.Function, "[...]", "")] = i
	}
	var mpkg *types.Package
	if s, ok := sg.fi.pkg.TypesInfo.Selections[sel]; ok {
		mpkg = s.Obj().Pkg()
	}
	obj, _, _ := types.LookupFieldOrMethod(it, false, mpkg, sel.Sel.Name)
	im, ok := obj.(*types.Func)
	if !ok {
		return nil, fmt.Errorf("the interface has no method %s", sel.Sel.Name)
	}
	var err error
	names := sg.candidateTypes()
	// In generic code the interface's method may name type parameters
	// (Getter[T]): its signature tells no dynamic type apart.
	anySig := hasTypeParam(im.Type())
	var out []dispatchType
	for _, tn := range names {
		named, ok := tn.Type().(*types.Named)
		if !ok || types.IsInterface(named) {
			continue
		}
		// The types to test: the type itself, or each instantiation
		// of a generic one the sources write (Inner[int] promotes
		// Get() int); when they do not write them all, the generic
		// type itself, told at run time by its name (pmmrt.Generic).
		bases := []*types.Named{named}
		byName := false
		var instErr error
		if named.TypeParams().Len() > 0 {
			bases, instErr = sg.instantiations(named)
			if instErr != nil {
				bases, byName = []*types.Named{named}, true
			}
		}
		for _, base := range bases {
			for _, dt := range []types.Type{base, types.NewPointer(base)} {
				// Every type whose method of that name may run: one
				// that implements the interface, or an interface a type
				// forwarding to it embeds (the test takes an
				// interface{}).
				obj, index, _ := types.LookupFieldOrMethod(dt, false, mpkg, sel.Sel.Name)
				fn, ok := obj.(*types.Func)
				if !ok || !anySig && !byName && !types.Identical(withoutRecv(fn.Type()), withoutRecv(im.Type())) {
					continue
				}
				i := -1
				var path []fieldStep
				recv := fn.Type().(*types.Signature).Recv()
				if recv != nil && types.IsInterface(recv.Type()) {
					// The method of an embedded interface: it runs the
					// method of the embedded value's dynamic type, when
					// that may be a target.
					if _, ok := sg.forwardsTo(recv.Type()); !ok {
						continue
					}
					if path, err = sg.embeddedPath(dt, index); err != nil {
						return nil, fmt.Errorf("the dynamic type %s forwards %s to an embedded interface, and %v", dt, sel.Sel.Name, err)
					}
				} else if i, ok = targets[methodRuntimeName(fn)]; !ok {
					continue
				}
				runs := "a target"
				if i >= 0 {
					runs = sg.s.Targets[i].Function
				}
				switch {
				case tn.Parent() != tn.Pkg().Scope():
					return nil, fmt.Errorf("the dynamic type %s, which runs %s, is declared in a function, and the site cannot name it", dt, runs)
				case byName && i < 0:
					return nil, fmt.Errorf("the dynamic type %s, which runs %s, is generic, and %v", dt, runs, instErr)
				case byName:
					_, pointer := dt.(*types.Pointer)
					out = append(out, dispatchType{t: dt, target: i, generic: tn, pointer: pointer})
				case i >= 0 && !tn.Exported() && !samePackage(tn.Pkg(), sg.self):
					// A type of another package the site cannot name
					// (circ of pkg, dispatched to from main), told by
					// its name: a case cannot list it.
					_, pointer := dt.(*types.Pointer)
					out = append(out, dispatchType{t: dt, target: i, hidden: tn, pointer: pointer})
				default:
					out = append(out, dispatchType{t: dt, target: i, path: path})
				}
			}
		}
	}
	return out, nil
}

// withoutRecv is a method's signature without its receiver.
func withoutRecv(t types.Type) types.Type {
	sig := t.(*types.Signature)
	return types.NewSignatureType(nil, nil, nil, sig.Params(), sig.Results(), sig.Variadic())
}

// embeddedPath returns the embedded fields that lead from the type t to
// the interface that declares the method at index (LookupFieldOrMethod's
// path), each accessible from the site's package.
func (sg *siteGen) embeddedPath(t types.Type, index []int) ([]fieldStep, error) {
	var path []fieldStep
	for _, i := range index[:len(index)-1] {
		nilable := false
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t, nilable = p.Elem(), true
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return nil, fmt.Errorf("the path to it is not through fields")
		}
		f := st.Field(i)
		if !f.Exported() && !samePackage(f.Pkg(), sg.self) {
			return nil, fmt.Errorf("its field %s is not exported", f.Name())
		}
		path = append(path, fieldStep{f.Name(), nilable})
		t = f.Type()
	}
	return path, nil
}

// forwardsTo returns a target of the site whose receiver type (T or *T)
// implements the embedded interface iface, so that a value embedding
// iface may run it.
func (sg *siteGen) forwardsTo(iface types.Type) (string, bool) {
	it, ok := iface.Underlying().(*types.Interface)
	if !ok {
		return "", false
	}
	for _, t := range sg.s.Targets {
		tn, err := sg.receiverTypeName(t.Function)
		if err != nil {
			return t.Function, true // not known: it may
		}
		if n, ok := tn.Type().(*types.Named); ok && n.TypeParams().Len() > 0 {
			return t.Function, true // an instantiation may
		}
		if types.Implements(tn.Type(), it) || types.Implements(types.NewPointer(tn.Type()), it) {
			return t.Function, true
		}
	}
	return "", false
}

// instantiations returns the instantiations of the generic type named
// that the loaded packages write (Box[int], Box[string]), or an error
// when one of them has a type parameter as argument (Box[U] in a generic
// function F[U]): the type arguments it runs with are not in the
// sources, so no type switch can list them. The instantiation by the
// type's own parameters, as in its methods' receivers, is the type
// itself, not one of them.
func (sg *siteGen) instantiations(named *types.Named) ([]*types.Named, error) {
	var out []*types.Named
	seen := map[*types.Package]bool{}
	var paths []string
	for path := range sg.g.files {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		info := sg.g.files[path].pkg
		if info.Types == nil || seen[info.Types] {
			continue
		}
		seen[info.Types] = true
		var ids []*ast.Ident
		for id := range info.TypesInfo.Instances {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool { return ids[i].Pos() < ids[j].Pos() })
		for _, id := range ids {
			inst, ok := info.TypesInfo.Instances[id].Type.(*types.Named)
			if !ok || inst.Origin() != named.Origin() {
				continue
			}
			if ownParams(inst) {
				continue
			}
			for i := 0; i < inst.TypeArgs().Len(); i++ {
				if hasTypeParam(inst.TypeArgs().At(i)) {
					pos := info.Fset.Position(id.Pos())
					if rel, err := filepath.Rel(sg.g.root, pos.Filename); err == nil {
						pos.Filename = rel
					}
					return nil, fmt.Errorf("%s is instantiated with a type parameter at %s, so a type switch cannot tell its instantiations", inst, pos)
				}
			}
			if !slices.ContainsFunc(out, func(o *types.Named) bool { return types.Identical(o, inst) }) {
				out = append(out, inst)
			}
		}
	}
	return out, nil
}

// ownParams says whether a generic type is instantiated with its own
// type parameters, in order: those it declares, or those of the
// receiver of one of its methods (which range over its instantiations).
func ownParams(inst *types.Named) bool {
	origin := inst.Origin()
	lists := []*types.TypeParamList{origin.TypeParams()}
	for i := 0; i < origin.NumMethods(); i++ {
		lists = append(lists, origin.Method(i).Type().(*types.Signature).RecvTypeParams())
	}
	for _, tps := range lists {
		if tps == nil || inst.TypeArgs().Len() != tps.Len() {
			continue
		}
		same := true
		for i := 0; i < tps.Len(); i++ {
			same = same && inst.TypeArgs().At(i) == types.Type(tps.At(i))
		}
		if same {
			return true
		}
	}
	return false
}

// hasTypeParam says whether t mentions a type parameter.
func hasTypeParam(t types.Type) bool {
	found := false
	var visit func(t types.Type)
	seen := map[types.Type]bool{}
	visit = func(t types.Type) {
		if found || seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.TypeParam:
			found = true
		case *types.Pointer:
			visit(t.Elem())
		case *types.Slice:
			visit(t.Elem())
		case *types.Array:
			visit(t.Elem())
		case *types.Map:
			visit(t.Key())
			visit(t.Elem())
		case *types.Chan:
			visit(t.Elem())
		case *types.Named:
			for i := 0; i < t.TypeArgs().Len(); i++ {
				visit(t.TypeArgs().At(i))
			}
		case *types.Alias:
			visit(types.Unalias(t))
		case *types.Signature:
			for i := 0; i < t.Params().Len(); i++ {
				visit(t.Params().At(i).Type())
			}
			for i := 0; i < t.Results().Len(); i++ {
				visit(t.Results().At(i).Type())
			}
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				visit(t.Field(i).Type())
			}
		case *types.Interface:
			for i := 0; i < t.NumMethods(); i++ {
				visit(t.Method(i).Type())
			}
		}
	}
	visit(t)
	return found
}

// candidateTypes returns the types that may be a dynamic type at the
// site: every type name of the loaded packages, those declared in
// functions included, the package-level ones of their dependencies, and
// the site's targets' receiver types (a target outside the module).
func (sg *siteGen) candidateTypes() []*types.TypeName {
	names, ok := sg.g.candidates[sg.fi.pkg]
	if !ok {
		names = sg.loadedTypes()
		if sg.g.candidates == nil {
			sg.g.candidates = map[*packages.Package][]*types.TypeName{}
		}
		sg.g.candidates[sg.fi.pkg] = names
	}
	names = slices.Clone(names)
	for _, t := range sg.s.Targets {
		if tn, err := sg.receiverTypeName(t.Function); err == nil && !slices.Contains(names, tn) {
			names = append(names, tn)
		}
	}
	return names
}

// loadedTypes returns the type names of the loaded packages, from the
// site's package first, those declared in functions included, and the
// package-level ones of their dependencies.
func (sg *siteGen) loadedTypes() []*types.TypeName {
	// A package loaded with its tests is loaded twice (p and p [p.test]):
	// a type is one by its package's path and name, from the site's
	// package first.
	var names []*types.TypeName
	seen := map[string]bool{}
	add := func(tn *types.TypeName) {
		if tn == nil || tn.IsAlias() || tn.Pkg() == nil {
			return
		}
		key := tn.Pkg().Path() + "." + tn.Name()
		if tn.Parent() != tn.Pkg().Scope() {
			key = fmt.Sprintf("%s@%v", key, sg.fi.pkg.Fset.Position(tn.Pos()))
		}
		if !seen[key] {
			seen[key] = true
			names = append(names, tn)
		}
	}
	pkgs := map[*types.Package]bool{}
	var paths []string
	for path := range sg.g.files {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	paths = slices.Insert(paths, 0, sg.fi.tf.Name())
	for _, path := range paths {
		fi := sg.g.files[path]
		if path == sg.fi.tf.Name() {
			fi = sg.fi
		}
		if fi.pkg.Types == nil || pkgs[fi.pkg.Types] || fi.pkg.TypesInfo == nil {
			continue
		}
		pkgs[fi.pkg.Types] = true
		defs := make([]*types.TypeName, 0)
		for _, obj := range fi.pkg.TypesInfo.Defs {
			if tn, ok := obj.(*types.TypeName); ok {
				defs = append(defs, tn)
			}
		}
		sort.Slice(defs, func(i, j int) bool { return defs[i].Pos() < defs[j].Pos() })
		for _, tn := range defs {
			add(tn)
		}
	}
	// The package-level types of the packages loaded without their
	// syntax (dependencies), and the targets' receiver types.
	var visit func(p *types.Package)
	visit = func(p *types.Package) {
		if p == nil || pkgs[p] {
			return
		}
		pkgs[p] = true
		for _, name := range p.Scope().Names() {
			if tn, ok := p.Scope().Lookup(name).(*types.TypeName); ok {
				add(tn)
			}
		}
		for _, q := range p.Imports() {
			visit(q)
		}
	}
	for _, path := range paths {
		if sg.g.files[path].pkg.Types == nil {
			continue
		}
		for _, q := range sg.g.files[path].pkg.Types.Imports() {
			visit(q)
		}
	}
	return names
}

// methodRuntimeName returns the name the runtime gives a declared
// method, pkg.T.M or pkg.(*T).M, without the type arguments of a
// generic receiver.
func methodRuntimeName(fn *types.Func) string {
	fn = fn.Origin()
	recv := fn.Type().(*types.Signature).Recv()
	if recv == nil || fn.Pkg() == nil {
		return fn.FullName()
	}
	t, pointer := recv.Type(), false
	if p, ok := t.(*types.Pointer); ok {
		t, pointer = p.Elem(), true
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return fn.FullName()
	}
	pkg := fn.Pkg().Path()
	if fn.Pkg().Name() == "main" {
		pkg = "main"
	}
	if pointer {
		return pkg + ".(*" + named.Obj().Name() + ")." + fn.Name()
	}
	return pkg + "." + named.Obj().Name() + "." + fn.Name()
}

// receiverTypeName finds the named receiver type of a method by its
// runtime name (pkg.T.M or pkg.(*T).M).
func (sg *siteGen) receiverTypeName(name string) (*types.TypeName, error) {
	i := strings.LastIndex(name, ".")
	if i < 0 {
		return nil, fmt.Errorf("%s is not a method", name)
	}
	rest := name[:i]
	var pkgPath, typeName string
	if strings.HasSuffix(rest, ")") {
		j := strings.LastIndex(rest, ".(*")
		if j < 0 {
			return nil, fmt.Errorf("%s is not a method", name)
		}
		pkgPath, typeName = rest[:j], strings.TrimSuffix(rest[j+3:], ")")
	} else {
		j := strings.LastIndex(rest, ".")
		if j < 0 {
			return nil, fmt.Errorf("%s is not a method", name)
		}
		pkgPath, typeName = rest[:j], rest[j+1:]
	}
	typeName = strings.TrimSuffix(typeName, "[...]")
	pkg := sg.g.findPackage(pkgPath, sg.self)
	if pkg == nil {
		return nil, fmt.Errorf("the package of %s is not loaded", name)
	}
	tn, ok := pkg.Scope().Lookup(typeName).(*types.TypeName)
	if !ok {
		return nil, fmt.Errorf("no type %s in %s", typeName, pkgPath)
	}
	return tn, nil
}

// findPackage finds a package by path among those self imports,
// transitively.
func (g *generator) findPackage(path string, self *types.Package) *types.Package {
	seen := map[*types.Package]bool{}
	var visit func(p *types.Package) *types.Package
	visit = func(p *types.Package) *types.Package {
		if seen[p] {
			return nil
		}
		seen[p] = true
		if p.Path() == path || path == "main" && p.Name() == "main" {
			return p
		}
		for _, q := range p.Imports() {
			if r := visit(q); r != nil {
				return r
			}
		}
		return nil
	}
	return visit(self)
}

// deferrable reports whether the callee of a deferred call calls
// recover itself (recover works only when called by the deferred
// function, so such a call must stay a direct deferred call), and an
// error when it cannot tell.
func (g *generator) deferrable(fi *fileInfo, call *ast.CallExpr) (bool, error) {
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok {
		return callsRecover(lit.Body), nil
	}
	fn := typeutil.StaticCallee(fi.pkg.TypesInfo, call)
	if fn == nil {
		return false, fmt.Errorf("a deferred call of a dynamic function may call recover, which must stay direct")
	}
	pos := fi.pkg.Fset.Position(fn.Pos())
	if g.files[pos.Filename] != nil {
		if body, _ := g.bodyOf(fi.pkg.Fset, fn); body != nil {
			return callsRecover(body), nil
		}
		return false, nil
	}
	if pos.Filename == "" {
		if !standard(fn) {
			return false, fmt.Errorf("cannot tell whether %s calls recover: its source is not available", fn.FullName())
		}
		return false, nil
	}
	// A package without sites, a dependency or the standard library:
	// read the callee's source.
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, pos.Filename, nil, parser.SkipObjectResolution)
	if err != nil && !standard(fn) {
		return false, fmt.Errorf("cannot tell whether %s calls recover: %v", fn.FullName(), err)
	}
	if err != nil {
		return false, nil
	}
	for _, d := range file.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Name.Name == fn.Name() && fset.Position(d.Name.Pos()).Line == pos.Line && d.Body != nil {
			return callsRecover(d.Body), nil
		}
	}
	return false, nil
}

// standard reports whether fn looks like a function of the standard
// library, none of whose deferrable functions recovers.
func standard(fn *types.Func) bool {
	return fn.Pkg() != nil && !strings.Contains(strings.Split(fn.Pkg().Path(), "/")[0], ".")
}

// callsRecover reports whether body calls recover itself. A function
// literal inside it that calls recover recovers only panics it is
// deferred for, by the function of body: wrapping a call of that
// function changes nothing for it.
func callsRecover(body *ast.BlockStmt) bool {
	calls := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && id.Name == "recover" {
				calls = true
			}
		}
		return !calls
	})
	return calls
}

// splittable returns the defer statement of a deferred call whose callee
// calls recover, when its site can be split around it: the call stays
// `defer F(A)`, between `defer exit(&s)` before it and `defer before(&s,
// A)` after it, which run after and before it. So the site must not
// need F to tell which function runs, and A must be evaluated twice with
// no effect.
func splittable(s *plan.Site, path []ast.Node, call *ast.CallExpr) (*ast.DeferStmt, error) {
	why := s.Function + " calls recover, so its deferred call stays direct"
	var d *ast.DeferStmt
	if len(path) >= 2 {
		d, _ = path[len(path)-2].(*ast.DeferStmt)
	}
	if d == nil || d.Call != call {
		return nil, fmt.Errorf("%s, and it is not a defer statement", why)
	}
	if s.Dynamic() {
		return nil, fmt.Errorf("%s, and the site cannot tell which function it runs", why)
	}
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && !pure(sel.X) {
		return nil, fmt.Errorf("%s, and its receiver may have effects", why)
	}
	for _, a := range call.Args {
		if !pure(a) {
			return nil, fmt.Errorf("%s, and its argument %s may have effects", why, types.ExprString(a))
		}
	}
	return d, nil
}

// pure reports whether evaluating e twice in a row gives the same value
// and has no effect: names, constants, selectors, and operators on them.
func pure(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return pure(e.X)
	case *ast.SelectorExpr:
		return pure(e.X)
	case *ast.StarExpr:
		return pure(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.ARROW && pure(e.X)
	case *ast.BinaryExpr:
		return pure(e.X) && pure(e.Y)
	case *ast.IndexExpr:
		return pure(e.X) && pure(e.Index)
	}
	return false
}

// splitDefer generates a deferred call of a function that recovers:
// `defer F(A)` becomes `{var d state; defer exit(&d); defer F(A); defer
// before(&d, caller, A)}`. The deferred calls run in reverse: before
// (the pre-condition and before-form), F, called directly by the
// deferring function as recover needs, then exit (after-form,
// post-condition, action). Nothing tells whether F returned: the site
// records no results (splittable).
func (sg *siteGen) splitDefer(d *ast.DeferStmt, call *ast.CallExpr, callerParam, callerArg string) error {
	var params, args []string
	params = append(params, "s *"+sg.name("state")+sg.targs, callerParam)
	sig, _ := sg.fi.pkg.TypesInfo.TypeOf(call.Fun).Underlying().(*types.Signature)
	for i := 0; i < sig.Params().Len(); i++ {
		ts, err := sg.typeName(sig.Params().At(i).Type())
		if err != nil {
			return err
		}
		p := "p" + strconv.Itoa(i+1)
		if sig.Variadic() && i == sig.Params().Len()-1 {
			params = append(params, p+" ..."+strings.TrimPrefix(ts, "[]"))
		} else {
			params = append(params, p+" "+ts)
		}
	}
	for _, a := range call.Args {
		args = append(args, types.ExprString(a))
	}
	if call.Ellipsis.IsValid() {
		args[len(args)-1] += "..."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "func %s%s(%s) {\n\tif !(%s) {\n\t\treturn\n\t}\n\ts.on = true\n", sg.name("before"), sg.tparam, strings.Join(params, ", "), sg.tmpl.Pre)
	for _, l := range sg.tmpl.Before {
		b.WriteString("\t" + l + "\n")
	}
	b.WriteString("}")
	v := sg.name("d")
	start, end := sg.fi.tf.Offset(d.Pos()), sg.fi.tf.Offset(d.End())
	exitArgs, exitParams := []string{"&" + v}, []string(nil)
	if sg.callerPtr {
		exitArgs, exitParams = append(exitArgs, callerArg), []string{callerParam}
	}
	open := "{var " + v + " " + sg.name("state") + sg.uargs + "; defer " + sg.name("exit") + sg.uargs + "(" + strings.Join(exitArgs, ", ") + "); "
	closing := "; defer " + sg.name("before") + sg.uargs + "(" + strings.Join(append([]string{"&" + v, callerArg}, args...), ", ") + ")}"
	sg.edits = append(sg.edits, Edit{Off: start, End: start, Text: open, Order: orderCall*1_000_000 + (1_000_000 - (end - start))}, Edit{Off: end, End: end, Text: closing})
	return sg.finish(sg.stateDecl(), b.String(), sg.exitDecl(exitParams, nil))
}

// publish makes a call site that records an execution only as the
// callee of a relation (Target.Publish) publish its id just before the
// call, once it knows which function runs, for that function's
// definition to adopt (adoptID); the call's end takes it back.
func (sg *siteGen) publish() {
	rt := sg.pc.Imports[sg.g.rtPath]
	declared := false
	for i, t := range sg.s.Targets {
		if !t.Publish || !sg.caps[plan.CapID] {
			continue
		}
		if !declared {
			declared = true
			sg.declare("exec", rt+".ExecCtx")
			sg.tmpl.After = append(sg.tmpl.After, "s.exec.Leave()")
		}
		when := "s.on"
		if len(sg.s.Targets) > 1 {
			when += " && s.target == " + strconv.Itoa(i+1)
		}
		sg.enters = append(sg.enters, "if "+when+" {", "\ts.exec = "+rt+".ExecEnterFor(s.id, "+strconv.FormatInt(t.FuncID, 10)+")", "}")
	}
}
