package instrument

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

// TestCallsSomething: an accounted function enters its account unless
// it calls nothing: conversions and builtins run no code of the
// program; a call, a method call, a go or defer statement, panic, and a
// range over an iterator do; a function literal's calls are its own.
func TestCallsSomething(t *testing.T) {
	const src = `package p

type T struct{ n int }

func (t *T) M() int { return t.n }

func seq(yield func(int) bool) {}

func accessor(t *T) int      { return t.n }
func builtins(s []int) []int { s = append(s, len(s)); return make([]int, cap(s)) }
func conversion(b []byte) string { return string(b) }
func literal() func() int    { return func() int { return accessor(nil) } }
func calls(t *T) int          { return accessor(t) }
func method(t *T) int         { return t.M() }
func deferred(t *T)           { defer t.M() }
func panics()                 { panic("x") }
func iterates() (n int)       { for x := range seq { n += x }; return }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: importer.Default(), GoVersion: "go1.23"}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"M": false, "seq": false, "accessor": false, "builtins": false, "conversion": false, "literal": false,
		"calls": true, "method": true, "deferred": true, "panics": true, "iterates": true}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			if got := callsSomething(info, fd.Body); got != want[fd.Name.Name] {
				t.Errorf("%s: calls something %v, want %v", fd.Name.Name, got, want[fd.Name.Name])
			}
		}
	}
}
