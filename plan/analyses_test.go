package plan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// results are the results of the analyses of a disjunct that others
// require, by the name builder.disjunct's table gives them, and the type
// of each.
var results = map[string]string{
	"temporal":             "*Conj",
	"pairs":                "[]*Pair",
	"absences":             "map[*spec.Conj]*Absence",
	"the variables' types": "spec.VarTypes",
}

// TestAnalysesDeclareWhatTheyRequire checks the table of builder.disjunct's
// comment, which says what each analysis of a disjunct requires (as a
// go/analysis Analyzer's Requires does), against the analyses'
// signatures: an analysis takes, of the results of others, exactly those
// the table lists, so that the table is true and the compiler keeps the
// order (an analysis cannot run before what it takes).
func TestAnalysesDeclareWhatTheyRequire(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]*ast.FuncDecl{}
	var table string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				funcs[fd.Name.Name] = fd
				if fd.Name.Name == "disjunct" && fd.Recv != nil {
					table = fd.Doc.Text()
				}
			}
		}
	}
	_, rows, ok := strings.Cut(table, "analysis                          requires\n")
	if !ok {
		t.Fatalf("builder.disjunct's comment has no table of what the analyses require:\n%s", table)
	}
	n := 0
	for _, row := range strings.Split(strings.TrimSpace(rows), "\n") {
		row = strings.TrimSpace(row)
		if row == "" {
			break
		}
		name := strings.Fields(row)[0]
		fd := funcs[name]
		if fd == nil {
			t.Errorf("the table names %s, which is not a function of plan", name)
			continue
		}
		n++
		// The requirements: the text after the two-space gap that
		// follows the name and its note.
		req := strings.TrimSpace(row[strings.LastIndex(row, "  "):])
		var want []string
		if req != "-" {
			for _, r := range strings.Split(req, ", ") {
				if _, ok := results[r]; !ok {
					t.Errorf("%s requires %q, which is not a result of an analysis (results)", name, r)
				}
				want = append(want, r)
			}
		}
		var got []string
		for _, p := range fd.Type.Params.List {
			for r, typ := range results {
				if types.ExprString(p.Type) == typ && !slices.Contains(got, r) {
					got = append(got, r)
				}
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s takes the results %q; the table says it requires %q", name, got, want)
		}
	}
	if n < 5 {
		t.Errorf("the table lists %d analyses; want those of a disjunct", n)
	}
}
