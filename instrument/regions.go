package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
)

// Regions (issue 14, seed 004): a labeled statement's execution is an
// interval; a labeled loop's iterations are intervals too. This file
// finds, in one function body, the points where the code of its regions
// goes. It is syntax only: where a region begins and ends, on every way
// out of it, so the generator (and the tests' tracer) only write text at
// those points.
//
// The function holds one state per region, declared at the top of its
// body (so no goto jumps over a declaration), and one deferred unwind
// that ends, innermost first, the regions still open when the execution
// ends by a panic or runtime.Goexit. A region begins at its label (and
// again before each goto to its label, which skips that point); it ends
// after its statement (its own end, and every break to it) and before
// each statement that leaves it otherwise: a break, continue or goto to
// a statement outside it, and a return, where the results are evaluated
// first (Return.Results), because the return's expressions are part of
// the region's statement.

// RegionPoint is what happens at one place of a body.
type RegionPoint int

// The kinds of points.
const (
	// PointEnter begins an execution of a region: before its labeled
	// statement, and before a goto to its label.
	PointEnter RegionPoint = iota + 1
	// PointIterate begins an iteration of a loop region, at the top of
	// its body; it ends the previous iteration, if one is open.
	PointIterate
	// PointLeave ends Regions (innermost first) before a branch statement
	// that leaves them, and after a region's statement (its normal end).
	PointLeave
	// PointReturn ends every open region of the execution once a return
	// statement's results are evaluated (Return; Results empty for a
	// bare return or a function without results).
	PointReturn
)

// Region is one labeled statement of a body that is a region.
type Region struct {
	Label string
	Stmt  *ast.LabeledStmt
	// Loop says the statement is a for or range loop: its iterations
	// are events too.
	Loop bool
	// Index numbers the region in the body, in source order; an inner
	// region has a greater index than the regions around it.
	Index int
}

// RegionEdit is one place where region code goes.
type RegionEdit struct {
	Pos  token.Pos // the code goes before this position
	Kind RegionPoint
	// Regions are, for PointLeave, those it ends, innermost first; for
	// PointEnter and PointIterate, the one region it begins (a goto to
	// the label of a region it is in has a PointLeave first, at the
	// same position).
	Regions []*Region
	Return  *ast.ReturnStmt // PointReturn
}

// BodyRegions is the code points of the regions of one function body.
type BodyRegions struct {
	Regions []*Region
	Edits   []RegionEdit // in source order; at one position, in the order they run
}

// FindRegions returns the regions of body whose labels want selects
// (all labeled for, range, switch, type switch, select and block
// statements when want is nil), and where their code goes. Function
// literals in body are other functions: their regions and their branch
// statements are not body's.
func FindRegions(body *ast.BlockStmt, want func(label string) bool) (*BodyRegions, error) {
	br := &BodyRegions{}
	f := &regionFinder{br: br, labelOf: map[string]*ast.LabeledStmt{}}
	// Every label of the body, and the regions among them.
	inspectBody(body, func(n ast.Node) {
		l, ok := n.(*ast.LabeledStmt)
		if !ok {
			return
		}
		f.labelOf[l.Label.Name] = l
		switch l.Stmt.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			if want == nil || want(l.Label.Name) {
				br.Regions = append(br.Regions, &Region{Label: l.Label.Name, Stmt: l, Loop: true})
			}
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.BlockStmt:
			if want == nil || want(l.Label.Name) {
				br.Regions = append(br.Regions, &Region{Label: l.Label.Name, Stmt: l})
			}
		}
	})
	if len(br.Regions) == 0 {
		return br, nil
	}
	for i, r := range br.Regions {
		r.Index = i
	}
	for _, r := range br.Regions {
		br.Edits = append(br.Edits, RegionEdit{Pos: r.Stmt.Pos(), Kind: PointEnter, Regions: []*Region{r}})
		if r.Loop {
			br.Edits = append(br.Edits, RegionEdit{Pos: loopBody(r.Stmt.Stmt).Lbrace + 1, Kind: PointIterate, Regions: []*Region{r}})
		}
	}
	f.walk(body, nil)
	// A region's normal end: after its statement, where every break to
	// it lands. Regions that end at one position end innermost first.
	// After a terminating statement (Go spec) there is none: code there
	// would be unreachable, and a function with results would then lack
	// its final return.
	for i := len(br.Regions) - 1; i >= 0; i-- {
		r := br.Regions[i]
		if terminating(r.Stmt) {
			continue
		}
		br.Edits = append(br.Edits, RegionEdit{Pos: r.Stmt.End(), Kind: PointLeave, Regions: []*Region{r}})
	}
	if f.err != nil {
		return nil, f.err
	}
	// Source order; at one position, ends before begins (a region that
	// ends where the next begins), and edits made earlier first.
	sort.SliceStable(br.Edits, func(i, j int) bool {
		a, b := br.Edits[i], br.Edits[j]
		if a.Pos != b.Pos {
			return a.Pos < b.Pos
		}
		return a.Kind == PointLeave && b.Kind != PointLeave
	})
	return br, nil
}

type regionFinder struct {
	br      *BodyRegions
	labelOf map[string]*ast.LabeledStmt
	err     error
}

// frame is a statement around the one being walked: a region, or a
// statement that an unlabeled break or continue may target.
type frame struct {
	stmt   ast.Stmt
	region *Region // when the statement is a region's
	loop   bool    // a continue may target it
	brk    bool    // a break may target it
}

// walk visits n with the enclosing statements outer (outermost first).
func (f *regionFinder) walk(n ast.Node, outer []frame) {
	ast.Inspect(n, func(m ast.Node) bool {
		if m == n {
			return true
		}
		switch s := m.(type) {
		case *ast.FuncLit:
			return false
		case *ast.LabeledStmt:
			fr := frame{stmt: s.Stmt}
			for _, r := range f.br.Regions {
				if r.Stmt == s {
					fr.region = r
				}
			}
			f.walk(s, append(outer, fr))
			return false
		case *ast.ForStmt, *ast.RangeStmt:
			f.walkTarget(m.(ast.Stmt), outer, true)
			return false
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			f.walkTarget(m.(ast.Stmt), outer, false)
			return false
		case *ast.BranchStmt:
			f.branch(s, outer)
		case *ast.ReturnStmt:
			if open(outer) != nil {
				f.br.Edits = append(f.br.Edits, RegionEdit{Pos: s.Pos(), Kind: PointReturn, Regions: open(outer), Return: s})
			}
		}
		return true
	})
}

// walkTarget walks a statement that a break (and, for a loop, a
// continue) may target: the frame of its label, if it has one, or a new
// one.
func (f *regionFinder) walkTarget(s ast.Stmt, outer []frame, loop bool) {
	if k := len(outer) - 1; k >= 0 && outer[k].stmt == s {
		outer[k].brk, outer[k].loop = true, loop
		f.walk(s, outer)
		return
	}
	f.walk(s, append(outer[:len(outer):len(outer)], frame{stmt: s, brk: true, loop: loop}))
}

// open lists the regions of outer, innermost first.
func open(outer []frame) []*Region {
	var rs []*Region
	for i := len(outer) - 1; i >= 0; i-- {
		if outer[i].region != nil {
			rs = append(rs, outer[i].region)
		}
	}
	return rs
}

// branch adds the edits of a break, continue or goto: the regions it
// leaves end before it; a goto to a region's label begins it again.
func (f *regionFinder) branch(s *ast.BranchStmt, outer []frame) {
	target := -1 // the frame the statement stays in; -1: none of outer
	switch s.Tok {
	case token.BREAK, token.CONTINUE:
		for i := len(outer) - 1; i >= 0; i-- {
			fr := outer[i]
			if s.Label != nil {
				if l, ok := f.labelOf[s.Label.Name]; ok && l.Stmt == fr.stmt {
					target = i
					break
				}
				continue
			}
			if s.Tok == token.BREAK && fr.brk || s.Tok == token.CONTINUE && fr.loop {
				target = i
				break
			}
		}
		// A break lands after its target: the target's own region
		// ends there, at its normal end.
	case token.GOTO:
		l := f.labelOf[s.Label.Name]
		if l == nil {
			f.err = fmt.Errorf("goto %s: no such label in the function", s.Label.Name)
			return
		}
		// The innermost frame whose statement holds the label's; the
		// label of a region's own statement is outside that region.
		for i := len(outer) - 1; i >= 0; i-- {
			if outer[i].stmt.Pos() <= l.Pos() && l.End() <= outer[i].stmt.End() && l.Stmt != outer[i].stmt {
				target = i
				break
			}
		}
	case token.FALLTHROUGH:
		return
	}
	left := open(outer[target+1:])
	var re *Region
	if s.Tok == token.GOTO {
		for _, r := range f.br.Regions {
			if r.Stmt == f.labelOf[s.Label.Name] {
				re = r
			}
		}
	}
	if len(left) > 0 {
		f.br.Edits = append(f.br.Edits, RegionEdit{Pos: s.Pos(), Kind: PointLeave, Regions: left})
	}
	if re != nil {
		f.br.Edits = append(f.br.Edits, RegionEdit{Pos: s.Pos(), Kind: PointEnter, Regions: []*Region{re}})
	}
}

// loopBody is the body of a for or range statement.
func loopBody(s ast.Stmt) *ast.BlockStmt {
	if f, ok := s.(*ast.ForStmt); ok {
		return f.Body
	}
	return s.(*ast.RangeStmt).Body
}

// inspectBody calls fn for every node of body outside function literals.
func inspectBody(body *ast.BlockStmt, fn func(ast.Node)) {
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if n != nil {
			fn(n)
		}
		return true
	})
}

// terminating says whether s is a terminating statement (the Go spec's
// "Terminating statements"): control never reaches its end. A call of
// panic is recognized by name.
func terminating(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.BranchStmt:
		return s.Tok == token.GOTO
	case *ast.ExprStmt:
		c, ok := s.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		id, ok := c.Fun.(*ast.Ident)
		return ok && id.Name == "panic"
	case *ast.BlockStmt:
		return endsTerminating(s.List)
	case *ast.IfStmt:
		return s.Else != nil && terminating(s.Body) && terminating(s.Else)
	case *ast.LabeledStmt:
		return terminating(s.Stmt) && !breaks(s.Stmt, s.Label.Name)
	case *ast.ForStmt:
		return s.Cond == nil && !breaks(s, "")
	case *ast.SwitchStmt:
		return clausesTerminate(s.Body, true) && !breaks(s, "")
	case *ast.TypeSwitchStmt:
		return clausesTerminate(s.Body, true) && !breaks(s, "")
	case *ast.SelectStmt:
		return clausesTerminate(s.Body, false) && !breaks(s, "")
	}
	return false
}

func endsTerminating(list []ast.Stmt) bool {
	return len(list) > 0 && terminating(list[len(list)-1])
}

// clausesTerminate says whether every clause of a switch or select body
// ends in a terminating statement (or, in a switch, a fallthrough), and,
// for a switch, whether one is the default.
func clausesTerminate(body *ast.BlockStmt, needDefault bool) bool {
	hasDefault := false
	for _, c := range body.List {
		var list []ast.Stmt
		switch c := c.(type) {
		case *ast.CaseClause:
			list, hasDefault = c.Body, hasDefault || c.List == nil
		case *ast.CommClause:
			list = c.Body
		}
		if b, ok := lastStmt(list).(*ast.BranchStmt); ok && b.Tok == token.FALLTHROUGH {
			continue
		}
		if !endsTerminating(list) {
			return false
		}
	}
	return hasDefault || !needDefault
}

func lastStmt(list []ast.Stmt) ast.Stmt {
	if len(list) == 0 {
		return nil
	}
	return list[len(list)-1]
}

// breaks says whether a break in s's body refers to s: an unlabeled one
// not inside an inner for, switch or select, or one with label.
func breaks(s ast.Stmt, label string) bool {
	found := false
	var visit func(n ast.Node, nested bool)
	visit = func(n ast.Node, nested bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			if found || m == n {
				return !found
			}
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
				visit(m, true)
				return false
			case *ast.BranchStmt:
				if m.Tok == token.BREAK && (m.Label == nil && !nested || m.Label != nil && m.Label.Name == label) {
					found = true
				}
			}
			return true
		})
	}
	visit(s, false)
	return found
}

// regionText is what a body's region points run, as Go text; the site
// that records the regions gives it.
type regionText struct {
	// Top declares the regions' state at the top of the body and defers
	// its unwind: the statements end with a semicolon.
	Top string
	// Enter, Iterate and Leave are statements.
	Enter, Iterate func(r *Region) string
	Leave          func(rs []*Region) string
	// Return is a function value that takes a return's results, ends the
	// open regions and returns them (the return's results are evaluated
	// first): `return X` becomes `return Return(X)`; a bare return, or
	// one of a function without results, runs Leave before it.
	Return string
}

// regionEdits turns the points of br, in the body of the file tf, into
// edits that run text's code there.
func regionEdits(tf *token.File, body *ast.BlockStmt, br *BodyRegions, text regionText) []Edit {
	at := func(p token.Pos, s string, order int) Edit {
		off := tf.Offset(p)
		return Edit{Off: off, End: off, Text: s, Order: order}
	}
	edits := []Edit{at(body.Lbrace+1, text.Top, orderDefinition)}
	for _, e := range br.Edits {
		switch e.Kind {
		case PointEnter:
			edits = append(edits, at(e.Pos, ";"+text.Enter(e.Regions[0])+";", orderRegion))
		case PointIterate:
			edits = append(edits, at(e.Pos, ";"+text.Iterate(e.Regions[0])+";", orderRegion))
		case PointLeave:
			edits = append(edits, at(e.Pos, ";"+text.Leave(e.Regions)+";", orderRegion))
		case PointReturn:
			if len(e.Return.Results) == 0 {
				edits = append(edits, at(e.Pos, ";"+text.Leave(e.Regions)+";", orderRegion))
				continue
			}
			rs := e.Return.Results
			edits = append(edits, at(rs[0].Pos(), text.Return+"(", orderRegion), at(rs[len(rs)-1].End(), ")", orderRegion))
		}
	}
	return edits
}
