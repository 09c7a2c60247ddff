package spec

import (
	"go/ast"
	goparser "go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// namesOutsideSpec are the string literals outside spec that equal the
// name of a primitive and are not one: "file: literal" → what the text
// is there. Every other stage reads a primitive's columns, or names it
// through an identifier of spec (TypeFunctionExecution, AttrGoroutine,
// Equality).
var namesOutsideSpec = map[string]string{
	"cmd/pmm/run.go: =":                   "the syntax of -tags=...",
	"cmd/pmm/pprof.go: duration":          "the type of a pprof sample's value, as go tool pprof shows it",
	"cmd/pmm/export.go: interval":         "the name of pmm export's flag -interval",
	"cmd/pmm/sites.go: calls":             "a table of static.db",
	"e2e/difftest/difftest.go: =":         "an environment variable's NAME=value",
	"instrument/callgen.go: before":       "the name of a generated helper",
	"instrument/defgen.go: begin":         "the name of a generated helper",
	"instrument/sitegen.go: parameter":    "the wording of an error",
	"internal/reftrace/trace.go: begin":   "a kind of trace record",
	"internal/reftrace/trace.go: end":     "a kind of trace record",
	"internal/reftrace/trace.go: blocked": "a kind of trace record",
	"instrument/captures.go: end":         "a field of the generated state",
	"plan/igm.go: panicked":               "the capture the row's Recorded.Capture names",
	"plan/igm.go: end":                    "the stored relation of end sequence numbers (Storage.Derived), and its capture",
	"plan/plan.go: end":                   "the stored relation of end sequence numbers (Storage.Derived)",
	"schema/layout.go: end":               "the stored relation of end sequence numbers (Storage.Derived)",
	"schema/layout.go: point":             "the column that says which point of an execution a tuple is of",
	"schema/translate.go: point":          "the column that says which point of an execution a tuple is of",
	"schema/translate.go: =":              "the text of a join's key, column=value",
	"static/textmethods.go: time":         "the import path of Go's package time",
}

// namesOutsideSpecPackages are the packages that write PMM as its users
// do, and may name every primitive: the reference semantics answers
// questions from their text, independently of the columns the stages
// read (that independence is what it checks), and progen writes the
// questions it generates.
var namesOutsideSpecPackages = []string{"internal/refeval", "internal/progen"}

// TestOnlySpecNamesPrimitives checks that no Go file outside spec (tests
// and the packages above excepted) has a string literal that names a
// primitive of the vocabulary: a stage that switches on a primitive's
// name instead of reading its row fails when a primitive is added or
// renamed, silently.
func TestOnlySpecNamesPrimitives(t *testing.T) {
	names := map[string]bool{}
	for _, p := range vocabulary {
		names[p.Name] = true
	}
	found := map[string][]string{} // "file: literal" → positions
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(must(filepath.Rel(root, path)))
		if d.IsDir() {
			if rel == "spec" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." || slices.Contains(namesOutsideSpecPackages, rel) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := goparser.ParseFile(fset, path, nil, goparser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ImportSpec:
				return false // "time" is a package
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && names[s] {
					key := rel + ": " + s
					found[key] = append(found[key], fset.Position(n.Pos()).String())
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range found {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := namesOutsideSpec[k]; !ok {
			t.Errorf("%s: a primitive named outside spec: read its row's columns instead (or, if the text is not the primitive, say what it is in namesOutsideSpec)", strings.Join(found[k], ", "))
		}
	}
	for k := range namesOutsideSpec {
		if found[k] == nil {
			t.Errorf("namesOutsideSpec lists %q, which no file has any more: remove it", k)
		}
	}
	if len(found) < 3 {
		t.Errorf("found %d names outside spec: is the walk reading the module? (%v)", len(found), keys)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestComparisonsSayHowToWriteThem checks that every value relation has
// its operators (the stages read them rather than switch on its name),
// and that exactly one binds: the equality the stages make (Equality).
func TestComparisonsSayHowToWriteThem(t *testing.T) {
	binds := 0
	for _, p := range vocabulary {
		if p.Kind != ValueRelation {
			if p.Compares != nil {
				t.Errorf("%s is not a value relation, and has Compares", p.Name)
			}
			continue
		}
		if c := p.Compares; c == nil || c.Go == "" || c.SQL == "" {
			t.Errorf("value relation %s lacks its Go or SQL operator", p.Name)
		} else if c.Binds {
			binds++
			if p != Equality() {
				t.Errorf("%s binds, and is not Equality()", p.Name)
			}
		}
	}
	if binds != 1 || !Equality().Compares.Binds {
		t.Errorf("%d value relations bind; want one, Equality()", binds)
	}
}
