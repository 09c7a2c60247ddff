package plan

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/stagetest"
	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/spec"
)

// TestPairs checks which inter-event tests run time decides: equal
// values of two direct callees of one caller, the earlier before the
// later, as a second binding of a variable or as (= a b).
func TestPairs(t *testing.T) {
	const head = `(defquestion q :definition ((g2) s.t. (exists (f g1 a b) (and
  (function-execution f "main.F") (function-execution g1 "main.G") (function-execution g2 "main.G")
  (calls f g1) (calls f g2) `
	for _, c := range []struct{ name, atoms, want string }{
		{"cache", `(before g1 g2) (parameters g1 a) (parameters g2 a)`, "f: g1 [{params 0 }] before g2 [{params 0 }]"},
		{"equal", `(before g1 g2) (parameter g1 1 a) (return-value g2 1 b) (= a b)`, "f: g1 [{param 1 }] before g2 [{result 1 }]"},
		{"two values", `(before g1 g2) (parameter g1 1 a) (parameter g2 1 a) (duration g1 b) (duration g2 b)`,
			"f: g1 [{param 1 } {d 0 }] before g2 [{param 1 } {d 0 }]"},
		{"no order", `(parameters g1 a) (parameters g2 a)`, ""},
		{"not equal", `(before g1 g2) (parameter g1 1 a) (parameter g2 1 b) (< a b)`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := stagetest.Compile(t, "q.pmm", head+c.atoms+"))))")
			var got []string
			root := prog.Questions[0].Disjuncts[0]
			for _, p := range pairsOf(root, analyze(t, root)) {
				got = append(got, fmt.Sprintf("%s: %s %v before %s %v", p.Caller, p.Earlier, p.EarlierKey, p.Later, p.LaterKey))
			}
			if strings.Join(got, "; ") != c.want {
				t.Errorf("pairs %q, want %q", got, c.want)
			}
		})
	}
}

// TestAbsences checks which negated parts run time decides exactly: a
// callee (direct, or through calls*) whose tests read only its own values.
func TestAbsences(t *testing.T) {
	const head = `(defquestion q :definition ((f) s.t. (exists (p) (and (function-execution f "main.F") (parameter f 1 p)
  (not (exists (g q) (and `
	for _, c := range []struct{ name, atoms, want string }{
		{"named and tested", `(calls f g) (function-execution g "main.G") (parameter g 1 q) (< q 3)`, "f: g main.G [(< q 3)]"},
		{"a test at the end", `(calls f g) (function-execution g "main.G") (duration g q) (> q 10)`, "f: g main.G [(> q 10)]"},
		{"a join with the caller", `(calls f g) (function-execution g "main.G") (parameter g 1 q) (= q p)`, ""},
		{"an attribute not tested", `(calls f g) (function-execution g "main.G") (parameter g 1 q)`, ""},
		{"a join inside", `(calls f g) (function-execution g "main.G") (parameter g 1 q) (parameter g 2 q)`, ""},
		{"a second relation", `(calls f g) (function-execution g "main.G") (calls* g f) (parameter g 1 q) (= q 0)`, ""},
		{"inside, through calls*", `(calls* f g) (function-execution g "main.G") (parameter g 1 q) (= q 0)`, "f: g main.G [(= q 0)] calls*"},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := stagetest.Compile(t, "q.pmm", head+c.atoms+")))))))")
			var got []string
			for _, a := range absencesOf(prog.Questions[0].Disjuncts[0]) {
				var conds []string
				for _, c := range a.Conds {
					conds = append(conds, c.Atom.String())
				}
				link := ""
				if a.Dynamic {
					link = " calls*"
				}
				got = append(got, fmt.Sprintf("%s: %s %s %v%s", a.Caller, a.Var, a.Name, conds, link))
			}
			if strings.Join(got, "; ") != c.want {
				t.Errorf("absences %q, want %q", got, c.want)
			}
		})
	}
}

// TestRunAggregates checks which aggregate questions run time decides
// exactly, so that only cells are stored.
func TestRunAggregates(t *testing.T) {
	for _, c := range []struct{ name, questions, want string }{
		{"the cache", readQuestions(t, "../testdata/cache/questions.pmm"), "cacheable-count: g of f, group [] value <nil>; cacheable-time: g of f, group [] value {d 0 }"},
		{"grouped, no caller", readQuestions(t, "../testdata/e2e/questions.pmm"), "gets-per-key: x, group [{param 2 }] value <nil>; mean-get-per-key: x, group [{param 2 }] value {d 0 }"},
		{"any function calling the rule", readQuestions(t, "../testdata/calendar/questions.pmm"), "firing-updates: x, group [] value <nil>"},
		{"grouped by function", readQuestions(t, "../testdata/inits/questions.pmm"), "calls-per-function: x, group [{function 0 }] value <nil>"},
		{"calls*", `(defquestion q :definition ((l) s.t. (exists (s) (and (function-execution s "main.S") (function-execution l "main.L") (calls* s l)))))
(defquestion n :definition (count q (output)))`, ""},
		{"a constant attribute", `(defquestion q :definition ((l) s.t. (and (function-execution l "main.L") (parameter l 1 3))))
(defquestion n :definition (count q (output)))`, ""},
		{"two events in the head", `(defquestion q :definition ((f g) s.t. (and (function-execution f "main.F") (function-execution g "main.G") (calls f g))))
(defquestion n :definition (count q (output output)))`, ""},
		{"a value that must exist", `(defquestion q :definition ((f) s.t. (exists (v) (and (function-execution f "main.F") (parameter f 2 v)))))
(defquestion n :definition (count q (output)))`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := stagetest.Compile(t, "q.pmm", c.questions)
			sch, err := schema.Generate(prog)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range prog.Questions {
				if q.Aggregate == nil {
					continue
				}
				root := q.Disjuncts[0]
				a := analyze(t, root)
				pairs := pairsOf(root, a)
				if ra := runAggregateOf(q, root, a, pairs, absencesOf(root), sch); ra != nil {
					of := ""
					if ra.Caller != "" {
						of = " of " + ra.Caller
					}
					got = append(got, fmt.Sprintf("%s: %s%s, group %v value %v", q.Name, ra.Event, of, ra.Group, ra.Value))
				}
			}
			if strings.Join(got, "; ") != c.want {
				t.Errorf("run-time aggregates %q, want %q", got, c.want)
			}
		})
	}
}

// analyze is the temporal analysis of a disjunct.
func analyze(t *testing.T, root *spec.Conj) *Conj {
	t.Helper()
	a, err := Analyze(root)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func readQuestions(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCallerConds checks the tests a direct callee runs with its
// caller's values: a join on a parameter, a comparison, and none for a
// value the caller has only when it ends.
func TestCallerConds(t *testing.T) {
	const head = `(defquestion q :definition ((i) s.t. (exists (o p q) (and (function-execution o "main.Outer") (function-execution i "main.Inner") (calls o i) `
	for _, c := range []struct{ name, atoms, want string }{
		{"join", `(parameter o 1 p) (parameter i 1 p)`, "(= p' p) outer [p]"},
		{"comparison", `(parameter o 1 p) (parameter i 2 q) (< p q)`, "(< p q) outer [p]"},
		{"the caller's duration", `(duration o p) (parameter i 1 q) (< p q)`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := stagetest.Compile(t, "q.pmm", head+c.atoms+"))))")
			root := prog.Questions[0].Disjuncts[0]
			var got []string
			for _, cond := range callerConds("i", "o", root, analyze(t, root)) {
				var outer []string
				for v := range cond.Outer {
					outer = append(outer, v)
				}
				got = append(got, fmt.Sprintf("%s outer %v", cond.Atom, outer))
			}
			if strings.Join(got, "; ") != c.want {
				t.Errorf("conds %q, want %q", got, c.want)
			}
		})
	}
}
