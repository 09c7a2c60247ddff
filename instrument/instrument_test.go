package instrument

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"pmm.dev/pmm/internal/golden"
	"pmm.dev/pmm/internal/stagetest"
	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/sites"
	"pmm.dev/pmm/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// generate runs the stages up to code generation on a test module, as
// the driver does: again from the plan without the tests some site
// cannot take part in, until none is left.
func generate(t *testing.T, dir string) (*plan.Plan, *Code) {
	t.Helper()
	p, code, _ := generateAll(t, dir)
	return p, code
}

// generateAll is generate, which also returns the plans each pass of
// Generate was given, each with its dump (json, and its decisions) when
// it was built, and the dumps after.
func generateAll(t *testing.T, dir string) (*plan.Plan, *Code, [][2]string) {
	t.Helper()
	res, db := stagetest.StaticDB(t, dir)
	prog := stagetest.CompileFile(t, filepath.Join(dir, "questions.pmm"))
	sel, err := sites.Select(context.Background(), db, prog)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.Generate(prog)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Build(prog, sel, sch, plan.Options{Filters: true})
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := packages.Load(&packages.Config{Dir: res.Root, Mode: packages.NeedName | packages.NeedFiles |
		packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	var dumps [][2]string
	for {
		before := dumpPlan(t, p)
		code, err := Generate(p, pkgs, res.Root, res.ModulePath+"/internal/pmmrt_", Options{})
		if err != nil {
			t.Fatal(err)
		}
		dumps = append(dumps, [2]string{before, dumpPlan(t, p)})
		if len(code.Off) == 0 {
			return p, code, dumps
		}
		p = p.Without(code.Off...)
	}
}

// TestTable41 is the seed's Table 4.1: the six template parameters of
// the sites of Figure 4.2 on the Figure 4.1 program.
func TestTable41(t *testing.T) {
	_, code := generate(t, "../testdata/fig41")
	if len(code.Skipped) > 0 {
		t.Fatalf("skipped sites: %+v", code.Skipped)
	}
	var b strings.Builder
	for _, sc := range code.Sites {
		s := sc.Site
		where := s.Function
		if s.Kind == spec.SiteCall {
			where = "call of " + s.Function
		}
		b.WriteString("== " + string(s.Kind) + " site " + where + " at " + s.File + ":" + strconv.Itoa(s.Line) + "\n")
		b.WriteString(sc.Template.String() + "\n")
	}
	got := b.String()
	golden.Check(t, "testdata/table41.golden", got, *update)
	// As in the seed: BOTH's id is captured at entry and its parameters
	// and duration recorded at exit; FOO and BAR record their ids and the
	// calls pair with BOTH's id.
	for _, want := range []string{"s.id = ", "s.t0 = ", "calls", "duration", "parameters"} {
		if !strings.Contains(got, want) {
			t.Errorf("templates lack %q", want)
		}
	}
}

// TestFlagNamesUnique checks that state field names are unique by
// construction: variables that differ only in characters Go identifiers
// cannot hold, or in case, and the same variable in two disjuncts or
// questions, get different names.
func TestFlagNamesUnique(t *testing.T) {
	seen := map[string]string{}
	for _, q := range []int{0, 1, 10} {
		for _, d := range []int{0, 1, 11} {
			for _, v := range []string{"x", "X", "a-b", "a_b", "a*b", "a_2d_b", "x1", "x_1"} {
				name := flagName("p", q, d, v)
				key := fmt.Sprintf("q%d d%d %s", q, d, v)
				if other, ok := seen[name]; ok {
					t.Errorf("%s and %s both name %s", other, key, name)
				}
				seen[name] = key
				if !token.IsIdentifier(name) {
					t.Errorf("%s: %q is not a Go identifier", key, name)
				}
			}
		}
	}
}

// dumpPlan writes what a plan says: its sites, targets, tuples and
// filters, and its decisions.
func dumpPlan(t *testing.T, p *plan.Plan) string {
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data) + fmt.Sprint(p.Decisions())
}

// TestGenerateLeavesPlan checks that code generation reads the plan and
// never changes it, on the programs where some site cannot take part in
// a test decided at run time (Code.Off): the driver then leaves the test
// to the answer in a new plan, and the one it had is unchanged.
func TestGenerateLeavesPlan(t *testing.T) {
	passes := 0
	for _, dir := range []string{"../testdata/fig41", "../testdata/incomplete", "../testdata/dynamic", "../testdata/regress"} {
		_, _, dumps := generateAll(t, dir)
		for i, d := range dumps {
			if d[0] != d[1] {
				t.Errorf("%s: pass %d of Generate changed the plan:\n%s\nto\n%s", dir, i+1, d[0], d[1])
			}
		}
		passes += len(dumps) - 1
	}
	if passes == 0 {
		t.Errorf("no program has a test that a site cannot take part in: the test checks nothing of Without")
	}
}

// TestCaptureCodes checks that every capture of the plan has its Go in
// captureCodes.
func TestCaptureCodes(t *testing.T) {
	for _, c := range plan.Captures() {
		if _, ok := captureCodes[c]; !ok {
			t.Errorf("capture %s has no entry in captureCodes", c)
		}
	}
}

// TestUngeneratedSiteKindIsSkipped checks that a site of a kind Generate
// has no generator for is skipped with its reason, so that the answer
// says it is incomplete instead of counting no events, and that every
// kind of site a vocabulary row records at is one Generate writes.
func TestUngeneratedSiteKindIsSkipped(t *testing.T) {
	for _, p := range spec.Vocabulary() {
		for _, k := range p.Sites {
			if !slices.Contains(generatedKinds(), k) {
				t.Errorf("%s is recorded at %s sites, for which Generate writes no code", p.Name, k)
			}
		}
	}
	// A kind no row has.
	site := &plan.Site{Kind: "future", Function: "main.F", Targets: []*plan.Target{{Function: "main.F"}}}
	code, err := Generate(&plan.Plan{Sites: []*plan.Site{site}}, nil, t.TempDir(), "example.com/m/pmmrt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(code.Skipped) != 1 || code.Skipped[0].Site != site || !strings.Contains(code.Skipped[0].Reason, "no code for future sites") {
		t.Errorf("Skipped = %+v, want the site skipped with its reason", code.Skipped)
	}
	if len(code.Sites) != 0 {
		t.Errorf("code generated for a site of no generator: %+v", code.Sites)
	}
}
