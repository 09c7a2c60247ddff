package rewrite

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"
	"testing"

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
