package static

import (
	"bytes"
	"go/ast"
	"go/printer"
	"go/token"
	"go/types"
)

// Blocking operations (issue 14): the operations of a body that may
// block its goroutine, each an interval whose duration is the time
// blocked (the events of blocking-operation). This file finds them, for
// the blocking table and for package instrument, which times them: it is
// syntax and types only.

// BlockingKind is a kind of blocking operation.
type BlockingKind string

// The kinds of blocking operations.
const (
	BlockSend   BlockingKind = "send"   // ch <- v
	BlockRecv   BlockingKind = "recv"   // <-ch, in any expression
	BlockRange  BlockingKind = "range"  // for v := range ch: a receive per iteration
	BlockSelect BlockingKind = "select" // a select without default
	BlockLock   BlockingKind = "lock"   // (*sync.Mutex).Lock, (*sync.RWMutex).Lock
	BlockRLock  BlockingKind = "rlock"  // (*sync.RWMutex).RLock
	BlockWait   BlockingKind = "wait"   // (*sync.WaitGroup).Wait, (*sync.Cond).Wait
)

// blockingMethods are the methods of package sync that block, by their
// full names (types.Func.FullName).
var blockingMethods = map[string]BlockingKind{
	"(*sync.Mutex).Lock":     BlockLock,
	"(*sync.RWMutex).Lock":   BlockLock,
	"(*sync.RWMutex).RLock":  BlockRLock,
	"(*sync.WaitGroup).Wait": BlockWait,
	"(*sync.Cond).Wait":      BlockWait,
}

// BlockingOp is one operation of a body that may block.
type BlockingOp struct {
	Kind BlockingKind
	// Node is the operation: *ast.SendStmt, *ast.UnaryExpr (a receive),
	// *ast.RangeStmt, *ast.SelectStmt, or the *ast.CallExpr of a method.
	Node ast.Node
	// Operand is the channel or the lock, wait group or condition
	// (the receiver of the method); nil for a select.
	Operand ast.Expr
	// Text is the operand as written (its identity at the site; the
	// address is known only at run time).
	Text string
	// CommaOk says a receive is the right side of v, ok := <-ch.
	CommaOk bool
	// Stmt says the operation is a whole statement of a statement list
	// (a call, a send, a receive whose value is dropped, a select): code
	// may go before and after it.
	Stmt bool
	// Deferred says the call is a go or defer statement's: it does not
	// block where it is written.
	Deferred bool
}

// FindBlocking returns the blocking operations of body in source order,
// those of function literals excluded (they are other functions'). A
// select with a default clause never blocks and is left out, and so are
// the communications of select cases (the select is the operation).
func FindBlocking(fset *token.FileSet, info *types.Info, body *ast.BlockStmt) []BlockingOp {
	var ops []BlockingOp
	inCase := map[ast.Node]bool{} // the communications of select cases
	commaOk := map[ast.Expr]bool{}
	stmt := map[ast.Node]bool{}     // the operations that are statements of a list
	deferred := map[ast.Node]bool{} // the calls of go and defer statements
	listed := func(list []ast.Stmt) {
		for _, st := range list {
			for {
				l, ok := st.(*ast.LabeledStmt) // L: select {...}: a statement too
				if !ok {
					break
				}
				st = l.Stmt
			}
			switch st := st.(type) {
			case *ast.ExprStmt:
				stmt[ast.Unparen(st.X)] = true
			case *ast.SendStmt, *ast.SelectStmt:
				stmt[st] = true
			}
		}
	}
	text := func(e ast.Expr) string {
		var b bytes.Buffer
		printer.Fprint(&b, fset, e)
		return b.String()
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CommClause:
			listed(n.Body)
			if n.Comm != nil {
				ast.Inspect(n.Comm, func(m ast.Node) bool {
					if u, ok := m.(*ast.UnaryExpr); ok && u.Op == token.ARROW {
						inCase[u] = true
					}
					if s, ok := m.(*ast.SendStmt); ok {
						inCase[s] = true
					}
					return true
				})
			}
		case *ast.AssignStmt:
			if len(n.Lhs) == 2 && len(n.Rhs) == 1 {
				commaOk[ast.Unparen(n.Rhs[0])] = true
			}
		case *ast.ValueSpec:
			if len(n.Names) == 2 && len(n.Values) == 1 {
				commaOk[ast.Unparen(n.Values[0])] = true
			}
		case *ast.BlockStmt:
			listed(n.List)
		case *ast.CaseClause:
			listed(n.Body)
		case *ast.GoStmt:
			deferred[n.Call] = true
		case *ast.DeferStmt:
			deferred[n.Call] = true
		case *ast.SendStmt:
			if !inCase[n] {
				ops = append(ops, BlockingOp{Kind: BlockSend, Node: n, Operand: n.Chan, Text: text(n.Chan), Stmt: stmt[n]})
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW && !inCase[n] {
				ops = append(ops, BlockingOp{Kind: BlockRecv, Node: n, Operand: n.X, Text: text(n.X), CommaOk: commaOk[n], Stmt: stmt[n]})
			}
		case *ast.RangeStmt:
			if _, ok := info.TypeOf(n.X).Underlying().(*types.Chan); ok {
				ops = append(ops, BlockingOp{Kind: BlockRange, Node: n, Operand: n.X, Text: text(n.X)})
			}
		case *ast.SelectStmt:
			for _, c := range n.Body.List {
				if c.(*ast.CommClause).Comm == nil {
					return true // a default: it never blocks
				}
			}
			ops = append(ops, BlockingOp{Kind: BlockSelect, Node: n, Stmt: stmt[n]})
		case *ast.CallExpr:
			sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
			if !ok {
				return true
			}
			fn, ok := info.Uses[sel.Sel].(*types.Func)
			if !ok {
				return true
			}
			if k, ok := blockingMethods[fn.FullName()]; ok {
				ops = append(ops, BlockingOp{Kind: k, Node: n, Operand: sel.X, Text: text(sel.X), Stmt: stmt[n], Deferred: deferred[n]})
			}
		}
		return true
	})
	return ops
}
