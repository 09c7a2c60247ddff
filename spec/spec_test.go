package spec

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "pmm.dev/pmm/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// golden compares got with the golden file, or rewrites it with -update.
func golden(t *testing.T, path, got string) { goldenfile.Check(t, path, got, *update) }

func compileFile(t *testing.T, path string) (*Program, error) {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Compile(Source{Name: filepath.ToSlash(path), Text: text})
}

// TestFigure42 is the seed's example: Figure 4.2 on the Figure 4.1 program.
func TestFigure42(t *testing.T) {
	prog, err := compileFile(t, "../testdata/fig41/questions.pmm")
	if err != nil {
		t.Fatalf("Figure 4.2 does not check:\n%s", err.(ErrorList).Detail())
	}
	golden(t, "testdata/fig42.golden", prog.String())

	// The seed's expected conjunction (4.2.4), independently of printing:
	// one disjunct binding f, FOO, BAR, p and the event z, the three
	// function executions, the parameter test and the two calls.
	if len(prog.Questions) != 1 {
		t.Fatalf("got %d questions, want 1", len(prog.Questions))
	}
	q := prog.Questions[0]
	if q.Name != "monitor-fns-dura-params" || strings.Join(q.Head, " ") != "x y" {
		t.Errorf("question %s (%v), want monitor-fns-dura-params (x y)", q.Name, q.Head)
	}
	if len(q.Disjuncts) != 1 {
		t.Fatalf("got %d disjuncts, want 1", len(q.Disjuncts))
	}
	c := q.Disjuncts[0]
	count := map[string]int{}
	for _, a := range c.Atoms {
		count[a.Pred()]++
	}
	want := map[string]int{"function-execution": 3, "parameter": 1, "calls": 2, "duration": 1, "parameters": 1}
	for p, n := range want {
		if count[p] != n {
			t.Errorf("%d atoms of %s, want %d", count[p], p, n)
		}
	}
	if len(c.Not) != 1 || len(c.Not[0].Atoms) != 1 || c.Not[0].Atoms[0].String() != "(= p 0)" {
		t.Errorf("negated part %v, want (not (= p 0))", c.Not)
	}
	if got := strings.Join(c.FreeVars(), " "); got != "x y" {
		t.Errorf("free variables %q, want the head \"x y\"", got)
	}
}

// TestAccepted checks and normalizes the programs in testdata/ok.
func TestAccepted(t *testing.T) {
	files, _ := filepath.Glob("testdata/ok/*.pmm")
	if len(files) == 0 {
		t.Fatal("no test programs")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			prog, err := compileFile(t, f)
			if err != nil {
				t.Fatalf("rejected:\n%s", err.(ErrorList).Detail())
			}
			golden(t, strings.TrimSuffix(f, ".pmm")+".golden", prog.String())
			roundTrip(t, prog)
		})
	}
}

// TestRejected checks that each program in testdata/errors is rejected
// with the messages of its golden file.
func TestRejected(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.pmm")
	if len(files) == 0 {
		t.Fatal("no test programs")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := compileFile(t, f)
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("accepted, or failed without an ErrorList: %v", err)
			}
			for _, e := range list {
				if !e.Pos.IsValid() || e.Hint == "" {
					t.Errorf("error without position or hint: %s", e.Detail())
				}
			}
			golden(t, strings.TrimSuffix(f, ".pmm")+".err", list.Detail())
		})
	}
}

// roundTrip checks that the printed IR compiles back to the same IR.
func roundTrip(t *testing.T, prog *Program) {
	t.Helper()
	printed := prog.String()
	again, err := Compile(Source{Name: "printed.pmm", Text: []byte(printed)})
	if err != nil {
		t.Fatalf("printed IR does not compile:\n%s\n%s", printed, err)
	}
	if got := again.String(); got != printed {
		t.Fatalf("printed IR compiles to another IR:\n--- first ---\n%s\n--- again ---\n%s", printed, got)
	}
}

func TestSuchThatSpellings(t *testing.T) {
	for _, st := range []string{"s.t.", "suchthat", "|", "S.T.", "SuchThat"} {
		src := `(DefQuestion q :Definition ((x) ` + st + ` (Function-Execution x 'main.F)))`
		prog, err := Compile(Source{Name: "st.pmm", Text: []byte(src)})
		if err != nil {
			t.Errorf("%s: %v", st, err)
			continue
		}
		if got := prog.Questions[0].Disjuncts[0].Atoms[0].String(); got != `(function-execution x "main.F")` {
			t.Errorf("%s: atom %s", st, got)
		}
	}
}

func TestLiterals(t *testing.T) {
	src := `(defquestion q :definition ((x v) s.t. (and (function-execution x "main.F")
		(parameter x 1 v)
		(or (= v 42) (= v -7) (= v 0x10) (= v 1.5) (= v 2e3) (= v "a\tb\u00e9") (= v 'Sym) (= v true) (= v false) (= v nil)))))`
	prog, err := Compile(Source{Name: "lit.pmm", Text: []byte(src)})
	if err != nil {
		t.Fatal(err.(ErrorList).Detail())
	}
	var got []string
	for _, c := range prog.Questions[0].Disjuncts {
		got = append(got, c.Atoms[2].Args[1].String())
	}
	want := []string{"42", "-7", "16", "1.5", "2000.0", `"a\tbé"`, `"Sym"`, "true", "false", "nil"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("literals %v, want %v", got, want)
	}
	roundTrip(t, prog)
}

// TestListLiterals reads quoted lists: their elements, nested lists,
// bare symbols as strings, their printed form (which reads back) and
// their canonical text, the JSON that pmm stores lists as.
func TestListLiterals(t *testing.T) {
	src := `(defquestion q :definition ((x v) s.t. (and (function-execution x "main.F")
		(return-values x v)
		(or (= v '(3 1)) (= v '()) (= v '(1 "a\"b" (2 true) nil 1.5 2e3 sym 'Q)) (= v '(-7))))))`
	prog, err := Compile(Source{Name: "list.pmm", Text: []byte(src)})
	if err != nil {
		t.Fatal(err.(ErrorList).Detail())
	}
	var printed, text []string
	for _, c := range prog.Questions[0].Disjuncts {
		l := c.Atoms[2].Args[1].Lit
		if l == nil || l.Kind != LitList {
			t.Fatalf("%s: not a list literal", c.Atoms[2])
		}
		printed = append(printed, l.String())
		text = append(text, l.ListText())
	}
	wantPrinted := []string{`'(3 1)`, `'()`, `'(1 "a\"b" (2 true) nil 1.5 2000.0 "sym" "Q")`, `'(-7)`}
	wantText := []string{`[3,1]`, `[]`, `[1,"a\"b",[2,true],null,1.5,2000,"sym","Q"]`, `[-7]`}
	if strings.Join(printed, " ") != strings.Join(wantPrinted, " ") {
		t.Errorf("printed %v, want %v", printed, wantPrinted)
	}
	if strings.Join(text, " ") != strings.Join(wantText, " ") {
		t.Errorf("canonical text %v, want %v", text, wantText)
	}
	roundTrip(t, prog)

	// A list is a value: not a function name, a position or an event,
	// nor the value of an attribute that is never a list.
	for _, bad := range []struct{ src, err string }{
		{`(defquestion q :definition ((x) s.t. (function-execution x '(1))))`, "is a function name, found '(1)"},
		{`(defquestion q :definition ((x v) s.t. (and (function-execution x "main.F") (parameter x '(1) v))))`, "is a position, an integer literal ≥ 1, found '(1)"},
		{`(defquestion q :definition ((v) s.t. (parameters '(1 2) v)))`, "is an event variable, found the literal '(1 2)"},
		{`(defquestion q :definition ((x) s.t. (and (function-execution x "main.F") (goroutine x '(1)))))`, "never a list, found '(1)"},
	} {
		_, err := Compile(Source{Name: "bad.pmm", Text: []byte(bad.src)})
		if err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("%s: error %v, want one saying %q", bad.src, err, bad.err)
		}
	}
}

func TestClosest(t *testing.T) {
	names := primitiveNames()
	for _, c := range []struct{ in, want string }{
		{"funtion-execution", "function-execution"},
		{"duraton", "duration"},
		{"call", "calls"},
		{"Parameters", "parameters"},
		{"xyzzy", ""},
	} {
		if got := Closest(c.in, names); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestTemporalGraph checks the event dependency graph of Figure 4.2
// against seed Figure 5.1: fb → FOOb, fb → BARb, FOOb → FOOe, BARb → BARe,
// FOOe → fe, BARe → fe (plus fb → fe, which the seed leaves implicit).
func TestTemporalGraph(t *testing.T) {
	prog, err := compileFile(t, "../testdata/fig41/questions.pmm")
	if err != nil {
		t.Fatal(err)
	}
	c := prog.Questions[0].Disjuncts[0]
	types, ok := c.Types(nil)
	if !ok {
		t.Fatal("types do not agree")
	}
	g := BuildTemporalGraph(c, types)
	edges := map[string]bool{}
	for _, e := range g.Edges {
		edges[e.From.String()+" -> "+e.To.String()] = true
	}
	for _, want := range []string{
		"z begins -> foo begins", "z begins -> bar begins",
		"foo begins -> foo ends", "bar begins -> bar ends",
		"foo ends -> z ends", "bar ends -> z ends", "z begins -> z ends",
	} {
		if !edges[want] {
			t.Errorf("missing edge %s; edges: %v", want, edges)
		}
	}
	if len(edges) != 7 {
		t.Errorf("%d edges, want 7: %v", len(edges), edges)
	}
	if cyc := g.Cycle(); cyc != nil {
		t.Errorf("unexpected cycle %v", cyc)
	}
}
