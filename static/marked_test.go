package static

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestMarkedRegions checks which statements //pmm:region comments mark:
// the next statement of their block, or the run up to the //pmm:end of
// the same name in that block; none in function literals of the body
// (theirs), nor after the last statement of a block.
func TestMarkedRegions(t *testing.T) {
	const src = `package p

func F(xs []int) (n int) {
	//pmm:region one
	n = 1
	//pmm:region run
	n++
	n++
	//pmm:end run
	for _, x := range xs {
		switch {
		case x > 0:
			//pmm:region incase
			n += x
		}
		//pmm:region nothing
	}
	f := func() {
		//pmm:region lit
		n--
	}
	//pmm:region loop
	for range xs {
		f()
	}
	//pmm:region unended
	n *= 2
	//pmm:end other
	n /= 2
	//pmm:regionx notone
	return n
}
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	body := file.Decls[0].(*ast.FuncDecl).Body
	lines := func(m MarkedRegion) string {
		var b strings.Builder
		b.WriteString(m.Name + ":")
		for _, st := range m.Stmts {
			b.WriteString(" " + strings.TrimSpace(strings.SplitN(src[fset.Position(st.Pos()).Offset:fset.Position(st.End()).Offset], "\n", 2)[0]))
		}
		return b.String()
	}
	var got []string
	for _, m := range MarkedRegions(file, body) {
		got = append(got, lines(m))
	}
	want := []string{
		"one: n = 1",
		"run: n++ n++",
		"incase: n += x",
		"loop: for range xs {",
		"unended: n *= 2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("marked regions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	lit := body.List[4].(*ast.AssignStmt).Rhs[0].(*ast.FuncLit)
	if ms := MarkedRegions(file, lit.Body); len(ms) != 1 || lines(ms[0]) != "lit: n--" {
		t.Errorf("the literal's marked regions: %v, want lit: n--", ms)
	}
}
