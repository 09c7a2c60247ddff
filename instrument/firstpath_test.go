package instrument

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"slices"
	"testing"
)

// TestFirstPathPrunes checks that firstPath, which does not go into the
// nodes that do not span the offsets it is given, finds what a search of
// the whole file finds: for every node but comments of a source file of
// this package, the first node but comments that begins where it begins
// (as a site's syntax is found), and the first expression that ends
// where it ends and begins at or before (as an allocation's), with the
// same path.
func TestFirstPathPrunes(t *testing.T) {
	const name = "allocgen.go"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) }
	checked := 0
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil || isComment(n) {
			return n != nil // a doc comment lies before its declaration: firstPath finds no comment
		}
		start, end := off(n.Pos()), off(n.End())
		_, isExpr := n.(ast.Expr)
		for _, c := range []struct {
			lo, hi int
			match  func(ast.Node) bool
		}{
			{start, start, func(m ast.Node) bool { return off(m.Pos()) == start && !isComment(m) }},
			{start, end, func(m ast.Node) bool {
				_, ok := m.(ast.Expr)
				return ok && isExpr && off(m.End()) == end && off(m.Pos()) <= start
			}},
		} {
			got, gotPath := firstPath(f, tf, c.lo, c.hi, c.match)
			want, wantPath := firstPath(f, tf, math.MaxInt, -1, c.match) // every node spans these: the whole file
			if got != want || !slices.Equal(gotPath, wantPath) {
				t.Errorf("%s: offsets %d-%d: firstPath found %T at %v, the whole file's search %T at %v", name, c.lo, c.hi, got, fset.Position(pos(got)), want, fset.Position(pos(want)))
			}
			checked++
		}
		return true
	})
	if checked < 1000 {
		t.Fatalf("%d searches checked, want at least 1000", checked)
	}
}

func isComment(n ast.Node) bool {
	switch n.(type) {
	case *ast.Comment, *ast.CommentGroup:
		return true
	}
	return false
}

func pos(n ast.Node) token.Pos {
	if n == nil {
		return token.NoPos
	}
	return n.Pos()
}
