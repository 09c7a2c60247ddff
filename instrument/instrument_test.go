package instrument

import (
	"context"
	"flag"
	"fmt"
	"go/token"
	"path/filepath"
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

// generate runs the stages up to code generation on a test module.
func generate(t *testing.T, dir string) (*plan.Plan, *Code) {
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
	code, err := Generate(p, pkgs, res.Root, res.ModulePath+"/internal/pmmrt_")
	if err != nil {
		t.Fatal(err)
	}
	return p, code
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
