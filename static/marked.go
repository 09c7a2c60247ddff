package static

import (
	"go/ast"
	"go/token"
	"sort"
	"strings"
)

// Regions marked by comments (issue 14): Go rejects a label that no
// branch statement names, so a statement, or a run of statements, can
// be named a region by a comment of its own instead:
//
//	//pmm:region decode
//	if err := json.Unmarshal(data, &v); err != nil { ... }
//
// marks the statement after it; with a //pmm:end decode comment later in
// the same block, the statements between the two.

// The directives of marked regions.
const (
	RegionDirective    = "//pmm:region"
	RegionEndDirective = "//pmm:end"
)

// MarkedRegion is a run of statements of one statement list that a
// //pmm:region comment names.
type MarkedRegion struct {
	Name    string
	Stmts   []ast.Stmt
	Comment token.Pos // of the //pmm:region comment
}

// MarkedRegions returns the regions that the //pmm:region comments of
// file mark in body; the comments in function literals of body are
// theirs; in the order of the comments. A comment that marks no statement (none follows it in its
// block) marks nothing.
func MarkedRegions(file *ast.File, body *ast.BlockStmt) []MarkedRegion {
	var begins, ends []*ast.Comment
	for _, g := range file.Comments {
		if g.Pos() < body.Lbrace || g.End() > body.Rbrace {
			continue
		}
		for _, c := range g.List {
			switch {
			case directiveName(c.Text, RegionDirective) != "":
				begins = append(begins, c)
			case directiveName(c.Text, RegionEndDirective) != "":
				ends = append(ends, c)
			}
		}
	}
	if len(begins) == 0 {
		return nil
	}
	var out []MarkedRegion
	eachStmtList(body, func(list []ast.Stmt, from, to token.Pos) {
		for _, c := range begins {
			if c.Pos() < from || c.End() > to || inAny(list, c.Pos()) {
				continue
			}
			name := directiveName(c.Text, RegionDirective)
			first := -1
			for i, st := range list {
				if st.Pos() > c.End() {
					first = i
					break
				}
			}
			if first < 0 {
				continue
			}
			last := first
			for _, e := range ends {
				if directiveName(e.Text, RegionEndDirective) != name || e.Pos() < list[first].End() || e.End() > to || inAny(list, e.Pos()) {
					continue
				}
				for i := first; i < len(list) && list[i].End() < e.Pos(); i++ {
					last = i
				}
				break
			}
			out = append(out, MarkedRegion{Name: name, Stmts: list[first : last+1], Comment: c.Pos()})
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Comment < out[j].Comment })
	return out
}

// directiveName is the name after directive in comment text, or "".
func directiveName(text, directive string) string {
	rest, ok := strings.CutPrefix(text, directive)
	if !ok || rest == "" || rest[0] != ' ' && rest[0] != '\t' {
		return ""
	}
	if f := strings.Fields(rest); len(f) > 0 {
		return f[0]
	}
	return ""
}

// inAny reports whether pos lies inside one of the statements of list.
func inAny(list []ast.Stmt, pos token.Pos) bool {
	for _, st := range list {
		if st.Pos() <= pos && pos < st.End() {
			return true
		}
	}
	return false
}

// eachStmtList calls fn with every statement list of body (blocks and the
// bodies of cases), with the positions that bound it, function literals
// excluded.
func eachStmtList(body *ast.BlockStmt, fn func(list []ast.Stmt, from, to token.Pos)) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BlockStmt:
			fn(n.List, n.Lbrace, n.Rbrace)
		case *ast.CaseClause:
			fn(n.Body, n.Colon, n.End())
		case *ast.CommClause:
			fn(n.Body, n.Colon, n.End())
		}
		return true
	})
}
