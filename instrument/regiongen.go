package instrument

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"
	"sort"
	"strconv"
	"strings"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// Region sites (issue 14, seed 004): the region sites of one function
// body are generated together, since one statement of the body may end
// several of them. The body gets, at its top, one variable holding the
// state of each region and a deferred unwind, deferred again after each
// defer statement so that a panic ends the regions before the function's
// deferred calls run; each region's points
// (regions.go, RegionPoints) call its enter and leave helpers, and a
// return statement inside regions passes its results through the body's
// ret, which ends the open regions once the results are evaluated:
//
//	var pmm__rg5 pmm__regions5; defer pmm__rg5.unwind()
//	...
//	outer: for ... { ... }          // pmm__enter5(&pmm__rg5.r5) before, pmm__leave5(&pmm__rg5.r5) after
//	return pmm__rg5.ret(x, y)
//
// A region's enter and exit are a definition site's (the same template:
// its id, clocks, goroutine and tuples); leave ends it only when it is
// open, so that unwind and ret end the regions still open, innermost
// first, and no others.

// regionSites generates s and the other region sites of the body it is
// in, once; a site of a body generated already returns that body's
// outcome.
func (g *generator) regionSites(s *plan.Site) error {
	if err, done := g.regionDone[s]; done {
		return err
	}
	group, err := g.regionBody(s)
	for _, o := range group {
		g.regionDone[o] = err
	}
	return err
}

// regionBody generates the region sites of the body that holds s, and
// returns them.
func (g *generator) regionBody(s *plan.Site) ([]*plan.Site, error) {
	fi, _, path, err := g.node(s)
	if err != nil {
		return []*plan.Site{s}, err
	}
	var fn ast.Node
	for i := len(path) - 1; i >= 0 && fn == nil; i-- {
		switch path[i].(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			fn = path[i]
		}
	}
	var body *ast.BlockStmt
	var sig *types.Signature
	switch f := fn.(type) {
	case *ast.FuncDecl:
		body = f.Body
		if obj, ok := fi.pkg.TypesInfo.Defs[f.Name].(*types.Func); ok {
			sig = obj.Type().(*types.Signature)
		}
	case *ast.FuncLit:
		body = f.Body
		sig, _ = fi.pkg.TypesInfo.TypeOf(f).(*types.Signature)
	}
	if body == nil || sig == nil {
		return []*plan.Site{s}, fmt.Errorf("the region %s of %s is not in a function body pmm can find", s.Label, s.Function)
	}
	// The body's region sites: those of the plan in the same file whose
	// statement's innermost function is this one; each is a labeled
	// statement or statements a comment marks (static.MarkedRegions).
	var group []*plan.Site
	for _, o := range g.plan.Sites {
		if o.Kind != spec.SiteRegion && o.Kind != spec.SiteIteration || o.File != s.File || o.FuncID != s.FuncID {
			continue
		}
		start, end := lineColOffset(fi.tf, o.Line, o.Col), lineColOffset(fi.tf, o.EndLine, o.EndCol)
		if start < fi.tf.Offset(body.Lbrace) || end > fi.tf.Offset(body.Rbrace) {
			continue
		}
		group = append(group, o)
	}
	// A statement's Region, and its sites: its executions', its
	// iterations', or both.
	type sites struct{ exec, iter *plan.Site }
	siteOf := map[*Region]*sites{}
	var regions []*Region
	labeled, marked := LabeledRegions(body, nil), static.MarkedRegions(fi.file, body)
	markedOf := map[int]*Region{} // by its index in marked
	for _, o := range group {
		start, end := lineColOffset(fi.tf, o.Line, o.Col), lineColOffset(fi.tf, o.EndLine, o.EndCol)
		at := func(from, to ast.Node) bool {
			return fi.tf.Offset(from.Pos()) == start && fi.tf.Offset(to.End()) == end
		}
		var r *Region
		for _, l := range labeled {
			if l.Label == o.Label && at(l.Stmt, l.Stmt) {
				r = l
			}
		}
		for i, m := range marked {
			if first, last := m.Stmts[0], m.Stmts[len(m.Stmts)-1]; r == nil && m.Name == o.Label && at(first, last) {
				if r = markedOf[i]; r == nil {
					r = &Region{Label: m.Name, Stmts: m.Stmts, Lines: [2]int{o.Line, o.EndLine}}
					markedOf[i] = r
				}
			}
		}
		if r == nil {
			return group, fmt.Errorf("pmm bug: the region %s of %s that static.db lists at %s is not in its body", o.Label, o.Function, o.Position())
		}
		ss := siteOf[r]
		if ss == nil {
			ss = &sites{}
			siteOf[r] = ss
			regions = append(regions, r)
		}
		if o.Kind == spec.SiteIteration {
			if r.loopStmt() == nil {
				return group, fmt.Errorf("the region %s of %s is not a loop: it has no iterations", o.Label, o.Function)
			}
			r.Loop = true
			ss.iter = o
		} else {
			ss.exec = o
		}
	}
	br, err := RegionPoints(body, regions)
	if err != nil {
		return group, err
	}
	// Each site's state, enter, exit and leave, as a definition's; an
	// iteration's also its iterate, which ends the previous iteration
	// and begins the next, numbered.
	var sgs []*siteGen
	var decls []string
	enter, leave, iterate := map[*plan.Site]string{}, map[*plan.Site]string{}, map[*plan.Site]string{}
	// In a generic function the states, their functions and the body's
	// variable are generic in its type parameters: the helpers name them
	// renamed (targs), the function's body by their own names (uargs).
	tps := enclosingTypeParams(fi, body.Pos())
	for _, r := range br.Regions {
		for _, site := range []*plan.Site{siteOf[r].exec, siteOf[r].iter} {
			if site == nil {
				continue
			}
			sg := g.newSiteGen(site, fi)
			if err := sg.typeParams(tps); err != nil {
				return group, fmt.Errorf("the regions of %s are not instrumented: %v", s.Function, err)
			}
			sg.common()
			indexed := sg.caps[plan.CapIndex]
			if indexed {
				sg.declare("next", "int64")
			}
			sg.takeClocks()
			if err := sg.action(); err != nil {
				return group, err
			}
			if sg.conflict != nil {
				return group, sg.conflict
			}
			state := sg.name("state")
			decls = append(decls, sg.stateDecl())
			decls = append(decls, sg.enterDecls(nil)...)
			decls = append(decls, sg.exitDecl(nil, nil))
			decls = append(decls, fmt.Sprintf("func %s%s(s *%s%s) {\n\tif s.on {\n\t\t%s%s(s)\n\t\ts.on = false\n\t}\n}",
				sg.name("leave"), sg.tparam, state, sg.targs, sg.name("exit"), sg.targs))
			enter[site], leave[site] = sg.name("enter"), sg.name("leave")
			if site.Kind == spec.SiteIteration {
				number := ""
				if indexed {
					number = "\n\ts.index = s.next\n\ts.next++"
				}
				decls = append(decls, fmt.Sprintf("func %s%s(s *%s%s) {\n\t%s%s(s)%s\n\t%s%s(s)\n}",
					sg.name("iterate"), sg.tparam, state, sg.targs, sg.name("leave"), sg.targs, number, sg.name("enter"), sg.targs))
				iterate[site] = sg.name("iterate")
				if !indexed {
					enter[site] = "" // an iteration begins at the top of the loop's body only
				}
			}
			sgs = append(sgs, sg)
		}
	}
	// The body's variable: a field per site, r and the site's number.
	first := sgs[0]
	vtype, v := first.name("regions"), first.name("rg")
	var fields []string
	for _, sg := range sgs {
		fields = append(fields, "r"+strconv.Itoa(g.local[sg.s])+" "+sg.name("state")+sg.targs)
	}
	decls = append(decls, "type "+vtype+first.tparam+" struct {\n\t"+strings.Join(fields, "\n\t")+"\n}")
	ref := func(recv string, site *plan.Site) string {
		return "(&" + recv + ".r" + strconv.Itoa(g.local[site]) + ")"
	}
	// Innermost first: an inner region has a greater index, and a loop's
	// iteration is inside its execution.
	inner := slices.Clone(br.Regions)
	sort.Slice(inner, func(i, j int) bool { return inner[i].Index > inner[j].Index })
	// leaves ends regions rs, in the helpers (type arguments targs) or in
	// the function's body (uargs).
	leaves := func(rs []*Region, recv, targs string) string {
		var calls []string
		for _, r := range rs {
			for _, site := range []*plan.Site{siteOf[r].iter, siteOf[r].exec} {
				if site != nil {
					calls = append(calls, leave[site]+targs+ref(recv, site))
				}
			}
		}
		return strings.Join(calls, "; ")
	}
	decls = append(decls, "func (rs *"+vtype+first.targs+") unwind() {\n\t"+leaves(inner, "rs", first.targs)+"\n}")
	uargs := first.uargs
	text := regionText{
		Top: "var " + v + " " + vtype + uargs + "; defer " + v + ".unwind();",
		Enter: func(r *Region) string {
			var stmts []string
			if site := siteOf[r].exec; site != nil {
				stmts = append(stmts, enter[site]+uargs+ref(v, site))
			}
			if site := siteOf[r].iter; site != nil && enter[site] != "" {
				stmts = append(stmts, v+".r"+strconv.Itoa(g.local[site])+".next = 0")
			}
			return strings.Join(stmts, "; ")
		},
		Iterate: func(r *Region) string {
			if site := siteOf[r].iter; site != nil {
				return iterate[site] + uargs + ref(v, site)
			}
			return ""
		},
		Leave:  func(rs []*Region) string { return leaves(rs, v, uargs) },
		Return: v + ".ret",
	}
	if n := sig.Results().Len(); n > 0 {
		var params, results, names []string
		for i := 0; i < n; i++ {
			ts, err := first.typeName(sig.Results().At(i).Type())
			if err != nil {
				return group, err
			}
			params = append(params, "r"+strconv.Itoa(i+1)+" "+ts)
			results = append(results, ts)
			names = append(names, "r"+strconv.Itoa(i+1))
		}
		decls = append(decls, fmt.Sprintf("func (rs *%s%s) ret(%s) (%s) {\n\t%s\n\treturn %s\n}",
			vtype, first.targs, strings.Join(params, ", "), strings.Join(results, ", "), leaves(inner, "rs", first.targs), strings.Join(names, ", ")))
	}
	edits := regionEdits(fi.tf, body, br, text)
	// A panic ends the open regions where it happens, before the
	// function's deferred calls run: the unwind is deferred again after
	// each defer statement of the body, so that it is always the last
	// deferred (it ends only the regions still open, once).
	inspectBody(body, func(n ast.Node) {
		if d, ok := n.(*ast.DeferStmt); ok {
			off := fi.tf.Offset(d.End())
			edits = append(edits, Edit{Off: off, End: off, Text: "; defer " + v + ".unwind()", Order: orderRegion})
		}
	})
	for i, sg := range sgs {
		if i == 0 {
			sg.edits = edits
		}
		if err := sg.finish(); err != nil {
			return group, err
		}
		g.done[sg.s] = true
	}
	first.pc.Decls = append(first.pc.Decls, decls...)
	return group, nil
}
