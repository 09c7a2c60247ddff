package archtest

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// outputTypes are the types that cross the boundaries between the stages
// of pmm instrument (docs/ARCHITECTURE.md): once a stage returns one,
// only its own package may change it. internal/dataflow checks the same
// at run time, aliases included.
var outputTypes = []string{
	module + "/spec.Program",
	module + "/static.Result",
	module + "/sites.Selection",
	module + "/schema.Schema",
	module + "/plan.Plan",
	module + "/instrument.Code",
	module + "/rewrite.Result",
}

// mutations returns the assignments, increments, deletes and clears in
// the non-test files of pkgs that change a field of a type reachable from
// roots (named types of prefix's packages, by "path.Name") outside the
// package that declares it: a later stage changing an earlier stage's
// output. A value reached through a local variable (s := p.Sites[0];
// s.X = 1) is seen, since the field is selected on a type of the set; one
// reached only through an alias of a slice or map element of another type
// is left to internal/dataflow's snapshots.
func mutations(pkgs []*packages.Package, prefix string, roots []string) []string {
	owned := reachable(pkgs, prefix, roots)
	var out []string
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			fresh := freshValues(p, f)
			file := p.Fset.File(f.Pos()).Name()
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			report := func(n ast.Node, target ast.Expr, how string) {
				if n := changedField(p, target, owned); n != nil && !fresh[rootVar(p, target)] {
					pos := p.Fset.Position(n.Pos())
					out = append(out, fmt.Sprintf("%s:%d: %s %s, a field of %s (the output of package %s)",
						relPath(pos.Filename), pos.Line, how, types.ExprString(target), n.owner, n.owner[:strings.LastIndex(n.owner, ".")]))
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					if n.Tok.String() != ":=" {
						for _, l := range n.Lhs {
							report(n, l, "assigns")
						}
					}
				case *ast.IncDecStmt:
					report(n, n.X, "changes")
				case *ast.CallExpr:
					if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && len(n.Args) > 0 {
						if b, ok := p.TypesInfo.Uses[id].(*types.Builtin); ok && (b.Name() == "delete" || b.Name() == "clear") {
							report(n, n.Args[0], b.Name()+"s from")
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// changed is a field selection that changes an output.
type changed struct {
	ast.Node
	owner string // the type whose field it is, "path.Name"
}

// freshValues returns the variables of file f that hold a value made
// there, by a composite literal (x := &T{...}): a package may fill in a
// value of another stage's type that it makes itself.
func freshValues(p *packages.Package, f *ast.File) map[types.Object]bool {
	fresh := map[types.Object]bool{}
	made := func(lhs []*ast.Ident, rhs []ast.Expr) {
		if len(lhs) != len(rhs) {
			return
		}
		for i, r := range rhs {
			if u, ok := r.(*ast.UnaryExpr); ok && u.Op == token.AND {
				r = u.X
			}
			if _, ok := r.(*ast.CompositeLit); ok && p.TypesInfo.Defs[lhs[i]] != nil {
				fresh[p.TypesInfo.Defs[lhs[i]]] = true
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				var lhs []*ast.Ident
				for _, l := range n.Lhs {
					id, _ := l.(*ast.Ident)
					lhs = append(lhs, id)
				}
				made(lhs, n.Rhs)
			}
		case *ast.ValueSpec:
			made(n.Names, n.Values)
		}
		return true
	})
	return fresh
}

// rootVar is the variable an assigned expression is rooted at, or nil.
func rootVar(p *packages.Package, e ast.Expr) types.Object {
	root, _ := followTarget(p, e, nil)
	return root
}

// changedField returns the selection of a field of an owned type, outside
// its package, on the way from target (an assigned expression) to the
// variable it is rooted at: x.F, x.F[i], x.F.G, *x.F, (x.F).G.
func changedField(p *packages.Package, target ast.Expr, owned map[string]bool) *changed {
	_, c := followTarget(p, target, owned)
	return c
}

// followTarget follows an assigned expression to the variable it is
// rooted at, and returns it and the first selection of a field of an
// owned type outside its package on the way.
func followTarget(p *packages.Package, e ast.Expr, owned map[string]bool) (types.Object, *changed) {
	var c *changed
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			if sel := p.TypesInfo.Selections[x]; c == nil && sel != nil && sel.Kind() == types.FieldVal {
				if n := namedOf(sel.Recv()); n != nil && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() != p.PkgPath && owned[typeName(n)] {
					c = &changed{x, typeName(n)}
				}
			}
			e = x.X
		case *ast.Ident:
			return p.TypesInfo.Uses[x], c
		default:
			return nil, c
		}
	}
}

// namedOf is the named type of t, through a pointer.
func namedOf(t types.Type) *types.Named {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := types.Unalias(t).(*types.Named)
	return n
}

// typeName is n's "path.Name": a package loaded from source and the same
// package seen by its importers through export data have different
// *types.Named.
func typeName(n *types.Named) string { return n.Obj().Pkg().Path() + "." + n.Obj().Name() }

// reachable returns the named types of prefix's packages reachable from
// roots through fields, pointers, slices, arrays and maps, by typeName.
func reachable(pkgs []*packages.Package, prefix string, roots []string) map[string]bool {
	seen := map[string]bool{}
	var walk func(t types.Type)
	walk = func(t types.Type) {
		switch t := types.Unalias(t).(type) {
		case *types.Named:
			if t.Obj().Pkg() == nil || !strings.HasPrefix(t.Obj().Pkg().Path(), prefix) || seen[typeName(t)] {
				return
			}
			seen[typeName(t)] = true
			walk(t.Underlying())
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				walk(t.Field(i).Type())
			}
		}
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, r := range roots {
			path, name := r[:strings.LastIndex(r, ".")], r[strings.LastIndex(r, ".")+1:]
			if p.Types != nil && p.Types.Path() == path {
				if obj, ok := p.Types.Scope().Lookup(name).(*types.TypeName); ok {
					walk(obj.Type())
				}
			}
		}
	})
	return seen
}

// relPath is path relative to the working directory, for messages.
func relPath(path string) string {
	if rel, err := filepath.Rel(must(filepath.Abs(".")), path); err == nil {
		return rel
	}
	return path
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// loadTyped loads the packages matching patterns in dir with their syntax
// and types.
func loadTyped(t *testing.T, dir string, patterns ...string) []*packages.Package {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Dir: dir, Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports}, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			t.Errorf("loading %s: %v", p.PkgPath, e)
		}
	})
	return pkgs
}

// TestNoStageChangesAnEarlierOutput checks that no package of pmm changes
// a field of another stage's output.
func TestNoStageChangesAnEarlierOutput(t *testing.T) {
	pkgs := loadTyped(t, "../..", module+"/...")
	owned := reachable(pkgs, module+"/", outputTypes)
	for _, r := range outputTypes {
		if !owned[r] {
			t.Errorf("output type %s is not a type of pmm: renamed? place its new name in outputTypes", r)
		}
	}
	for _, m := range mutations(pkgs, module+"/", outputTypes) {
		t.Error(m)
	}
}

// TestMutationsSeen checks the check on a module made to break the rule
// (testdata/mutation: a stage "late" changing the output of "early" in
// every way the check knows, and ways that keep the rule).
func TestMutationsSeen(t *testing.T) {
	pkgs := loadTyped(t, "testdata/mutation", "./...")
	got := mutations(pkgs, "example.com/mutation/", []string{"example.com/mutation/early.Out"})
	for i, g := range got {
		got[i] = g[strings.Index(g, ": ")+2:]
	}
	want := []string{
		"assigns out.N, a field of example.com/mutation/early.Out (the output of package example.com/mutation/early)",
		"assigns out.Items[0].Name, a field of example.com/mutation/early.Item (the output of package example.com/mutation/early)",
		"assigns out.Items[0], a field of example.com/mutation/early.Out (the output of package example.com/mutation/early)",
		"assigns it.Name, a field of example.com/mutation/early.Item (the output of package example.com/mutation/early)",
		"changes out.N, a field of example.com/mutation/early.Out (the output of package example.com/mutation/early)",
		"deletes from out.ByName, a field of example.com/mutation/early.Out (the output of package example.com/mutation/early)",
		"assigns out.ByName[\"a\"], a field of example.com/mutation/early.Out (the output of package example.com/mutation/early)",
		"assigns *out.Flag, a field of example.com/mutation/early.Out (the output of package example.com/mutation/early)",
		"clears from out.Items, a field of example.com/mutation/early.Out (the output of package example.com/mutation/early)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mutations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
