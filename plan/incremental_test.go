package plan

import (
	"flag"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/golden"
	"pmm.dev/pmm/internal/stagetest"
	"pmm.dev/pmm/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func analyzeFile(t *testing.T, path string) string {
	t.Helper()
	prog := stagetest.CompileFile(t, path)
	var b strings.Builder
	for _, q := range prog.Questions {
		for i, c := range q.Disjuncts {
			a, err := Analyze(c)
			if err != nil {
				t.Fatalf("%s: %v", q.Name, err)
			}
			b.WriteString("question " + q.Name)
			if len(q.Disjuncts) > 1 {
				b.WriteString(" disjunct " + string(rune('1'+i)))
			}
			b.WriteString("\n  outermost: " + a.Outermost + "\n")
			for _, test := range a.Tests {
				b.WriteString("  " + test.String() + "\n")
			}
		}
	}
	return b.String()
}

// TestPlacement is a golden test of Algorithms 3 and 4 on the example
// questions: which interval is outermost, and where each condition is
// tested.
func TestPlacement(t *testing.T) {
	var b strings.Builder
	for _, f := range []string{"../testdata/fig41/questions.pmm", "../testdata/cache/questions.pmm", "../testdata/e2e/questions.pmm", "../spec/testdata/ok/goroutines.pmm"} {
		b.WriteString("== " + f + "\n" + analyzeFile(t, f))
	}
	got := b.String()
	golden.Check(t, "testdata/placement.golden", got, *update)
}

// TestUnorderedIsDeferred: two executions with no temporal relation whose
// parameters must be equal can only be joined when the answer is
// computed; a relation between them orders them and places the test at
// the later one.
func TestUnorderedIsDeferred(t *testing.T) {
	for _, c := range []struct {
		relation, want string
	}{
		{"", "(= a b) at answer time"},
		{"(before f g)", "(= a b) at g begins reading f begins"},
		{"(before g f)", "(= a b) at f begins reading g begins"},
	} {
		src := `(defquestion q :definition ((f g) s.t. (exists (a b) (and
			(function-execution f "main.F") (function-execution g "main.G")
			(parameter f 1 a) (parameter g 1 b) (= a b) ` + c.relation + `))))`
		prog, err := spec.Compile(spec.Source{Name: "q.pmm", Text: []byte(src)})
		if err != nil {
			t.Fatal(err)
		}
		a, err := Analyze(prog.Questions[0].Disjuncts[0])
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, test := range a.Tests {
			if test.Atom != nil && test.Atom.Pred() == "=" {
				got = append(got, test.String())
			}
		}
		if strings.Join(got, "; ") != c.want {
			t.Errorf("with %q: %v, want %s", c.relation, got, c.want)
		}
		if a.Outermost != "" {
			t.Errorf("with %q: outermost %s, want none", c.relation, a.Outermost)
		}
	}
}
