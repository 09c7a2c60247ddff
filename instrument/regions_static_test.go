package instrument

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"testing"

	"pmm.dev/pmm/internal/stagetest"
)

// TestRegionsAgreeWithStatic checks that the regions static.db lists (the
// ones a question will choose) are the regions LabeledRegions finds to
// place code at: the same labels, spans and loops, each in the body of
// the function static.db says holds it. Were they to differ, a question
// about one region would time another, or none.
func TestRegionsAgreeWithStatic(t *testing.T) {
	const dir = "../testdata/static/regions"
	res, db := stagetest.StaticDB(t, dir)
	rows, err := db.Query(`SELECT r.label, r.loop, r.file, r.line, r.col, r.end_line, r.end_col,
		f.file, f.line, f.col, f.end_line, f.end_col FROM regions r JOIN functions f ON f.id = r.function_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var fromDB []string
	for rows.Next() {
		var label, file, ffile string
		var loop bool
		var l, c, el, ec, fl, fc, fel, fec int
		if err := rows.Scan(&label, &loop, &file, &l, &c, &el, &ec, &ffile, &fl, &fc, &fel, &fec); err != nil {
			t.Fatal(err)
		}
		fromDB = append(fromDB, fmt.Sprintf("%s loop=%v %s:%d:%d-%d:%d in %s:%d:%d-%d:%d", label, loop, file, l, c, el, ec, ffile, fl, fc, fel, fec))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	fset := token.NewFileSet()
	const name = "main.go"
	f, err := parser.ParseFile(fset, filepath.Join(res.Root, name), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	span := func(n ast.Node) string {
		p, q := fset.Position(n.Pos()), fset.Position(n.End())
		return fmt.Sprintf("%s:%d:%d-%d:%d", name, p.Line, p.Column, q.Line, q.Column)
	}
	var found []string
	eachBody(f, func(fn ast.Node, body *ast.BlockStmt) {
		for _, r := range LabeledRegions(body, nil) {
			found = append(found, fmt.Sprintf("%s loop=%v %s in %s", r.Label, r.Loop, span(r.Stmt), span(fn)))
		}
	})
	slices.Sort(fromDB)
	slices.Sort(found)
	if len(found) < 6 {
		t.Fatalf("LabeledRegions found %d regions in %s, want the six of its every kind: %q", len(found), dir, found)
	}
	if !slices.Equal(fromDB, found) {
		t.Errorf("static.db's regions:\n%q\nLabeledRegions':\n%q", fromDB, found)
	}
}

// eachBody calls fn with every function declaration and literal of f
// that has a body, outer ones first.
func eachBody(f *ast.File, fn func(n ast.Node, body *ast.BlockStmt)) {
	ast.Inspect(f, func(n ast.Node) bool {
		switch d := n.(type) {
		case *ast.FuncDecl:
			if d.Body != nil {
				fn(d, d.Body)
			}
		case *ast.FuncLit:
			fn(d, d.Body)
		}
		return true
	})
}
