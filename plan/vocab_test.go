package plan

import (
	"slices"
	"strings"
	"testing"

	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/spec"
)

// TestVocabularyRowsReachEveryStage checks that every row of the
// vocabulary that the stages after normalization meet has what each of
// them reads: the schema stores and translates it, the IGM says what a
// site emits for each relation it stores, and its captures have a
// meaning here (package instrument checks that each has its Go). Rows
// with a Definition are expanded by normalization and never reach them;
// aggregate relations are not rows of the table.
func TestVocabularyRowsReachEveryStage(t *testing.T) {
	for _, p := range spec.Vocabulary() {
		if p.Definition != "" {
			continue
		}
		switch p.Kind {
		case spec.IntervalEvent:
			if len(p.Sites) == 0 {
				t.Errorf("%s: no kinds of sites record it (Sites)", p.Name)
			}
			continue
		case spec.PointEvent, spec.ValueRelation:
			continue // points are (execution, end); comparisons read columns
		case spec.Attribute:
			if p.Recorded == nil {
				t.Errorf("%s: no Recorded: no stage knows what a site takes for it", p.Name)
				continue
			}
			for _, c := range []string{p.Recorded.Capture, p.Recorded.FinishCapture} {
				if _, ok := captureMeanings[Capture(c)]; !ok && c != "" {
					t.Errorf("%s: capture %q has no meaning (captureMeanings)", p.Name, c)
				}
			}
			if p.Recorded.Capture == "" {
				t.Errorf("%s: Recorded names no capture", p.Name)
			}
			for _, s := range p.Sites {
				if !slices.Contains(spec.Lookup(spec.TypeFunctionExecution).Sites, s) {
					t.Errorf("%s: recorded at %s sites, where no event is", p.Name, s)
				}
			}
		case spec.ControlRelation:
			if p.Stored == nil {
				t.Errorf("%s: no Stored: the schema cannot store or derive it", p.Name)
				continue
			}
			if p.Lexical != (p.Stored.Pair != [2]string{}) {
				t.Errorf("%s: a relation recorded at the site of its second event (Lexical) is stored as a pair, and only it", p.Name)
			}
		default:
			t.Errorf("%s: a row of kind %s in the table", p.Name, p.Kind)
			continue
		}
		tables, err := schema.StoredRelations(p)
		if err != nil || len(tables) == 0 {
			t.Errorf("%s: no stored relation (%v)", p.Name, err)
			continue
		}
		for _, table := range tables {
			for end := PointBegin; end <= PointEnd; end++ {
				if _, ok := igmFields(need{prim: table, end: end}); !ok {
					t.Errorf("%s: no IGM row for its stored relation %s", p.Name, table)
				}
			}
		}
		// The schema translates a question that uses it.
		if _, err := schema.Generate(compileUse(t, p)); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
}

// compileUse compiles a question that uses p once, on executions (or
// their begin points) of main.F and main.G.
func compileUse(t *testing.T, p *spec.Primitive) *spec.Program {
	t.Helper()
	events := []string{"x", "y"}
	terms := []string{p.Name}
	head := []string{"x", "y", "px", "py"}
	var decls []string // of events of a region of a body
	for i, a := range p.Args {
		switch a.Kind {
		case spec.ArgEvent:
			v := events[0]
			events = events[1:]
			switch {
			case slices.Contains(a.Events, spec.TypeFunctionExecution):
			case slices.Contains(a.Events, spec.TypePoint):
				v = "p" + v
			default:
				v = "r" + v
				// Its declaration: the event, a function name, then
				// texts (a label, a kind, an operand).
				decl := []string{a.Events[0], v, `"main.F"`}
				for range spec.Lookup(a.Events[0]).Args[2:] {
					decl = append(decl, `"l"`)
				}
				decls = append(decls, "("+strings.Join(decl, " ")+")")
				head = append(head, v)
			}
			terms = append(terms, v)
		case spec.ArgPosition:
			terms = append(terms, "1")
		case spec.ArgGoExpr:
			terms = append(terms, `"len(s)"`)
		case spec.ArgAccounts:
			terms = append(terms, `"example.com/m/a example.com/m/b/..."`)
		case spec.ArgTypeName:
			terms = append(terms, `"main.T"`)
		default:
			v := "v" + string(rune('0'+i))
			terms = append(terms, v)
			head = append(head, v)
		}
	}
	text := `(defquestion use :definition ((` + strings.Join(head, " ") + `) s.t. (and
  (function-execution x "main.F") (function-execution y "main.G") (begin px x) (begin py y) ` + strings.Join(decls, " ") + `
  (` + strings.Join(terms, " ") + `))))`
	prog, err := spec.Compile(spec.Source{Name: "use.pmm", Text: []byte(text)})
	if err != nil {
		t.Fatalf("%s: %v\n%s", p.Name, err, text)
	}
	return prog
}
