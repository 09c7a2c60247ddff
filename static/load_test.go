package static

import (
	"context"
	"fmt"
	"go/types"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestLoadPackagesAsPackagesLoad loads modules of testdata both ways,
// with LoadPackages and with packages.Load, and compares what pmm reads
// of the packages: the roots and their order, names, files, errors and
// whether they are ill-typed, the objects each identifier defines and
// uses and the type of each expression, the package scope, and the
// imports' types. A generic program, one with tests and external test
// packages (test variants), one with cgo, one that does not type-check.
func TestLoadPackagesAsPackagesLoad(t *testing.T) {
	for _, c := range []struct {
		dir   string
		tests bool
	}{
		{"../testdata/promoted", false},
		{"../testdata/promoted", true},
		{"../testdata/xtest", true},
		{"../testdata/cgo", false},
		{"../testdata/static/broken", false},
		{"../testdata/textmethods", false},
	} {
		t.Run(fmt.Sprintf("%s tests=%v", strings.TrimPrefix(c.dir, "../testdata/"), c.tests), func(t *testing.T) {
			cfg := func() *packages.Config {
				return &packages.Config{
					Context: context.Background(), Dir: c.dir, Tests: c.tests,
					Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
						packages.NeedImports | packages.NeedTypes | packages.NeedTypesSizes |
						packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule | packages.NeedForTest,
				}
			}
			want, err := packages.Load(cfg(), "./...")
			if err != nil {
				t.Fatal(err)
			}
			got, err := LoadPackages(cfg(), "./...")
			if err != nil {
				t.Fatal(err)
			}
			if g, w := describePackages(got), describePackages(want); g != w {
				t.Errorf("LoadPackages:\n%s\npackages.Load:\n%s", g, w)
			}
			// What pmm reports of the errors: every error with a position
			// packages.Load's report has, and no other.
			placed := func(err error) []string {
				var lines []string
				for _, l := range strings.Split(fmt.Sprint(err), "\n") {
					if strings.HasPrefix(l, "\t/") {
						lines = append(lines, l)
					}
				}
				return lines
			}
			if g, w := placed(packageErrors(c.dir, got)), placed(packageErrors(c.dir, want)); !slices.Equal(g, w) {
				t.Errorf("LoadPackages' errors:\n%s\npackages.Load's:\n%s", g, w)
			}
		})
	}
}

// describePackages prints what pmm reads of the roots pkgs.
func describePackages(pkgs []*packages.Package) string {
	var b strings.Builder
	for _, p := range pkgs {
		fmt.Fprintf(&b, "package %s %s %s ill=%v files=%d syntax=%d forTest=%q\n", p.ID, p.Name, p.PkgPath, p.IllTyped, len(p.CompiledGoFiles), len(p.Syntax), p.ForTest)
		for _, e := range p.Errors {
			if e.Kind == packages.ListError && strings.HasPrefix(e.Msg, "# ") {
				// The compiler's report of the type errors: packages.Load
				// compiles the package (go list -export), LoadPackages does
				// not. packageErrors leaves it out as a repeat.
				continue
			}
			fmt.Fprintf(&b, "  error %s %s %v\n", e.Pos, e.Msg, e.Kind)
		}
		if p.Types != nil {
			fmt.Fprintf(&b, "  scope %s\n", strings.Join(p.Types.Scope().Names(), " "))
		}
		var imps []string
		for path, imp := range p.Imports {
			imps = append(imps, fmt.Sprintf("%s=%s(types %v)", path, imp.ID, imp.Types != nil && imp.Types.Complete()))
		}
		sort.Strings(imps)
		fmt.Fprintf(&b, "  imports %s\n", strings.Join(imps, " "))
		if p.TypesInfo == nil || p.Fset == nil {
			fmt.Fprintf(&b, "  no types info\n")
			continue
		}
		var lines []string
		for id, obj := range p.TypesInfo.Defs {
			if obj != nil {
				lines = append(lines, fmt.Sprintf("def %s %s %s", p.Fset.Position(id.Pos()), id.Name, types.ObjectString(obj, nil)))
			}
		}
		for id, obj := range p.TypesInfo.Uses {
			lines = append(lines, fmt.Sprintf("use %s %s %s", p.Fset.Position(id.Pos()), id.Name, types.ObjectString(obj, nil)))
		}
		for e, tv := range p.TypesInfo.Types {
			lines = append(lines, fmt.Sprintf("type %s %s", p.Fset.Position(e.Pos()), tv.Type))
		}
		lines = append(lines, fmt.Sprintf("selections %d implicits %d instances %d scopes %d versions %d",
			len(p.TypesInfo.Selections), len(p.TypesInfo.Implicits), len(p.TypesInfo.Instances), len(p.TypesInfo.Scopes), len(p.TypesInfo.FileVersions)))
		slices.Sort(lines)
		for _, l := range lines {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	return b.String()
}
