package plan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"
)

// TestCaptures checks that Captures lists every capture igm.go declares,
// and that each has its meaning (when it is known, what a site takes).
func TestCaptures(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "igm.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	all := Captures()
	declared := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Capture" {
				continue
			}
			for _, name := range vs.Names {
				declared++
				lit := vs.Values[0].(*ast.BasicLit).Value
				c := Capture(lit[1 : len(lit)-1])
				if !slices.Contains(all, c) {
					t.Errorf("%s is not in Captures", name.Name)
				}
			}
		}
	}
	if declared != len(all) {
		t.Errorf("igm.go declares %d captures, Captures lists %d", declared, len(all))
	}
	for _, c := range all {
		if _, ok := captureMeanings[c]; !ok {
			t.Errorf("capture %s has no meaning in captureMeanings", c)
		}
	}
}
