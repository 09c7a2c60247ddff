package spec

import (
	"os"
	"sort"
	"strings"
	"testing"
)

// TestLanguageDocCoversVocabulary keeps docs/LANGUAGE.md in step with the
// vocabulary table: every primitive has a row with its example.
func TestLanguageDocCoversVocabulary(t *testing.T) {
	doc, err := os.ReadFile("../docs/LANGUAGE.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Vocabulary() {
		row := "| `" + p.Name + "` |"
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/LANGUAGE.md has no row %s", row)
		}
		if !strings.Contains(string(doc), "`"+p.Example+"`") {
			t.Errorf("docs/LANGUAGE.md lacks the example of %s: %s", p.Name, p.Example)
		}
	}
}

// TestVocabularyIsWellFormed checks the table itself: every example is a
// well-formed use of its primitive, temporal edges name real arguments,
// and events have sites.
func TestVocabularyIsWellFormed(t *testing.T) {
	tables := map[string]string{} // the event type of each Table
	for _, p := range Vocabulary() {
		if Lookup(strings.ToUpper(p.Name)) != p {
			t.Errorf("Lookup(%q) is not case-insensitive", p.Name)
		}
		inString := false // a string literal's spaces separate no arguments
		parts := strings.FieldsFunc(strings.Trim(p.Example, "()"), func(r rune) bool {
			if r == '"' {
				inString = !inString
			}
			return r == ' ' && !inString
		})
		if parts[0] != p.Name || len(parts)-1 != p.Arity() {
			t.Errorf("%s: example %s does not apply it to %d arguments", p.Name, p.Example, p.Arity())
		}
		for _, e := range p.Temporal {
			for _, ref := range []PointRef{e.From, e.To} {
				if ref.Arg >= p.Arity() || p.Args[ref.Arg].Kind != ArgEvent {
					t.Errorf("%s: temporal edge names argument %d, which is not an event", p.Name, ref.Arg)
				}
			}
		}
		if p.Definition != "" {
			definedByRecordedRows(t, p)
			continue
		}
		if p.Kind == IntervalEvent && len(p.Sites) == 0 {
			t.Errorf("%s: an interval event with no sites", p.Name)
		}
		if p.IsEvent() && len(p.Sites) > 0 && p.Table == "" {
			t.Errorf("%s: an event type that sites record has no Table to store its events in", p.Name)
		}
		if p.Table != "" {
			if !p.IsEvent() || len(p.Sites) == 0 {
				t.Errorf("%s: a Table of events for a row that is not an event type sites record", p.Name)
			}
			if tables[p.Table] != "" {
				t.Errorf("%s: its Table %q is %s's too", p.Name, p.Table, tables[p.Table])
			}
			tables[p.Table] = p.Name
			for _, k := range p.Sites {
				if RecordedAt(k) != p {
					t.Errorf("%s: its sites of kind %s record %s", p.Name, k, RecordedAt(k).Name)
				}
			}
		}
		if p.Kind == Attribute && p.Static != "" {
			t.Errorf("%s: attributes have no static approximation (seed 4.2.3)", p.Name)
		}
	}
}

// definedByRecordedRows checks the definition of a row that others
// define: it has the row's arguments, and names only rows that have no
// definition of their own (so that one expansion leaves none).
func definedByRecordedRows(t *testing.T, p *Primitive) {
	t.Helper()
	d := definedRows()[p.Name]
	if d == nil || len(d.Head) != p.Arity() {
		t.Errorf("%s: its definition does not have its %d arguments", p.Name, p.Arity())
		return
	}
	walk(d.Body, func(f Formula) {
		if a, ok := f.(*AtomF); ok {
			if q := Lookup(a.Pred); q == nil || q.Definition != "" {
				t.Errorf("%s: its definition names %s, which is not a row without a definition", p.Name, a.Pred)
			}
		}
	})
	if len(p.Sites) != 0 || p.Static != "" || len(p.Temporal) != 0 {
		t.Errorf("%s: a defined row has no sites, static approximation or temporal edges of its own: its definition's rows do", p.Name)
	}
}

// TestRelationShapes pins which rows of today have each shape that the
// run-time analyses recognize by columns (Temporal, Lexical, Stored): a
// new row with a shape gets those analyses, and this test says so.
func TestRelationShapes(t *testing.T) {
	shapes := map[string]func(*Primitive) bool{
		"Nests":      (*Primitive).Nests,
		"Calls":      (*Primitive).Calls,
		"Transitive": (*Primitive).Transitive,
		"EndsBefore": (*Primitive).EndsBefore,
		"Go":         func(p *Primitive) bool { return p.Stored != nil && p.Stored.Go },
	}
	want := map[string]string{
		"Nests":      "calls calls* contains",
		"Calls":      "calls calls*",
		"Transitive": "calls*",
		"EndsBefore": "before",
		"Go":         "spawns",
	}
	for name, shape := range shapes {
		var got []string
		for _, p := range Vocabulary() {
			if p.Kind == ControlRelation && shape(p) {
				got = append(got, p.Name)
			}
		}
		sort.Strings(got)
		if strings.Join(got, " ") != want[name] {
			t.Errorf("%s: %v, want %s", name, got, want[name])
		}
	}
}
