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
// the region's statement. A region of lines (a run of statements of one
// block) is the same, except that a goto from inside it to a label of
// its statements stays in it, and one from outside begins it.

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

// Region is one labeled statement of a body that is a region, or a run
// of statements of one block that lines select.
type Region struct {
	Label string
	Stmt  *ast.LabeledStmt // a labeled region's statement
	// Stmts are, for a region of lines (Lines), its statements: one run
	// of a statement list.
	Stmts []ast.Stmt
	Lines [2]int
	// Loop says the statement is a for or range loop: its iterations
	// are events too.
	Loop bool
	// Index numbers the region in the body, in source order; an inner
	// region has a greater index than the regions around it.
	Index int
}

// Pos and End are where the region's statements begin and end.
func (r *Region) Pos() token.Pos {
	if r.Stmt != nil {
		return r.Stmt.Pos()
	}
	return r.Stmts[0].Pos()
}

func (r *Region) End() token.Pos {
	if r.Stmt != nil {
		return r.Stmt.End()
	}
	return r.Stmts[len(r.Stmts)-1].End()
}

// loopStmt is the region's for or range statement, nil if it is not one
// loop: a labeled loop, or a region of one statement that is a loop.
func (r *Region) loopStmt() ast.Stmt {
	st := r.Stmts
	if r.Stmt != nil {
		st = []ast.Stmt{r.Stmt.Stmt}
	}
	if len(st) == 1 {
		switch st[0].(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			return st[0]
		}
	}
	return nil
}

// last is the statement after which the region ends normally.
func (r *Region) last() ast.Stmt {
	if r.Stmt != nil {
		return r.Stmt
	}
	return r.Stmts[len(r.Stmts)-1]
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
	return RegionPoints(body, LabeledRegions(body, want))
}

// LabeledRegions returns the regions of body whose labels want selects
// (all when want is nil).
func LabeledRegions(body *ast.BlockStmt, want func(label string) bool) []*Region {
	var rs []*Region
	inspectBody(body, func(n ast.Node) {
		l, ok := n.(*ast.LabeledStmt)
		if !ok || want != nil && !want(l.Label.Name) {
			return
		}
		switch l.Stmt.(type) {
		case *ast.ForStmt, *ast.RangeStmt:
			rs = append(rs, &Region{Label: l.Label.Name, Stmt: l, Loop: true})
		case *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt, *ast.BlockStmt:
			rs = append(rs, &Region{Label: l.Label.Name, Stmt: l})
		}
	})
	return rs
}

// LineRegion returns the region of the lines from to to (inclusive) of
// body, in file tf: the statements that lie on those lines, which must be
// one run of statements of one statement list (a block or a case), so
// that the region has one way in and its ends are statements' ends.
func LineRegion(tf *token.File, body *ast.BlockStmt, from, to int) (*Region, error) {
	within := func(n ast.Node) bool {
		return tf.Line(n.Pos()) >= from && tf.Line(n.End()) <= to
	}
	var found [][]ast.Stmt // the runs of statements within the lines, outermost
	var visit func(list []ast.Stmt)
	visit = func(list []ast.Stmt) {
		var run []ast.Stmt
		for _, st := range list {
			if within(st) {
				run = append(run, st)
				continue
			}
			if run != nil {
				found, run = append(found, run), nil
			}
			ast.Inspect(st, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					return false
				case *ast.BlockStmt:
					visit(n.List)
					return false
				case *ast.CaseClause:
					visit(n.Body)
					return false
				case *ast.CommClause:
					visit(n.Body)
					return false
				}
				return true
			})
		}
		if run != nil {
			found = append(found, run)
		}
	}
	visit(body.List)
	switch {
	case len(found) == 0:
		return nil, fmt.Errorf("lines %d to %d hold no whole statement of the function", from, to)
	case len(found) > 1:
		a, b := found[0][0], found[1][0]
		return nil, fmt.Errorf("lines %d to %d hold statements of more than one block (lines %d and %d): "+
			"a region of lines is a run of statements of one block; widen or narrow the range, or label a statement",
			from, to, tf.Line(a.Pos()), tf.Line(b.Pos()))
	}
	return &Region{Label: fmt.Sprintf("%d-%d", from, to), Stmts: found[0], Lines: [2]int{from, to}}, nil
}

// RegionPoints returns where the code of regions, regions of body, goes.
func RegionPoints(body *ast.BlockStmt, regions []*Region) (*BodyRegions, error) {
	br := &BodyRegions{Regions: regions}
	if len(regions) == 0 {
		return br, nil
	}
	f := &regionFinder{br: br, labelOf: map[string]*ast.LabeledStmt{}, first: map[ast.Stmt]*Region{}, skip: map[ast.Stmt][]*Region{}}
	inspectBody(body, func(n ast.Node) {
		if l, ok := n.(*ast.LabeledStmt); ok {
			f.labelOf[l.Label.Name] = l
		}
	})
	// Outer regions first: by begin, then the longer one; a region of
	// lines around a labeled region of the same statements is outside it.
	sort.SliceStable(regions, func(i, j int) bool {
		a, b := regions[i], regions[j]
		if a.Pos() != b.Pos() {
			return a.Pos() < b.Pos()
		}
		if a.End() != b.End() {
			return a.End() > b.End()
		}
		return a.Stmt == nil && b.Stmt != nil
	})
	for i, r := range regions {
		r.Index = i
		if r.Stmt == nil {
			if f.first[r.Stmts[0]] != nil {
				return nil, fmt.Errorf("lines %d to %d: the same statements as lines %d to %d", r.Lines[0], r.Lines[1], f.first[r.Stmts[0]].Lines[0], f.first[r.Stmts[0]].Lines[1])
			}
			f.first[r.Stmts[0]] = r
			for _, st := range r.Stmts[1:] {
				f.skip[st] = append(f.skip[st], r)
			}
		}
	}
	// A statement with two labels (A: B: for ...) has no place for code
	// between them that a break or continue to A would still reach.
	var chained error
	inspectBody(body, func(n ast.Node) {
		if l, ok := n.(*ast.LabeledStmt); ok && chained == nil {
			if inner, ok := l.Stmt.(*ast.LabeledStmt); ok {
				for _, r := range regions {
					if r.Stmt == inner || r.Stmt == l || r.Stmt == nil && r.Stmts[0] == inner {
						chained = fmt.Errorf("the statement labeled %s is labeled twice (%s: %s:): give it one label", r.Label, l.Label.Name, inner.Label.Name)
					}
				}
			}
		}
	})
	if chained != nil {
		return nil, chained
	}
	for _, r := range regions {
		br.Edits = append(br.Edits, RegionEdit{Pos: r.Pos(), Kind: PointEnter, Regions: []*Region{r}})
		if r.Loop {
			br.Edits = append(br.Edits, RegionEdit{Pos: loopBody(r.loopStmt()).Lbrace + 1, Kind: PointIterate, Regions: []*Region{r}})
		}
	}
	f.walk(body, nil)
	// A region's normal end: after its statement, where every break to
	// it lands. Regions that end at one position end innermost first.
	// After a terminating statement (Go spec) there is none: code there
	// would be unreachable, and a function with results would then lack
	// its final return.
	for i := len(regions) - 1; i >= 0; i-- {
		r := regions[i]
		if terminating(r.last()) {
			continue
		}
		br.Edits = append(br.Edits, RegionEdit{Pos: r.End(), Kind: PointLeave, Regions: []*Region{r}})
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
	first   map[ast.Stmt]*Region   // a region of lines by its first statement
	skip    map[ast.Stmt][]*Region // the other statements of regions of lines
	err     error
}

// frame is a statement around the one being walked: a region, or a
// statement that an unlabeled break or continue may target; or a region
// of lines (stmt nil).
type frame struct {
	stmt   ast.Stmt
	region *Region // when the statement is a region's
	loop   bool    // a continue may target it
	brk    bool    // a break may target it
}

// holds says whether the label l is inside the frame's statement: a
// region's own label is outside it, a label of a region of lines'
// statements inside.
func (fr frame) holds(l *ast.LabeledStmt) bool {
	if fr.stmt == nil {
		return fr.region.Pos() <= l.Pos() && l.End() <= fr.region.End()
	}
	return fr.stmt.Pos() <= l.Pos() && l.End() <= fr.stmt.End() && l.Stmt != fr.stmt
}

// walk visits n with the enclosing statements outer (outermost first).
func (f *regionFinder) walk(n ast.Node, outer []frame) {
	ast.Inspect(n, func(m ast.Node) bool {
		if m == n {
			return true
		}
		if st, ok := m.(ast.Stmt); ok {
			for _, r := range f.skip[st] {
				if !inFrames(outer, r) {
					return false // walked in r's frame
				}
			}
			if r := f.first[st]; r != nil && !inFrames(outer, r) {
				// A region of lines: its statements, in its frame.
				inner := append(outer[:len(outer):len(outer)], frame{region: r})
				for _, st := range r.Stmts {
					f.walk(&ast.BlockStmt{List: []ast.Stmt{st}}, inner)
				}
				return false
			}
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

// inFrames says whether r is one of the regions of outer.
func inFrames(outer []frame, r *Region) bool {
	for _, fr := range outer {
		if fr.region == r {
			return true
		}
	}
	return false
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
			if outer[i].holds(l) {
				target = i
				break
			}
		}
	case token.FALLTHROUGH:
		return
	}
	left := open(outer[target+1:])
	if len(left) > 0 {
		f.br.Edits = append(f.br.Edits, RegionEdit{Pos: s.Pos(), Kind: PointLeave, Regions: left})
	}
	if s.Tok != token.GOTO {
		return
	}
	// A goto to a region's label begins it; so does a goto from outside
	// a region of lines to a label of its statements.
	l := f.labelOf[s.Label.Name]
	for _, r := range f.br.Regions {
		if r.Stmt == l || r.Stmt == nil && !inFrames(outer, r) && (frame{region: r}).holds(l) {
			f.br.Edits = append(f.br.Edits, RegionEdit{Pos: s.Pos(), Kind: PointEnter, Regions: []*Region{r}})
		}
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
	// Enter, Iterate and Leave are statements; an empty Iterate adds
	// nothing.
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
			if s := text.Enter(e.Regions[0]); s != "" {
				edits = append(edits, at(e.Pos, ";"+s+";", orderRegion))
			}
		case PointIterate:
			if s := text.Iterate(e.Regions[0]); s != "" {
				edits = append(edits, at(e.Pos, ";"+s+";", orderRegion))
			}
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
