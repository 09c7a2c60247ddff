package rewrite

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pmm.dev/pmm/instrument"
)

// at returns the offset of the n-th (from 0) occurrence of s in src.
func at(t *testing.T, src, s string, n int) int {
	t.Helper()
	off := -1
	for i := 0; i <= n; i++ {
		j := strings.Index(src[off+1:], s)
		if j < 0 {
			t.Fatalf("no occurrence %d of %q in %q", n, s, src)
		}
		off += 1 + j
	}
	return off
}

func insert(off int, text string, order int) instrument.Edit {
	return instrument.Edit{Off: off, End: off, Text: text, Order: order}
}

// callEdits are the edits of a call site as package instrument makes
// them: W(caller, inserted before the callee, its ( replaced by a comma;
// outer calls (longer) open first. The call's ( is the first of call, or
// the last for f(1)(2).
func callEdits(t *testing.T, src, call string, n int, w string) []instrument.Edit {
	t.Helper()
	start := at(t, src, call, n)
	lparen := start + strings.Index(call, "(")
	if strings.HasSuffix(call, ")(2)") {
		lparen = start + strings.LastIndex(call, "(")
	}
	const orderCall = 2
	order := orderCall*1_000_000 + (1_000_000 - len(call))
	return []instrument.Edit{
		insert(start, w+"(0, ", order),
		{Off: lparen, End: lparen + 1, Text: ", "},
	}
}

// tokenLines returns the lines of the tokens of src by their text, with
// line directives applied.
func tokenLines(t *testing.T, src []byte) map[string][]int {
	t.Helper()
	fset := token.NewFileSet()
	f := fset.AddFile("p.go", -1, len(src))
	var s scanner.Scanner
	s.Init(f, src, func(pos token.Position, msg string) { t.Errorf("%s: %s", pos, msg) }, 0)
	lines := map[string][]int{}
	for {
		p, tok, lit := s.Scan()
		if tok == token.EOF {
			return lines
		}
		if lit == "" {
			lit = tok.String()
		}
		if tok == token.SEMICOLON {
			continue
		}
		lines[lit] = append(lines[lit], fset.PositionFor(p, true).Line)
	}
}

func apply(t *testing.T, src string, edits ...instrument.Edit) string {
	t.Helper()
	out, err := Apply("p.go", []byte(src), edits)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestApplyOrderAtEqualOffsets(t *testing.T) {
	src := "package p\n\nvar x = f(1)\n"
	f := at(t, src, "f(1)", 0)
	end := f + len("f(1)")
	// Given in the wrong order: the lower Order opens first; equal
	// orders keep the order they were given in.
	out := apply(t, src,
		insert(f, "inner(", 2), insert(f, "outer(", 1), insert(f, "a + ", 3), insert(f, "b + ", 3),
		insert(end, ")", 0), insert(end, ")", 0))
	if want := "var x = outer(inner(a + b + f(1)))"; !strings.Contains(out, want) {
		t.Errorf("got\n%s\nwant %s", out, want)
	}
}

func TestApplyNestedCallSites(t *testing.T) {
	for _, c := range []struct {
		src   string
		edits func(src string) []instrument.Edit
		want  string
	}{
		{
			src: "package p\n\nvar x = F(G(y))\n",
			edits: func(src string) []instrument.Edit {
				return append(callEdits(t, src, "F(G(y))", 0, "W1"), callEdits(t, src, "G(y)", 0, "W2")...)
			},
			want: "var x = W1(0, F, W2(0, G, y))",
		},
		{
			// The inner call first: order, not the order of the edits.
			src: "package p\n\nvar x = F(G(y), H(z))\n",
			edits: func(src string) []instrument.Edit {
				e := append(callEdits(t, src, "H(z)", 0, "W3"), callEdits(t, src, "G(y)", 0, "W2")...)
				return append(e, callEdits(t, src, "F(G(y), H(z))", 0, "W1")...)
			},
			want: "var x = W1(0, F, W2(0, G, y), W3(0, H, z))",
		},
		{
			// Two calls that start at the same offset: f(1)(2).
			src: "package p\n\nvar x = f(1)(2)\n",
			edits: func(src string) []instrument.Edit {
				return append(callEdits(t, src, "f(1)", 0, "W2"), callEdits(t, src, "f(1)(2)", 0, "W1")...)
			},
			want: "var x = W1(0, W2(0, f, 1), 2)",
		},
	} {
		if out := apply(t, c.src, c.edits(c.src)...); !strings.Contains(out, c.want) {
			t.Errorf("got\n%s\nwant %s", out, c.want)
		}
	}
}

// TestApplyReturnOfCallSite: return F(x) where the function's returns
// are rewritten (return s.ret(X)) and F(x) is a call site, with the
// definition's statements at the top of the body.
func TestApplyReturnOfCallSite(t *testing.T) {
	src := "package p\n\nfunc f(x int) int {\n\ty := x\n\treturn F(y)\n}\n"
	body := at(t, src, "{", 0) + 1
	start := at(t, src, "F(y)", 0)
	end := start + len("F(y)")
	const orderDefinition, orderReturn = 0, 1
	edits := append(callEdits(t, src, "F(y)", 0, "W"),
		insert(end, ")", 0),
		insert(start, "s.ret(", orderReturn),
		insert(body, "var s S; if enter(&s, x) { defer exit(&s) };", orderDefinition))
	out := apply(t, src, edits...)
	if want := "return s.ret(W(0, F, y))"; !strings.Contains(out, want) {
		t.Errorf("got\n%s\nwant %s", out, want)
	}
	if formatted, err := format.Source([]byte(out)); err != nil || string(formatted) != out {
		t.Errorf("the output is not gofmt-formatted (err %v):\n%s", err, out)
	}
	// The user's tokens keep their lines, through the /*line*/ comments.
	orig, got := tokenLines(t, []byte(src)), tokenLines(t, []byte(out))
	for _, tok := range []string{"y", "return", "F", "f", "}"} {
		o, g := orig[tok], got[tok]
		if tok == "}" {
			o, g = o[len(o)-1:], g[len(g)-1:] // the function's
		}
		if fmt.Sprint(g) != fmt.Sprint(o) {
			t.Errorf("%s: lines %v, want %v\n%s", tok, g, o, out)
		}
	}
}

// TestApplyFallsBackUnformatted: in a one-line function, gofmt moves the
// statements after the inserted ones to lines of their own, which the
// /*line*/ comment after the inserted statements cannot all put back:
// Apply keeps the edited text as it is, in which every token of the
// user's has its line.
func TestApplyFallsBackUnformatted(t *testing.T) {
	src := "package p\n\nfunc f(a int) int { return a }\n\nfunc g() {\n\tf(1)\n}\n"
	body := at(t, src, "{", 0) + 1
	ret := at(t, src, "a }", 0)
	edits := []instrument.Edit{
		insert(body, "var s S; if enter(&s) { defer exit(&s) };", 0),
		insert(ret, "s.ret(", 1),
		insert(ret+1, ")", 0),
	}
	out := apply(t, src, edits...)
	if formatted, err := format.Source([]byte(out)); err != nil || string(formatted) == out {
		t.Fatalf("expected an unformatted fallback (err %v):\n%s", err, out)
	}
	if !strings.Contains(out, "func f(a int) int {var s S; if enter(&s) { defer exit(&s) };/*line p.go:3:20*/ return s.ret(a) }") {
		t.Errorf("not the edited text:\n%s", out)
	}
	orig, got := tokenLines(t, []byte(src)), tokenLines(t, []byte(out))
	for _, tok := range []string{"return", "f", "g", "}"} {
		o, g := orig[tok], got[tok]
		if len(g) < len(o) || g[len(g)-1] != o[len(o)-1] {
			t.Errorf("%s: lines %v, want %v", tok, g, o)
		}
	}
}

func TestApplyRejectsOverlappingEdits(t *testing.T) {
	src := "package p\n\nvar x = f(1)\n"
	f := at(t, src, "f(1)", 0)
	_, err := Apply("p.go", []byte(src), []instrument.Edit{{Off: f, End: f + 3, Text: "g("}, {Off: f + 1, End: f + 2, Text: "["}})
	if err == nil {
		t.Fatal("overlapping edits accepted")
	}
}

// TestApplyTwin checks a twin edit: its text, a copy of the range with
// the edits inside it (those Only for the twin included), its After,
// then the range as usual without the edits Only for the twin; and that
// both copies keep the user's lines.
func TestApplyTwin(t *testing.T) {
	src := "package p\n\nfunc f(x int) int {\n\treturn g(x)\n}\n"
	top := at(t, src, "\n\treturn", 0)
	rbrace := at(t, src, "}\n", 0)
	g := at(t, src, "g(x)", 0)
	x := at(t, src, "x)", 0)
	out := apply(t, src,
		instrument.Edit{Off: top, End: top, Text: "if on() { return func() int {", Twin: 7, CopyEnd: rbrace, After: "}() };"},
		instrument.Edit{Off: g, End: g, Text: "s.ret(", Order: 1, Only: 7},
		instrument.Edit{Off: x, End: x, Text: "w, "},
		instrument.Edit{Off: g + len("g(x)"), End: g + len("g(x)"), Text: ")", Only: 7},
	)
	if strings.Count(out, "return s.ret(g(w, x))") != 1 || strings.Count(out, "return g(w, x)") != 1 || !strings.Contains(out, "}() };") {
		t.Errorf("got\n%s", out)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", out, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "g" {
			if line := fset.Position(id.Pos()).Line; line != 4 {
				t.Errorf("g at line %d, want 4:\n%s", line, out)
			}
		}
		return true
	})
}

// TestWriteAgain: Write into a directory an earlier Write filled leaves
// what a Write into an empty one does: a file changed since by hand is
// written again, a file no longer in the overlay is removed (and its
// directory left empty), a file whose inputs did not change is not
// written, and one whose edits changed is; so is every file made by
// another Version.
func TestWriteAgain(t *testing.T) {
	root := t.TempDir()
	src := map[string]string{
		"a/a.go": "package a\n\nfunc F() int { return g() }\n\nfunc g() int { return 1 }\n",
		"b/b.go": "package b\n\nfunc H() int { return 2 }\n",
	}
	for name, text := range src {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code := func(aText string) *instrument.Code {
		c := &instrument.Code{Files: map[string][]instrument.Edit{}, Helpers: map[string]*instrument.Helpers{}}
		for name, text := range src {
			path := filepath.Join(root, name)
			off := strings.Index(text, "return")
			c.Files[path] = []instrument.Edit{insert(off, aText+"();", 0)}
			c.Helpers[path] = &instrument.Helpers{Source: path, Package: filepath.Base(filepath.Dir(path)),
				Imports: map[string]string{}, Decls: []string{"func " + aText + "() {}"}}
		}
		return c
	}
	write := func(out string, c *instrument.Code, version string) map[string]string {
		t.Helper()
		if _, err := Write(Config{Root: root, OutDir: out, Code: c, Version: version,
			Runtime: map[string][]byte{"rt.go": []byte("package rt\n")}, RuntimeDir: "internal/rt"}); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		filepath.WalkDir(filepath.Dir(out), func(path string, d fs.DirEntry, err error) error {
			if err == nil {
				rel, _ := filepath.Rel(filepath.Dir(out), path)
				files[rel] = ""
				if !d.IsDir() {
					data, _ := os.ReadFile(path)
					files[rel] = string(data)
				}
			}
			return err
		})
		return files
	}
	fresh := func(c *instrument.Code, version string) map[string]string {
		return write(filepath.Join(t.TempDir(), "overlay"), c, version)
	}
	check := func(what string, got, want map[string]string) {
		t.Helper()
		delete(got, "overlay.json") // it names the directory
		delete(want, "overlay.json")
		for name, text := range want {
			if got[name] != text {
				t.Errorf("%s: %s is %q, want %q", what, name, got[name], text)
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				t.Errorf("%s: %s is left", what, name)
			}
		}
	}
	out := filepath.Join(t.TempDir(), "pmm", "overlay")
	write(out, code("pmmA"), "1")
	aPath, bPath := filepath.Join(out, "a", "a.go"), filepath.Join(out, "b", "b.go")
	if err := os.WriteFile(aPath, []byte("changed by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "gone"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "gone", "x.go"), []byte("package gone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(bPath, old, old); err != nil {
		t.Fatal(err)
	}
	check("again", write(out, code("pmmA"), "1"), fresh(code("pmmA"), "1"))
	if info, err := os.Stat(bPath); err != nil || !info.ModTime().Equal(old) {
		t.Errorf("b.go, whose inputs did not change, was written again")
	}
	check("other edits", write(out, code("pmmB"), "1"), fresh(code("pmmB"), "1"))
	if info, err := os.Stat(bPath); err != nil || info.ModTime().Equal(old) {
		t.Errorf("b.go, whose edits changed, was not written again")
	}
	// A file the sums say was made from these inputs by another version
	// is made again (here, as a version that formats otherwise wrote it).
	if err := os.WriteFile(bPath, []byte("package b // formatted otherwise\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sumsPath := filepath.Join(filepath.Dir(out), sumsFile)
	s := readSums(sumsPath, "1")
	s["b/b.go"] = fileSum{In: s["b/b.go"].In, Out: hash([]byte("package b // formatted otherwise\n"))}
	if err := (&sums{Version: "1", Files: s}).write(sumsPath); err != nil {
		t.Fatal(err)
	}
	check("another version", write(out, code("pmmB"), "2"), fresh(code("pmmB"), "2"))
}

// TestHelperTextImportsWhatItUses: the helpers import only the packages
// their declarations name. An import name may have been given for a
// user's file alone (the type arguments of a generic call its wrapper
// does not name), and an unused import does not compile.
func TestHelperTextImportsWhatItUses(t *testing.T) {
	h := &instrument.Helpers{Source: "a.go", Package: "a",
		Imports: map[string]string{"example.com/m/internal/_pmmrt": "pmm__rt", "io": "pmm__i1", "net/http": "pmm__i2"},
		Decls:   []string{"var pmm__cell1 = pmm__rt.NewCell(nil, 2)", "func pmm__call1(f func(pmm__i1.Reader)) {}"}}
	got := string(helperText(h, []byte("package a\n")))
	if !strings.Contains(got, `pmm__rt "example.com/m/internal/_pmmrt"`) || !strings.Contains(got, `pmm__i1 "io"`) {
		t.Errorf("the helpers do not import what they use:\n%s", got)
	}
	if strings.Contains(got, "net/http") {
		t.Errorf("the helpers import net/http, which they do not use:\n%s", got)
	}
	if _, err := format.Source([]byte(got)); err != nil {
		t.Errorf("%v:\n%s", err, got)
	}
}
