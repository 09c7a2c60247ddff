package dataflow

import (
	"context"
	"crypto/sha256"
	"fmt"
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"pmm.dev/pmm/instrument"
	"pmm.dev/pmm/internal/stagetest"
	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/rewrite"
	"pmm.dev/pmm/rt"
	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/sites"
	"pmm.dev/pmm/spec"
)

// outputs are the outputs of the stages run so far, each with the
// snapshot taken when its stage produced it.
type outputs struct {
	names []string
	take  []func() string // a snapshot of the output now
	want  []string
}

// add records the output of a stage just run.
func (o *outputs) add(name string, take func() string) {
	o.names = append(o.names, name)
	o.take = append(o.take, take)
	o.want = append(o.want, take())
}

// changed returns the outputs that differ from their snapshots, each
// with its first difference, after stage ran; a change is reported once.
func (o *outputs) changed(stage string) []string {
	var out []string
	for i, name := range o.names {
		if got := o.take[i](); got != o.want[i] {
			out = append(out, fmt.Sprintf("%s changed %s:\n%s", stage, name, firstDifference(o.want[i], got)))
			o.want[i] = got
		}
	}
	return out
}

// mode is how pmm instrument plans: --mode static approximates, runtime
// filters, combined does both.
type mode struct{ approximate, filters bool }

// run is one program run through the stages in mode m, with the outputs
// of each stage.
type run struct {
	prog *spec.Program
	sel  *sites.Selection
	sch  *schema.Schema
	plan *plan.Plan
	code *instrument.Code
	outputs
}

// runStages runs the stages of pmm instrument on the module in dir, as
// cmd/pmm's instrumentModule does, and fails t where a stage changes the
// output of an earlier one (or the module's files).
func runStages(t *testing.T, dir string, m mode) *run {
	t.Helper()
	r := &run{}
	check := func(stage string) {
		t.Helper()
		for _, c := range r.changed(stage) {
			t.Error(c)
		}
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.add("the module's files", func() string { return treeDigest(t, root) })
	r.prog = stagetest.CompileFile(t, filepath.Join(dir, "questions.pmm"))
	r.add("spec.Program", func() string { return snapshot(r.prog) })
	res, db := stagetest.StaticDB(t, dir)
	check("static.Build")
	r.add("static.Result", func() string { return snapshot(res) })
	r.add("static.db", func() string { return fileDigest(t, res.Path) })
	r.sel, err = sites.SelectWith(context.Background(), db, r.prog, sites.Options{Approximate: m.approximate})
	if err != nil {
		t.Fatal(err)
	}
	check("sites.SelectWith")
	r.add("sites.Selection", func() string { return snapshot(r.sel) })
	r.sch, err = schema.Generate(r.prog)
	if err != nil {
		t.Fatal(err)
	}
	check("schema.Generate")
	r.add("schema.Schema", func() string { return snapshot(r.sch) })
	r.plan, err = plan.Build(r.prog, r.sel, r.sch, plan.Options{Filters: m.filters})
	if err != nil {
		t.Fatal(err)
	}
	check("plan.Build")
	built := r.plan
	r.add("plan.Plan", func() string { return snapshot(built) })
	pkgs := sitePackages(t, res.Root, r.plan)
	check("loading the site packages")
	r.add("the site packages' syntax", func() string { return syntaxOf(t, pkgs) })
	const rtDir = "internal/_pmmrt"
	for pass := 1; ; pass++ {
		r.code, err = instrument.Generate(r.plan, pkgs, res.Root, res.ModulePath+"/"+rtDir, instrument.Options{})
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("instrument.Generate (pass %d)", pass))
		if len(r.code.Off) == 0 {
			break
		}
		r.plan = r.plan.Without(r.code.Off...)
		check("plan.Without")
		without := r.plan
		r.add(fmt.Sprintf("plan.Plan without the tests pass %d could not take part in", pass), func() string { return snapshot(without) })
	}
	code := r.code
	r.add("instrument.Code", func() string { return snapshot(code) })
	out := t.TempDir()
	written, err := rewrite.Write(rewrite.Config{
		Root: res.Root, OutDir: filepath.Join(out, "overlay"), Code: r.code,
		Runtime: rt.Sources(rt.Config{
			ImportPath: res.ModulePath + "/" + rtDir, Dir: out, Sites: r.plan.NumSiteIDs(), Bases: r.code.SiteBases,
			Outside: len(r.plan.OutsideQuestions()) > 0, Module: res.ModulePath,
		}),
		RuntimeDir: rtDir,
	})
	if err != nil {
		t.Fatal(err)
	}
	check("rewrite.Write")
	r.add("rewrite.Result", func() string { return snapshot(written) })
	pr := r.plan.Project(r.prog, r.sch, r.code.Skipped, r.code.Inexact)
	check("plan.Project")
	if err := pr.Write(filepath.Join(out, "plan.json")); err != nil {
		t.Fatal(err)
	}
	check("plan.Project.Write")
	return r
}

// programs are the test programs the stages run on: every program of
// testdata/ with questions (those of testdata/semantics, which
// instrument every function, are cmd/pmm's TestSemantics').
func programs(t *testing.T) []string {
	dirs, err := filepath.Glob("../../testdata/*/questions.pmm")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found %d test programs, want those of testdata/", len(dirs))
	}
	for i, d := range dirs {
		dirs[i] = filepath.Dir(d)
	}
	return dirs
}

// TestNoStageChangesAnEarlierOutput runs the stages on every test
// program in the combined mode (static approximation and run-time
// filters: the most planning) and, with -short excepted, in the
// straightforward mode (every site, no filter), and checks after each
// stage that no earlier output changed.
func TestNoStageChangesAnEarlierOutput(t *testing.T) {
	modes := map[string]mode{"combined": {true, true}, "straightforward": {false, false}}
	for _, dir := range programs(t) {
		for name, m := range modes {
			if testing.Short() && name != "combined" {
				continue
			}
			t.Run(filepath.Base(dir)+"/"+name, func(t *testing.T) {
				runStages(t, dir, m)
			})
		}
	}
}

// TestChangesAreSeen checks that the snapshots see what a later stage
// could change: a field deep in a site of the plan (also seen through
// the code's pointer to it), a term of the program (also in the
// unexported field where the selection keeps its atoms), a row of the
// vocabulary, a selected site and an edit of the code. Each change is
// undone, and then no output differs from its snapshot.
func TestChangesAreSeen(t *testing.T) {
	r := runStages(t, "../../testdata/fig41", mode{true, true})
	if t.Failed() {
		return
	}
	tests := []struct {
		name   string
		change func() (undo func())
		want   []string // the outputs that must be seen changed
	}{
		{"a target's site number", func() func() {
			tg := r.plan.Sites[len(r.plan.Sites)-1].Targets[0]
			tg.SiteID++
			return func() { tg.SiteID-- }
		}, []string{"plan.Plan", "instrument.Code"}},
		{"an atom's argument in the program", func() func() {
			a := r.prog.Questions[0].Disjuncts[0].Atoms[0]
			old := a.Args[0]
			a.Args[0].Var += "'"
			return func() { a.Args[0] = old }
		}, []string{"spec.Program", "sites.Selection"}}, // the selection keeps the atoms of each variable
		{"a vocabulary row", func() func() {
			row := spec.Lookup("duration")
			old := row.Doc
			row.Doc += "."
			return func() { row.Doc = old }
		}, []string{"spec.Program"}},
		{"a selected site", func() func() {
			v := r.sel.Questions[0].Disjuncts[0].Vars[0]
			old := v.Sites
			v.Sites = v.Sites[:len(v.Sites)-1]
			return func() { v.Sites = old }
		}, []string{"sites.Selection"}},
		{"an edit of the code", func() func() {
			for _, edits := range r.code.Files {
				old := edits[0].Text
				edits[0].Text += " "
				return func() { edits[0].Text = old }
			}
			t.Fatal("the code has no edits")
			return nil
		}, []string{"instrument.Code"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			undo := tt.change()
			seen := r.changed("the change")
			undo()
			if again := r.changed("the undo"); len(again) != len(seen) {
				t.Errorf("undoing the change left %d outputs changed:\n%s", len(again)-len(seen), strings.Join(again, "\n"))
			}
			for _, w := range tt.want {
				found := false
				for _, s := range seen {
					found = found || strings.HasPrefix(s, "the change changed "+w+":")
				}
				if !found {
					t.Errorf("the change of %s was not seen in %s; seen:\n%s", tt.name, w, strings.Join(seen, "\n"))
				}
			}
		})
	}
}

// sitePackages loads the packages of p's sites, with syntax and types,
// as cmd/pmm's loadSitePackages does (their tests too when a site is in
// a test file).
func sitePackages(t *testing.T, root string, p *plan.Plan) []*packages.Package {
	t.Helper()
	var patterns []string
	tests := false
	for _, s := range p.Sites {
		if filepath.IsAbs(s.File) {
			continue // code that cgo generated
		}
		if d := "./" + filepath.ToSlash(filepath.Dir(s.File)); !slices.Contains(patterns, d) {
			patterns = append(patterns, d)
		}
		tests = tests || strings.HasSuffix(s.File, "_test.go")
	}
	if len(patterns) == 0 {
		return nil
	}
	pkgs, err := packages.Load(&packages.Config{Dir: root, Tests: tests, Mode: packages.NeedName | packages.NeedFiles |
		packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports}, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// treeDigest is a digest of the files under root, names and contents.
func treeDigest(t *testing.T, root string) string {
	h := sha256.New()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", path, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// fileDigest is a digest of the file at path.
func fileDigest(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))
}

// syntaxOf prints the syntax trees of pkgs: code generation reads them
// (and their types, which it cannot change without changing them).
func syntaxOf(t *testing.T, pkgs []*packages.Package) string {
	var b strings.Builder
	for _, p := range pkgs {
		for i, f := range p.Syntax {
			fmt.Fprintf(&b, "== %s %s\n", p.ID, p.CompiledGoFiles[i])
			if err := format.Node(&b, p.Fset, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.String()
}
