package instrument

import (
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"

	"pmm.dev/pmm/plan"
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
// pmm__send5(ch, v)); a select, and a call of a blocking method of sync
// that is a statement, are timed by code before them and after them (at
// the top of each case, for a select), with a state declared at the top
// of the body. An operation that panics (a send on a closed channel) has
// no end: it began and did not end, as an execution that panicked out of
// main does.
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
	// chanHelper declares a helper of the channel operation, over a
	// channel of the operand's element type in direction dir; params and
	// results name the element type by a verb (%.0s: not at all).
	chanHelper := func(dir, params, results, body string) (string, error) {
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
		decls = append(decls, fmt.Sprintf("func %s%s(c %s %s%s) %s {\n\tvar s %s%s\n%s\t%s%s(&s)\n%s\n}",
			name, sg.tparam, dir, elem, fmt.Sprintf(params, elem), fmt.Sprintf(results, elem), state, sg.targs, object, enter, sg.targs, fmt.Sprintf(body, ended("s", -1, sg.targs))))
		return name + sg.uargs, nil
	}
	switch {
	case op.Kind == static.BlockRecv:
		u := op.Node.(*ast.UnaryExpr)
		results, recv := "%s", "\tv := <-c\n\t%s\n\treturn v"
		if op.CommaOk {
			results, recv = "(%s, bool)", "\tv, ok := <-c\n\t%s\n\treturn v, ok"
		}
		name, err := chanHelper("<-chan", "%.0s", results, recv)
		if err != nil {
			return err
		}
		off := fi.tf.Offset(u.OpPos)
		sg.edits = append(sg.edits, Edit{Off: off, End: off + 2, Text: name + "(", Order: orderRegion}, closing(u))
	case op.Kind == static.BlockSend:
		send := op.Node.(*ast.SendStmt)
		name, err := chanHelper("chan<-", ", v %s", "%.0s", "\tc <- v\n\t%s")
		if err != nil {
			return err
		}
		off := fi.tf.Offset(send.Arrow)
		sg.edits = append(sg.edits, at(send, false, name+"("), Edit{Off: off, End: off + 2, Text: ",", Order: orderRegion}, closing(send))
	case op.Kind == static.BlockRange:
		return sg.rangeReceives(op, body, path, decls, state, enter, exit)
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
	insert(tf.Offset(body.Lbrace)+1, "var "+v+" "+state+sg.uargs+";", orderDefinition)
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
