package instrument

import (
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// Blocking sites (issue 14): an operation that may block its goroutine,
// timed from its begin to when it proceeds. A receive, in any
// expression, goes through a helper that times it with a state of its
// own:
//
//	v, ok := <-ch          →  v, ok := pmm__recv5(ch)
//
// A send becomes a call of a helper the same way (ch <- v →
// pmm__send5(ch, v)), and so does a Lock or RLock (mu.Lock() →
// pmm__lock5(&(mu))); each helper first tries the operation without
// waiting (a select with default, TryLock, TryRLock), and records it
// timed only when that fails (state field waited): one that proceeded
// reads no clock, and is recorded with the duration 0, or not at all at
// a site whose plan says no question records it (Site.BlockedOnly). A
// select is tried first too (selectFirst), and so are the receives of a
// range over a channel (for c, v, ok := pmm__first5(ch); ok; v, ok =
// pmm__range5(c) {). A WaitGroup.Wait, a
// Cond.Wait, a select that cannot be rewritten so, and a Lock whose
// call is also a call site are timed whole by code before them and
// after them (at the top of each case, for a select), with a state
// declared at the top of the body, and counted as blocked. An operation
// that panics (a send on a closed channel) has no end: it began and did
// not end, as an execution that panicked out of main does.
//
// In a generic function (or a method of a generic type) the state, its
// functions and the helpers are generic in its type parameters, renamed
// in the helpers, and the body names them by their own names:
//
//	v := <-ch              →  v := pmm__recv5[T](ch)
//
// A channel whose type is a type parameter (C ~chan int) is not one the
// helpers take: its operations are skipped.

// blockingSite generates blocking site s.
func (g *generator) blockingSite(s *plan.Site, fi *fileInfo, n ast.Node, path []ast.Node) error {
	var body *ast.BlockStmt
	for i := len(path) - 1; i >= 0 && body == nil; i-- {
		switch f := path[i].(type) {
		case *ast.FuncDecl:
			body = f.Body
		case *ast.FuncLit:
			body = f.Body
		}
	}
	if body == nil {
		return fmt.Errorf("the %s at %s is not in a function body", s.Label, s.Position())
	}
	var op *static.BlockingOp
	for _, o := range static.FindBlocking(fi.pkg.Fset, fi.pkg.TypesInfo, body) {
		if o.Node == n {
			op = &o
		}
	}
	if op == nil {
		return fmt.Errorf("pmm bug: no blocking operation at %s", s.Position())
	}
	sg := g.newSiteGen(s, fi)
	// In a generic function the state and its functions are generic in
	// its type parameters, and so are the helpers, whose channels' and
	// values' types may name them: the helpers name them renamed
	// (targs), the function's body by their own names (uargs).
	if err := sg.typeParams(enclosingTypeParams(fi, body.Pos())); err != nil {
		return fmt.Errorf("the %s at %s is not instrumented: %v", s.Label, s.Position(), err)
	}
	sg.common()
	waited := captureCodes[plan.CapBlocked].field
	sg.declareShared(waited, "bool")
	sg.clocksWhenWaited()
	sg.takeClocks()
	if err := sg.action(); err != nil {
		return err
	}
	decls := append([]string{sg.stateDecl()}, sg.enterDecls(nil)...)
	decls = append(decls, sg.exitDecl(nil, nil))
	state, enter, exit := sg.name("state"), sg.name("enter"), sg.name("exit")
	// ended is the statements that end the operation on state v, by
	// case c of a select (-1: not a select), in the helpers (type
	// arguments targs) or in the function's body (uargs).
	ended := func(v string, c int, targs string) string {
		if sg.caps[plan.CapCase] {
			return fmt.Sprintf("%s.scase = %d; %s%s(&%s)", v, c, exit, targs, v)
		}
		return exit + targs + "(&" + v + ")"
	}
	at := func(p ast.Node, end bool, text string) Edit {
		off := fi.tf.Offset(p.Pos())
		if end {
			off = fi.tf.Offset(p.End())
		}
		return Edit{Off: off, End: off, Text: text, Order: orderRegion}
	}
	// closing ends the call that wraps n.
	closing := func(n ast.Node) Edit {
		off := fi.tf.Offset(n.End())
		return Edit{Off: off, End: off, Text: ")", Order: orderWrapEnd}
	}
	// attempted is the body of a helper that first tries operation op
	// without waiting (try, a condition, or a select's case that does
	// the operation: "case v := <-c:"), and returns by ret when it
	// proceeded; otherwise it records the operation, waited, timed
	// around op. An operation that did not wait is recorded without
	// reading the clock (its duration is 0), or not at all where no
	// question records one (plan.Site.BlockedOnly). object sets the
	// state's object, where it is captured.
	attempted := func(try, do, ret, object string) string {
		record := func(w bool) string {
			set := ""
			if w {
				set = "\ts." + waited + " = true\n"
			}
			return fmt.Sprintf("\tvar s %s%s\n%s%s\t%s%s(&s)\n", state, sg.targs, set, object, enter, sg.targs)
		}
		fast := ""
		if !s.BlockedOnly {
			fast = strings.ReplaceAll(record(false)+"\t"+ended("s", -1, sg.targs)+"\n", "\n\t", "\n\t\t")
			fast = "\t" + strings.TrimPrefix(fast, "\t")
		}
		var b strings.Builder
		if strings.HasPrefix(try, "case ") {
			fmt.Fprintf(&b, "\tselect {\n\t%s\n%s\t\t%s\n\tdefault:\n\t}\n", try, fast, ret)
		} else {
			fmt.Fprintf(&b, "\tif %s {\n%s\t\t%s\n\t}\n", try, fast, ret)
		}
		fmt.Fprintf(&b, "%s\t%s\n\t%s\n", record(true), do, ended("s", -1, sg.targs))
		if ret != "return" {
			b.WriteString("\t" + ret + "\n")
		}
		return b.String()
	}
	// chanHelper declares a helper of the channel operation, over a
	// channel of the operand's element type in direction dir; params and
	// results name the element type by a verb (%.0s: not at all).
	chanHelper := func(dir, params, results, try, do, ret string) (string, error) {
		ch, ok := fi.pkg.TypesInfo.TypeOf(op.Operand).Underlying().(*types.Chan)
		if !ok {
			return "", fmt.Errorf("the %s at %s is not on a channel type: pmm does not time an operation on a channel whose type is a type parameter", s.Label, s.Position())
		}
		elem, err := sg.typeName(ch.Elem())
		if err != nil {
			return "", err
		}
		name := sg.name(string(op.Kind))
		object := ""
		if sg.caps[plan.CapObject] {
			object = "\ts.obj = " + sg.chanAddress("c") + "\n"
		}
		decls = append(decls, fmt.Sprintf("func %s%s(c %s %s%s) %s {\n%s}",
			name, sg.tparam, dir, elem, fmt.Sprintf(params, elem), fmt.Sprintf(results, elem), attempted(try, do, ret, object)))
		return name + sg.uargs, nil
	}
	switch {
	case op.Kind == static.BlockRecv:
		u := op.Node.(*ast.UnaryExpr)
		results, try, recv, ret := "%s", "case v := <-c:", "v := <-c", "return v"
		if op.CommaOk {
			results, try, recv, ret = "(%s, bool)", "case v, ok := <-c:", "v, ok := <-c", "return v, ok"
		}
		name, err := chanHelper("<-chan", "%.0s", results, try, recv, ret)
		if err != nil {
			return err
		}
		off := fi.tf.Offset(u.OpPos)
		sg.edits = append(sg.edits, Edit{Off: off, End: off + 2, Text: name + "(", Order: orderRegion}, closing(u))
	case op.Kind == static.BlockSend:
		send := op.Node.(*ast.SendStmt)
		name, err := chanHelper("chan<-", ", v %s", "%.0s", "case c <- v:", "c <- v", "return")
		if err != nil {
			return err
		}
		off := fi.tf.Offset(send.Arrow)
		sg.edits = append(sg.edits, at(send, false, name+"("), Edit{Off: off, End: off + 2, Text: ",", Order: orderRegion}, closing(send))
	case (op.Kind == static.BlockLock || op.Kind == static.BlockRLock) && op.Stmt && !g.callSiteAt(s):
		// m.Lock() → pmm__lock5(&m): TryLock first.
		call := op.Node.(*ast.CallExpr)
		arg, mutex, err := sg.methodReceiver(call, op.Operand)
		if err != nil {
			return err
		}
		ts, err := sg.typeName(mutex)
		if err != nil {
			return err
		}
		method := typeutil.Callee(fi.pkg.TypesInfo, call).Name() // Lock, RLock
		object := ""
		if sg.caps[plan.CapObject] {
			object = "\ts.obj = int64(uintptr(" + sg.pc.importName("unsafe") + ".Pointer(m)))\n"
		}
		name := sg.name(string(op.Kind))
		decls = append(decls, fmt.Sprintf("func %s%s(m %s) {\n%s}", name, sg.tparam, ts,
			attempted("m.Try"+method+"()", "m."+method+"()", "return", object)))
		sel := call.Fun.(*ast.SelectorExpr)
		if fi.pkg.Fset.Position(sel.X.End()).Line != fi.pkg.Fset.Position(call.End()).Line {
			return fmt.Errorf("the %s at %s spans lines after its receiver: pmm rewrites it on one line", s.Label, s.Position())
		}
		sg.edits = append(sg.edits, at(call, false, name+sg.uargs+"("+arg.open),
			Edit{Off: fi.tf.Offset(sel.X.End()), End: fi.tf.Offset(call.End()), Text: arg.close + ")", Order: orderRegion})
	case op.Kind == static.BlockRange && sg.rangeTriable(op.Node.(*ast.RangeStmt)) == nil:
		// for v := range ch { → for c, v, ok := pmm__first5(ch); ok; v, ok = pmm__range5(c) {
		rs := op.Node.(*ast.RangeStmt)
		name, err := chanHelper("<-chan", "%.0s", "(%s, bool)", "case v, ok := <-c:", "v, ok := <-c", "return v, ok")
		if err != nil {
			return err
		}
		elem, err := sg.typeName(fi.pkg.TypesInfo.TypeOf(op.Operand).Underlying().(*types.Chan).Elem())
		if err != nil {
			return err
		}
		first := sg.name("first")
		decls = append(decls, fmt.Sprintf("func %s%s(c <-chan %s) (<-chan %s, %s, bool) {\n\tv, ok := %s%s(c)\n\treturn c, v, ok\n}",
			first, sg.tparam, elem, elem, elem, sg.name(string(op.Kind)), sg.targs))
		n := strconv.Itoa(s.Index)
		c, v, ok := "pmm__c"+n, "pmm__v"+n, "pmm__ok"+n
		start, key := rs.Range, "_"
		if rs.Key != nil {
			start = rs.Key.Pos()
			if rs.Tok == token.DEFINE {
				key = sg.text(rs.Key)
			} else {
				key = v
				off := fi.tf.Offset(rs.Body.Lbrace) + 1
				sg.edits = append(sg.edits, Edit{Off: off, End: off, Text: " " + sg.text(rs.Key) + " = " + v + ";", Order: orderDefinition})
			}
		}
		header := fmt.Sprintf("%s, %s, %s := %s%s(%s); %s; %s, %s = %s(%s) ", c, key, ok, first, sg.uargs, sg.text(op.Operand), ok, key, ok, name, c)
		sg.edits = append(sg.edits, Edit{Off: fi.tf.Offset(start), End: fi.tf.Offset(rs.Body.Lbrace), Text: header, Order: orderRegion})
	case op.Kind == static.BlockRange:
		return sg.rangeReceives(op, body, path, decls, state, enter, exit)
	case op.Kind == static.BlockSelect && sg.selectTriable(op.Node.(*ast.SelectStmt), path) == nil:
		return sg.selectFirst(op.Node.(*ast.SelectStmt), path, decls, state, enter)
	case !op.Stmt:
		return fmt.Errorf("the %s at %s is not a statement of its block: pmm times it only there", s.Label, s.Position())
	default:
		// A select, or a call of a blocking method: timed around it,
		// with a state at the top of the body.
		v := sg.name("b")
		sg.edits = append(sg.edits, Edit{Off: fi.tf.Offset(body.Lbrace) + 1, End: fi.tf.Offset(body.Lbrace) + 1, Text: "var " + v + " " + state + sg.uargs + ";", Order: orderDefinition})
		begin := op.Node
		if l, ok := parentOf(path, op.Node).(*ast.LabeledStmt); ok {
			begin = l // code before a labeled select goes before its label
			if gotoTarget(body, l.Label.Name) {
				return fmt.Errorf("a goto to the label %s of the select would skip the code that begins it", l.Label.Name)
			}
		}
		object := ""
		if call, ok := op.Node.(*ast.CallExpr); ok && sg.caps[plan.CapObject] {
			set, err := sg.blockingObject(call, op.Operand, v)
			if err != nil {
				return err
			}
			object = set + "; "
		}
		// Its fast attempt is not written (a select, a wait): it is
		// timed whole and counted as blocked; where a question asks
		// whether it blocked, the answer says it is not known.
		what := "select"
		if call, ok := op.Node.(*ast.CallExpr); ok {
			what = typeutil.Callee(fi.pkg.TypesInfo, call).(*types.Func).FullName()
		}
		switch {
		case op.Kind == static.BlockLock || op.Kind == static.BlockRLock:
			// A call site of the same call wraps it (callSiteAt).
			sg.timedWhole(what + ", whose call a question also records,")
		case what != "(*sync.Cond).Wait": // which always waits
			sg.timedWhole(what)
		}
		object = v + "." + waited + " = true; " + object
		sg.edits = append(sg.edits, at(begin, false, ";"+object+enter+sg.uargs+"(&"+v+");"))
		if sel, ok := op.Node.(*ast.SelectStmt); ok {
			for i, c := range sel.Body.List {
				off := fi.tf.Offset(c.(*ast.CommClause).Colon) + 1
				sg.edits = append(sg.edits, Edit{Off: off, End: off, Text: ";" + ended(v, i, sg.uargs) + ";", Order: orderRegion})
			}
		} else {
			sg.edits = append(sg.edits, at(op.Node, true, ";"+ended(v, -1, sg.uargs)))
		}
	}
	if err := sg.finish(decls...); err != nil {
		return err
	}
	g.done[s] = true
	return nil
}

// chanAddress is the address of the runtime's channel that channel
// variable c points to.
func (sg *siteGen) chanAddress(c string) string {
	return "int64(*(*uintptr)(" + sg.pc.importName("unsafe") + ".Pointer(&" + c + ")))"
}

// parentOf is the node of path (outermost first) around n, or nil.
func parentOf(path []ast.Node, n ast.Node) ast.Node {
	for i := len(path) - 1; i > 0; i-- {
		if path[i] == n {
			return path[i-1]
		}
	}
	return nil
}

// blockingObject returns the statement that sets the object of state v
// to the address of operand, the receiver of call, a blocking method of
// sync: through a helper that takes a pointer, the operand's address or
// the operand itself. The operand is evaluated a second time, so only one
// without calls or receives can be; and only one of the method's own
// type, since a promoted method's receiver is the value that embeds it.
func (sg *siteGen) blockingObject(call *ast.CallExpr, operand ast.Expr, v string) (string, error) {
	info := sg.fi.pkg.TypesInfo
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		return "", fmt.Errorf("the blocking call at %s has no static callee", sg.s.Position())
	}
	recv := fn.Type().(*types.Signature).Recv().Type() // *sync.Mutex, ...
	t := info.TypeOf(operand)
	arg := "&(" + sg.text(operand) + ")"
	switch {
	case types.Identical(t, recv):
		arg = sg.text(operand)
	case types.Identical(types.NewPointer(t), recv):
	default:
		return "", fmt.Errorf("the address of what %s locks or waits on is not taken: %s is promoted from a field of %s", sg.text(operand), fn.Name(), t)
	}
	if !pure(operand) {
		return "", fmt.Errorf("the address of %s is not taken: pmm would evaluate it twice, and it has calls or receives", sg.text(operand))
	}
	ts, err := sg.typeName(recv)
	if err != nil {
		return "", err
	}
	name := sg.name("object")
	sg.decls = append(sg.decls, fmt.Sprintf("func %s(p %s) int64 { return int64(uintptr(%s.Pointer(p))) }", name, ts, sg.pc.importName("unsafe")))
	return v + ".obj = " + name + "(" + arg + ")", nil
}

// text is expression e as written (printed).
func (sg *siteGen) text(e ast.Expr) string {
	var b strings.Builder
	printer.Fprint(&b, sg.fi.pkg.Fset, e) //nolint:errcheck // a strings.Builder
	return b.String()
}

// rangeReceives generates a range over a channel, whose events are its
// receives: one begins when the loop begins and when an iteration goes
// on to the next (at the end of the body, and at a continue of the
// loop), and ends at the top of the body, or after the loop when the
// channel was closed. A break, return or goto out of the body leaves no
// receive open.
func (sg *siteGen) rangeReceives(op *static.BlockingOp, body *ast.BlockStmt, path []ast.Node, decls []string, state, enter, exit string) error {
	rs := op.Node.(*ast.RangeStmt)
	tf := sg.fi.tf
	v, leave := sg.name("b"), sg.name("leave")
	ended := ""
	if sg.caps[plan.CapCase] {
		ended = "s.scase = -1\n\t\t"
	}
	decls = append(decls, fmt.Sprintf("func %s%s(s *%s%s) {\n\tif s.on {\n\t\t%s%s%s(s)\n\t\ts.on = false\n\t}\n}",
		leave, sg.tparam, state, sg.targs, ended, exit, sg.targs))
	enter, leave = enter+sg.uargs, leave+sg.uargs // in the function's body
	begin := ";" + enter + "(&" + v + ");"
	insert := func(off int, text string, order int) {
		sg.edits = append(sg.edits, Edit{Off: off, End: off, Text: text, Order: order})
	}
	insert(tf.Offset(body.Lbrace)+1, "var "+v+" "+state+sg.uargs+"; "+v+"."+captureCodes[plan.CapBlocked].field+" = true;", orderDefinition)
	sg.timedWhole("receive of the range over " + sg.text(op.Operand))
	first, label := ast.Node(rs), ""
	if l, ok := parentOf(path, rs).(*ast.LabeledStmt); ok {
		first, label = l, l.Label.Name
		if gotoTarget(body, label) {
			return fmt.Errorf("a goto to the label %s of the range would skip the code that begins its first receive", label)
		}
	}
	object := ""
	if sg.caps[plan.CapObject] {
		if !pure(op.Operand) {
			return fmt.Errorf("the address of %s is not taken: pmm would evaluate it twice, and it has calls or receives", sg.text(op.Operand))
		}
		ch := sg.fi.pkg.TypesInfo.TypeOf(op.Operand).Underlying().(*types.Chan)
		elem, err := sg.typeName(ch.Elem())
		if err != nil {
			return err
		}
		name := sg.name("object")
		decls = append(decls, fmt.Sprintf("func %s%s(c <-chan %s) int64 { return %s }", name, sg.tparam, elem, sg.chanAddress("c")))
		object = v + ".obj = " + name + sg.uargs + "(" + sg.text(op.Operand) + ");"
	}
	insert(tf.Offset(first.Pos()), ";"+object+enter+"(&"+v+");", orderRegion)
	insert(tf.Offset(rs.Body.Lbrace)+1, ";"+leave+"(&"+v+");", orderRegion)
	if n := len(rs.Body.List); n == 0 || !terminating(rs.Body.List[n-1]) {
		insert(tf.Offset(rs.Body.Rbrace), begin, orderRegion)
	}
	// The continues of this loop: unlabeled ones outside nested loops,
	// and those that name its label; function literals are others'.
	var visit func(n ast.Node, nested bool)
	visit = func(n ast.Node, nested bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt:
				visit(m.Body, true)
				return false
			case *ast.RangeStmt:
				visit(m.Body, true)
				return false
			case *ast.BranchStmt:
				if m.Tok == token.CONTINUE && (m.Label == nil && !nested || m.Label != nil && m.Label.Name == label) {
					insert(tf.Offset(m.Pos()), begin, orderRegion)
				}
			}
			return true
		})
	}
	visit(rs.Body, false)
	// Before a region that ends there: the last receive is inside it.
	insert(tf.Offset(rs.End()), ";"+leave+"(&"+v+");", orderCall)
	if err := sg.finish(decls...); err != nil {
		return err
	}
	sg.g.done[sg.s] = true
	return nil
}

// gotoTarget reports whether a goto statement of body (function literals
// aside) jumps to label.
func gotoTarget(body *ast.BlockStmt, label string) bool {
	found := false
	inspectBody(body, func(n ast.Node) {
		if b, ok := n.(*ast.BranchStmt); ok && b.Tok == token.GOTO && b.Label != nil && b.Label.Name == label {
			found = true
		}
	})
	return found
}

// receiverArg is how a method call's receiver becomes an argument of a
// helper that makes the call itself: the text before the receiver as
// written and the text that replaces the rest of the call (".Lock()").
type receiverArg struct{ open, close string }

// methodReceiver returns how the receiver operand of call, a static
// method call, is passed to a helper that calls the method, and the
// type of the method's receiver, which the helper takes: the operand
// itself when its type is the receiver's, its address or what it
// points to otherwise, and, for a method promoted from an embedded
// field, that field (x.Lock() → &(x.Mutex)). The receiver is evaluated
// once, where the method value would be, so that it is the value, and
// the pointer followed, that the method value would bind.
func (sg *siteGen) methodReceiver(call *ast.CallExpr, operand ast.Expr) (receiverArg, types.Type, error) {
	info := sg.fi.pkg.TypesInfo
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Type().(*types.Signature).Recv() == nil {
		return receiverArg{}, nil, fmt.Errorf("the call at %s has no static method callee", sg.s.Position())
	}
	recv := fn.Type().(*types.Signature).Recv().Type()
	sel, ok := info.Selections[call.Fun.(*ast.SelectorExpr)]
	if !ok || sel.Kind() != types.MethodVal {
		return receiverArg{}, nil, fmt.Errorf("the call at %s is not a method call", sg.s.Position())
	}
	path := ""
	t := info.TypeOf(operand)
	for _, i := range sel.Index()[:len(sel.Index())-1] {
		u := t
		if p, ok := u.Underlying().(*types.Pointer); ok {
			u = p.Elem()
		}
		st, ok := u.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return receiverArg{}, nil, fmt.Errorf("pmm bug: the path of the promoted %s at %s", fn.Name(), sg.s.Position())
		}
		f := st.Field(i)
		if !f.Exported() && !samePackage(f.Pkg(), sg.self) {
			return receiverArg{}, nil, fmt.Errorf("the %s at %s is promoted through the unexported field %s of package %s, which the package cannot name", fn.Name(), sg.s.Position(), f.Name(), f.Pkg().Path())
		}
		path += "." + f.Name()
		t = f.Type()
	}
	switch {
	case types.Identical(t, recv):
		return receiverArg{close: path}, recv, nil
	case types.Identical(types.NewPointer(t), recv):
		return receiverArg{open: "&(", close: path + ")"}, recv, nil
	case types.Identical(t, types.NewPointer(recv)):
		return receiverArg{open: "*(", close: path + ")"}, recv, nil
	}
	return receiverArg{}, nil, fmt.Errorf("the receiver of the %s at %s is of type %s, not of %s", fn.Name(), sg.s.Position(), t, recv)
}

// clocksWhenWaited makes the site read the clock, and count itself for
// the compensation of the durations around it, only for an operation
// that waited: one that proceeded at its fast attempt has the duration
// 0 and costs no clock read.
func (sg *siteGen) clocksWhenWaited() {
	guard := func(stmts []string) []string {
		out := make([]string, 0, len(stmts))
		for _, st := range stmts {
			if strings.HasPrefix(st, "s.t0 = ") || strings.HasPrefix(st, "s.t1 = ") || strings.HasPrefix(st, "s.tc = ") ||
				strings.HasPrefix(st, "s.comp = ") || strings.HasSuffix(st, ".TimedEnded()") {
				st = "if s." + captureCodes[plan.CapBlocked].field + " {\n\t" + st + "\n}"
			}
			out = append(out, st)
		}
		return out
	}
	sg.clocks, sg.tmpl.After = guard(sg.clocks), guard(sg.tmpl.After)
}

// timedWhole says, where a question asks whether the operation what
// blocked, that the site cannot tell: pmm does not try it without
// waiting first (a select, the receives of a range over a channel,
// WaitGroup.Wait), so it times it whole and counts it as blocked.
func (sg *siteGen) timedWhole(what string) {
	if !sg.caps[plan.CapBlocked] {
		return
	}
	for _, t := range sg.s.Targets {
		sg.g.code.Inexact = append(sg.g.code.Inexact, plan.Inexact{Site: sg.s, Target: t,
			Reason: fmt.Sprintf("pmm does not try the %s at %s without waiting first: it times it whole and counts it as blocked, whether it blocked or not", what, sg.s.Position())})
	}
}

// callSiteAt reports whether a call site of the plan is the call of
// blocking site s: a question records the execution of Lock itself,
// whose wrapper takes the call's place, so that the blocking site's code
// goes around it.
func (g *generator) callSiteAt(s *plan.Site) bool {
	return slices.ContainsFunc(g.plan.Sites, func(o *plan.Site) bool { return o.Kind == spec.SiteCall && o.Span == s.Span })
}

// selectTriable returns why select sel cannot be tried first without
// waiting (selectFirst), or nil: a comm clause written over several
// lines (its operands move), or whose operands hold another site's code.
func (sg *siteGen) selectTriable(sel *ast.SelectStmt, path []ast.Node) error {
	fset := sg.fi.pkg.Fset
	for _, c := range sel.Body.List {
		cc := c.(*ast.CommClause)
		from, to := fset.Position(cc.Comm.Pos()), fset.Position(cc.Colon)
		if from.Line != to.Line {
			return fmt.Errorf("a case of the select at %s is written over several lines", sg.s.Position())
		}
		if sg.holdsSite(from, to) {
			return fmt.Errorf("a case of the select at %s holds another site", sg.s.Position())
		}
		if s, ok := cc.Comm.(*ast.SendStmt); ok {
			if ch, ok := sg.fi.pkg.TypesInfo.TypeOf(s.Chan).Underlying().(*types.Chan); !ok || ch == nil {
				return fmt.Errorf("a channel of the select at %s has a type parameter's type", sg.s.Position())
			}
		} else if _, ok := sg.fi.pkg.TypesInfo.TypeOf(selectRecv(cc).X).Underlying().(*types.Chan); !ok {
			return fmt.Errorf("a channel of the select at %s has a type parameter's type", sg.s.Position())
		}
	}
	return nil
}

// selectRecv is the receive of comm clause cc (not a send).
func selectRecv(cc *ast.CommClause) *ast.UnaryExpr {
	var e ast.Expr
	switch c := cc.Comm.(type) {
	case *ast.ExprStmt:
		e = c.X
	case *ast.AssignStmt:
		e = c.Rhs[0]
	}
	return ast.Unparen(e).(*ast.UnaryExpr)
}

// selectFirst generates select sel so that it is first tried without
// waiting, and timed only when no case is ready. Go evaluates its
// channels and sent values once, in source order, as it enters it: the
// code before it does so into temporaries, then calls the site's helper,
// which runs the select over them with a default, and, when that finds
// no case ready, records the operation, waited, around the same select
// without default; it returns the index of the case that fired and the
// values received. The statement itself becomes a switch on that index
// (its label, and so its breaks, with it), each case's comm replaced by
// its index and the assignment of what it received:
//
//	L: select {              {c1 := a; c2 := f(); v2 := g(); i, r1, ok1 := pmm__select5(c1, c2, v2)
//	case v, ok := <-a:       L: switch i {
//	    ...                  case 0: v, ok := r1, ok1; ...
//	case f() <- g():         default: ...
//	    ...                  }}
//	}
//
// The last case is the switch's default: the switch is then a
// terminating statement where the select was one.
//
// A constant or untyped sent value is passed as written.
func (sg *siteGen) selectFirst(sel *ast.SelectStmt, path []ast.Node, decls []string, state, enter string) error {
	fi, info := sg.fi, sg.fi.pkg.TypesInfo
	tf := fi.tf
	n := strconv.Itoa(sg.s.Index)
	tmp := func(what string, k int) string { return "pmm__" + what + strconv.Itoa(k) + "_" + n }
	var hoist, args, params, results, cases, fired []string
	var edits []Edit
	for k, c := range sel.Body.List {
		cc := c.(*ast.CommClause)
		send, isSend := cc.Comm.(*ast.SendStmt)
		ch, dir := ast.Expr(nil), "<-chan"
		if isSend {
			ch, dir = send.Chan, "chan<-"
		} else {
			ch = selectRecv(cc).X
		}
		elem, err := sg.typeName(info.TypeOf(ch).Underlying().(*types.Chan).Elem())
		if err != nil {
			return err
		}
		hoist = append(hoist, tmp("c", k)+" := "+sg.text(ch))
		args = append(args, tmp("c", k))
		params = append(params, fmt.Sprintf("c%d %s %s", k, dir, elem))
		if isSend {
			if tv := info.Types[send.Value]; tv.Value != nil || isUntyped(tv.Type) {
				args = append(args, sg.text(send.Value))
			} else {
				hoist = append(hoist, tmp("v", k)+" := "+sg.text(send.Value))
				args = append(args, tmp("v", k))
			}
			params = append(params, fmt.Sprintf("v%d %s", k, elem))
			cases = append(cases, fmt.Sprintf("case c%d <- v%d:", k, k))
		} else {
			as, _ := cc.Comm.(*ast.AssignStmt)
			switch {
			case as == nil:
				cases = append(cases, fmt.Sprintf("case <-c%d:", k))
			case len(as.Lhs) == 1:
				cases = append(cases, fmt.Sprintf("case r%d = <-c%d:", k, k))
				results = append(results, fmt.Sprintf("r%d %s", k, elem))
				fired = append(fired, tmp("r", k))
			default:
				cases = append(cases, fmt.Sprintf("case r%d, ok%d = <-c%d:", k, k, k))
				results = append(results, fmt.Sprintf("r%d %s", k, elem), fmt.Sprintf("ok%d bool", k))
				fired = append(fired, tmp("r", k), tmp("ok", k))
			}
			if as != nil {
				var lhs []string
				for _, e := range as.Lhs {
					lhs = append(lhs, sg.text(e))
				}
				got := []string{tmp("r", k)}
				if len(as.Lhs) == 2 {
					got = append(got, tmp("ok", k))
				}
				// After the colon: the case's own assignment.
				off := tf.Offset(cc.Colon) + 1
				edits = append(edits, Edit{Off: off, End: off, Text: " " + strings.Join(lhs, ", ") + " " + as.Tok.String() + " " + strings.Join(got, ", ") + ";", Order: orderRegion})
			}
		}
		if k == len(sel.Body.List)-1 {
			// The last case is the switch's default, so that the switch
			// is a terminating statement wherever the select was one
			// (a function whose last statement is a select whose cases
			// all return needs no return after it).
			edits = append(edits, Edit{Off: tf.Offset(cc.Case), End: tf.Offset(cc.Colon), Text: "default", Order: orderRegion})
		} else {
			edits = append(edits, Edit{Off: tf.Offset(cc.Comm.Pos()), End: tf.Offset(cc.Colon), Text: strconv.Itoa(k), Order: orderRegion})
		}
	}
	// The helper: the select with default, then, when no case was
	// ready, the operation recorded around the select without it.
	var b strings.Builder
	scase := func(v string) string {
		if sg.caps[plan.CapCase] {
			return v + ".scase = int64(i); "
		}
		return ""
	}
	exit := sg.name("exit")
	selectOver := func(dflt string) {
		b.WriteString("\tselect {\n")
		for k, c := range cases {
			fmt.Fprintf(&b, "\t%s\n\t\ti = %d\n", c, k)
		}
		b.WriteString(dflt + "\t}\n")
	}
	selectOver("\tdefault:\n\t\ti = -1\n")
	b.WriteString("\tif i >= 0 {\n")
	if !sg.s.BlockedOnly {
		fmt.Fprintf(&b, "\t\tvar s %s%s\n\t\t%s%s(&s)\n\t\t%s%s%s(&s)\n", state, sg.targs, enter, sg.targs, scase("s"), exit, sg.targs)
	}
	b.WriteString("\t\treturn\n\t}\n")
	fmt.Fprintf(&b, "\tvar s %s%s\n\ts.%s = true\n\t%s%s(&s)\n", state, sg.targs, captureCodes[plan.CapBlocked].field, enter, sg.targs)
	selectOver("")
	fmt.Fprintf(&b, "\t%s%s%s(&s)\n\treturn\n", scase("s"), exit, sg.targs)
	name := sg.name("select")
	decls = append(decls, fmt.Sprintf("func %s%s(%s) (%s) {\n%s}", name, sg.tparam, strings.Join(params, ", "),
		strings.Join(append([]string{"i int"}, results...), ", "), b.String()))
	// The code before the statement (before its label), and the switch.
	begin := ast.Node(sel)
	if l, ok := parentOf(path, sel).(*ast.LabeledStmt); ok {
		begin = l
		if gotoTarget(enclosingBody(path), l.Label.Name) {
			return fmt.Errorf("a goto to the label %s of the select would skip the code that begins it", l.Label.Name)
		}
	}
	call := strings.Join(append([]string{tmp("i", 0)}, fired...), ", ") + " := " + name + sg.uargs + "(" + strings.Join(args, ", ") + ")"
	off := tf.Offset(begin.Pos())
	sg.edits = append(sg.edits, Edit{Off: off, End: off, Text: ";{" + strings.Join(append(hoist, call), "; ") + ";", Order: orderRegion})
	kw := tf.Offset(sel.Select)
	stmt := "switch " + tmp("i", 0)
	if len(sel.Body.List) == 0 {
		// select {}: the helper never returns; the statement stays, a
		// terminating one.
		stmt = "_ = " + tmp("i", 0) + "; select"
	}
	sg.edits = append(sg.edits, Edit{Off: kw, End: kw + len("select"), Text: stmt, Order: orderRegion})
	sg.edits = append(sg.edits, edits...)
	end := tf.Offset(sel.End())
	sg.edits = append(sg.edits, Edit{Off: end, End: end, Text: "}", Order: orderWrapEnd})
	if err := sg.finish(decls...); err != nil {
		return err
	}
	sg.g.done[sg.s] = true
	return nil
}

// isUntyped reports whether t is an untyped constant's or nil's type.
func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

// rangeTriable returns why the range over a channel rs cannot become a
// loop whose receives are tried first without waiting, or nil: a header
// written over several lines, holding another site, or over a channel
// whose type is a type parameter.
func (sg *siteGen) rangeTriable(rs *ast.RangeStmt) error {
	fset := sg.fi.pkg.Fset
	from, to := fset.Position(rs.For), fset.Position(rs.Body.Lbrace)
	if from.Line != to.Line {
		return fmt.Errorf("the range at %s is written over several lines", sg.s.Position())
	}
	if _, ok := sg.fi.pkg.TypesInfo.TypeOf(rs.X).Underlying().(*types.Chan); !ok {
		return fmt.Errorf("the range at %s is over a type parameter's type", sg.s.Position())
	}
	if sg.holdsSite(from, to) {
		return fmt.Errorf("the range at %s holds another site in its header", sg.s.Position())
	}
	return nil
}

// holdsSite reports whether a site of the plan other than sg's begins
// between from and to, on one line.
func (sg *siteGen) holdsSite(from, to token.Position) bool {
	return slices.ContainsFunc(sg.g.plan.Sites, func(o *plan.Site) bool {
		return o != sg.s && o.File == sg.s.File && (o.Line > from.Line || o.Line == from.Line && o.Col >= from.Column) &&
			(o.Line < to.Line || o.Line == to.Line && o.Col < to.Column)
	})
}
