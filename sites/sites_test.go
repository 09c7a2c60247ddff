package sites

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"pmm.dev/pmm/internal/stagetest"
	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// selectIn builds the static database of the module in dir and selects
// the sites of the questions in its questions.pmm.
func selectIn(t *testing.T, dir string) *Selection {
	t.Helper()
	_, db := stagetest.StaticDB(t, dir)
	sel, err := Select(context.Background(), db, stagetest.CompileFile(t, filepath.Join(dir, "questions.pmm")))
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// describe lists the sites of variable v of question q as
// "kind function [in caller] file:line", sorted.
func describe(t *testing.T, sel *Selection, q, v string) []string {
	t.Helper()
	for _, qs := range sel.Questions {
		if qs.Name != q {
			continue
		}
		for _, vs := range qs.Disjuncts[0].Vars {
			if vs.Name != v {
				continue
			}
			var out []string
			for _, s := range vs.Sites {
				d := string(s.Kind) + " " + s.Function
				if s.Kind == spec.SiteCall {
					d += " in " + s.Caller
				}
				out = append(out, fmt.Sprintf("%s %s:%d", d, s.File, s.Line))
			}
			sort.Strings(out)
			return out
		}
		t.Fatalf("question %s has no variable %s", q, v)
	}
	t.Fatalf("no question %s", q)
	return nil
}

// TestFigure41 is the seed's example of 4.2.4: the sites of x, FOO and
// BAR are {definition of BOTH}, {call of FOO in BOTH}, {call of BAR in
// BOTH}; IR is eliminated.
func TestFigure41(t *testing.T) {
	sel := selectIn(t, "../testdata/fig41")
	for _, c := range []struct{ v, want string }{
		{"z", "definition main.BOTH main.go:9"},
		{"foo", "call main.FOO in main.BOTH main.go:12"},
		{"bar", "call main.BAR in main.BOTH main.go:14"},
	} {
		got := describe(t, sel, "monitor-fns-dura-params", c.v)
		if strings.Join(got, "; ") != c.want {
			t.Errorf("sites of %s: %v, want [%s]", c.v, got, c.want)
		}
	}
	for _, v := range sel.Questions[0].Disjuncts[0].Vars {
		for _, f := range v.Functions {
			if f.Name == "main.IR" {
				t.Errorf("main.IR was not eliminated for %s", v.Name)
			}
		}
	}
}

func TestSelection(t *testing.T) {
	sel := selectIn(t, "../testdata/sites")
	for _, c := range []struct {
		name, q, v string
		want       []string
	}{
		{"interface method, resolved by the call graph", "areas", "x", []string{
			"call main.(*Circle).Area in main.total main.go:36",
			"call main.Square.Area in main.total main.go:36",
		}},
		{"function value, resolved by the call graph", "applied", "x", []string{
			"call main.double in main.apply main.go:41",
			"call main.square in main.apply main.go:41",
		}},
		{"calls* through a chain of three and a method", "leaves-under-top", "l", []string{
			"call main.(*counter).leaf in main.bottom main.go:49",
		}},
		{"external function at its call sites only", "external", "r", []string{
			"call strings.Repeat in main.repeat main.go:64",
		}},
		{"external method at its call sites only", "external", "k", []string{
			"call sync.(*Mutex).Lock in main.locked main.go:59",
		}},
		{"function literal by its runtime name", "closure-and-generic", "c", []string{
			"definition main.withClosure.func1 main.go:76",
		}},
		{"generic function without type arguments", "closure-and-generic", "g", []string{
			"definition main.Map[...] main.go:67",
		}},
		{"spawns: at the go statement", "workers", "w", []string{
			"call main.worker in main.spawner main.go:82",
		}},
		{"the spawner: at its definition", "workers", "s", []string{
			"definition main.spawner main.go:80",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := describe(t, sel, c.q, c.v)
			if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
				t.Errorf("sites of %s in %s:\n got %v\nwant %v", c.v, c.q, got, c.want)
			}
		})
	}
}

// TestNothingMatches checks the warning for a question whose event
// matches no function.
func TestNothingMatches(t *testing.T) {
	sel := selectIn(t, "../testdata/sites")
	for _, q := range sel.Questions {
		if q.Name == "nothing" {
			want := `event x: no function named "main.totl" in the program, so nothing will be recorded for it (did you mean "main.total"?)`
			if len(q.Warnings) != 1 || q.Warnings[0] != want {
				t.Errorf("warnings %q, want [%q]", q.Warnings, want)
			}
			continue
		}
		if len(q.Warnings) > 0 {
			t.Errorf("question %s: unexpected warnings %q", q.Name, q.Warnings)
		}
	}
}

// TestGaps checks what static approximation knows it misses, with and
// without approximating (then the functions approximation would drop
// miss nothing): the executions of functions outside the module called
// from outside it, for the events named so and not only those a
// function of the module calls; and, for the calls through an interface
// and a function value the call graph resolves, the functions the call
// may run besides.
func TestGaps(t *testing.T) {
	_, db := stagetest.StaticDB(t, "../testdata/sites")
	prog := stagetest.CompileFile(t, filepath.Join("../testdata/sites", "questions.pmm"))
	for _, approximate := range []bool{true, false} {
		sel, err := SelectWith(context.Background(), db, prog, Options{Approximate: approximate})
		if err != nil {
			t.Fatal(err)
		}
		gaps := map[string]string{}
		for _, q := range sel.Questions {
			for _, v := range q.Disjuncts[0].Vars {
				for _, g := range v.Gaps {
					gaps[q.Name+"/"+v.Name] += g.Reason
				}
			}
		}
		want := map[string]string{
			"external/r": "executions of strings.Repeat, outside the module, are recorded at the module's call sites: those called from outside the module are missing",
			"external/k": "executions of sync.(*Mutex).Lock, outside the module, are recorded at the module's call sites: those called from outside the module are missing",
		}
		if fmt.Sprint(gaps) != fmt.Sprint(want) {
			t.Errorf("approximate %v: gaps\n%q\nwant\n%q", approximate, gaps, want)
		}
		if approximate {
			got := []string{}
			for _, v := range sel.Questions[1].Disjuncts[0].Vars { // applied
				for _, s := range v.Sites {
					if v.Name == "x" {
						got = append(got, s.Function+" "+fmt.Sprint(s.CallTargets))
					}
				}
			}
			if want := "main.double [main.double main.square]; main.square [main.double main.square]"; strings.Join(got, "; ") != want {
				t.Errorf("call targets of applied/x: %q, want %q", strings.Join(got, "; "), want)
			}
		}
	}
}

// TestUnreachedCalls checks that a dynamic call in code that never runs
// (a method of a type the program never uses) is no gap: it runs no
// function. A live call the call graph does not resolve (with
// --callgraph static, f(a) in apply) still is one.
func TestUnreachedCalls(t *testing.T) {
	dir := "../testdata/static/unreached"
	prog := stagetest.CompileFile(t, filepath.Join(dir, "questions.pmm"))
	for _, graph := range []string{static.VTA, static.Static} {
		res, err := static.Build(context.Background(), static.Config{Dir: dir, Output: filepath.Join(t.TempDir(), "static.db"), CallGraph: graph})
		if err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", "file:"+res.Path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, approximate := range []bool{true, false} {
			sel, err := SelectWith(context.Background(), db, prog, Options{Approximate: approximate})
			if err != nil {
				t.Fatal(err)
			}
			var gaps []string
			for _, v := range sel.Questions[0].Disjuncts[0].Vars {
				for _, g := range v.Gaps {
					gaps = append(gaps, v.Name+" "+g.Position)
				}
			}
			want := []string{}
			switch {
			case graph == static.Static && approximate:
				// Static approximation finds no callee of apply: both
				// events may miss what f(a) runs.
				want = []string{"x main.go:19:49", "y main.go:19:49"}
			case graph == static.Static:
				want = []string{"y main.go:19:49"} // f(a) in apply
			}
			if fmt.Sprint(gaps) != fmt.Sprint(want) {
				t.Errorf("--callgraph %s, approximate %v: gaps at %q, want %q", graph, approximate, gaps, want)
			}
		}
	}
}

// TestGoroutineSites selects the go statements of testdata/goroutines:
// by the function they start, and, under spawns, only in the bodies of
// the spawner's functions, which are those whose bodies hold a go
// statement (of the goroutine's function, when it is named).
func TestGoroutineSites(t *testing.T) {
	sel := selectIn(t, "../testdata/goroutines")
	for _, c := range []struct{ q, v, want string }{
		{"outliving", "s", "definition main.Serve main.go:91"},
		{"outliving", "g", "go main.Serve.func1 main.go:104; go main.Wait main.go:96; go main.Work main.go:100"},
		{"per-spawner", "s", "definition main.Batch main.go:114; definition main.Pool main.go:169; definition main.Serve main.go:91; definition main.main main.go:125"},
		{"wait-lives", "g", "go main.Wait main.go:96"},
		{"rest-lines", "g", "go main.Rest main.go:173"},
	} {
		if got := describe(t, sel, c.q, c.v); strings.Join(got, "; ") != c.want {
			t.Errorf("%s: sites of %s: %v, want [%s]", c.q, c.v, got, c.want)
		}
	}
}

// TestUnresolvedGoStatement: a go statement whose function the call
// graph does not know (a function value no code of the module passes)
// may start any goroutine: a goroutine variable says so (a gap).
func TestUnresolvedGoStatement(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/unresolved\n\ngo 1.22\n",
		"lib.go": "package unresolved\n\nfunc worker() {}\n\n// Start starts what its caller gives it.\nfunc Start(f func()) {\n\tgo f()\n\tgo worker()\n}\n",
		"questions.pmm": "(defquestion all :definition ((g n) s.t. (goroutine-execution g n)))\n" +
			"(defquestion named :definition ((g) s.t. (goroutine-execution g \"example.com/unresolved.worker\")))\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sel := selectIn(t, dir)
	for _, q := range sel.Questions {
		v := q.Disjuncts[0].Vars[0]
		if got := describe(t, sel, q.Name, "g"); strings.Join(got, "; ") != "go example.com/unresolved.worker lib.go:8" {
			t.Errorf("%s: sites %v, want the go statement of worker", q.Name, got)
		}
		if len(v.Gaps) != 1 || v.Gaps[0].Position != "lib.go:7:5" || !strings.Contains(v.Gaps[0].Reason, "did not resolve") {
			t.Errorf("%s: gaps %+v, want the unresolved go f() at lib.go:7:5", q.Name, v.Gaps)
		}
	}
}
