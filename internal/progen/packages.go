package progen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Packages (Features.Packages): in two programs of three, the functions
// are spread over three packages of the module, main and two under it,
// pa and pb. The packages are ranked pb < pa < main, and a function
// calls, names or takes the value of only what its own package declares
// or what a package of lower rank exports, so that the imports have no
// cycle: leaves (the first in pb, and exported), mids, the recursion, the
// spawner (with its workers, which stay unexported), and the groups of
// declarations that go together (the unary functions with their slice
// and the handler type, the shapes with their interface, the generic
// function and type) each get a package drawn at random; a function of a
// package other than main is exported when it may be called from another
// (mids mostly are, leaves half the time; unexported ones are called only
// in their package), and so are a group's declarations. Leaves then
// allocate too: an allocation in a leaf of pb, called from mids of main
// and pa, is the agent the account questions are about. The twin's
// tracer is a package of its own, example.com/gen/tr, whose names are
// the single-package tracer's, exported ("trBegin" is tr.TrBegin), and
// which every package of the twin imports with a dot. Heap walks stay in
// package main. All draws are from a random source of their own, and a
// program of one package draws nothing from the others: it is the program
// of a generator without the feature.

// ModulePath is the module path of a generated program.
const ModulePath = "example.com/gen"

// pkg is a package of a generated program.
type pkg struct {
	name  string   // "main", "pa", "pb": no parameter or variable of a generated body is named so
	rank  int      // a package imports only packages of lower rank; main's is the highest
	decls []string // its type and variable declarations, in order
	cells bool     // it declares the allocations' cell and sink
}

func (k *pkg) isMain() bool { return k.name == "main" }

// path is k's import path.
func (k *pkg) path() string {
	if k.isMain() {
		return ModulePath
	}
	return ModulePath + "/" + k.name
}

// prefix is the prefix of the names of k's functions, as the runtime
// names them ("main", "example.com/gen/pa").
func (k *pkg) prefix() string {
	if k.isMain() {
		return "main"
	}
	return k.path()
}

// ident is the identifier of a declaration of k named name in a program
// of one package: exported, if exp, where k is not main.
func (k *pkg) ident(name string, exp bool) string {
	if !exp || k.isMain() {
		return name
	}
	return export(name)
}

// export is name with its first letter upper case.
func export(name string) string {
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// pkgSource is the random source of a seed's packages.
func pkgSource(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed*982451653 + 17)) }

// setPackages makes the packages of the program: main alone, or, with
// Features.Packages in two seeds of three, pb, pa and main.
func (g *gen) setPackages(seed int64) {
	g.rp = pkgSource(seed)
	if g.feat.Packages && g.rp.Intn(3) != 0 {
		g.pkgs = []*pkg{{name: "pb", rank: 0}, {name: "pa", rank: 1}}
	}
	g.pkgs = append(g.pkgs, &pkg{name: "main", rank: len(g.pkgs)})
}

// multi reports whether the program has packages other than main.
func (g *gen) multi() bool { return len(g.pkgs) > 1 }

// mainPkg is package main.
func (g *gen) mainPkg() *pkg { return g.pkgs[len(g.pkgs)-1] }

// drawPkg is a package drawn for a function or a group: main in a
// program of one package (drawing nothing).
func (g *gen) drawPkg() *pkg {
	if !g.multi() {
		return g.mainPkg()
	}
	return g.pkgs[g.rp.Intn(len(g.pkgs))]
}

// drawExport reports whether a function of k is exported, one time in n
// (always when n is 1); never in main, drawing nothing there.
func (g *gen) drawExport(k *pkg, n int) bool {
	if k.isMain() {
		return false
	}
	return n <= 1 || g.rp.Intn(n) != 0
}

// sees reports whether f's body may name c: c is of f's package, or
// exported by a package of lower rank.
func (f *Func) sees(c *Func) bool {
	return c.pkg == f.pkg || c.exported && c.pkg.rank < f.pkg.rank
}

// seesPkg reports whether f's body may name the declarations of a group
// in package k (exported where k is not main).
func (f *Func) seesPkg(k *pkg) bool { return k == f.pkg || k.rank < f.pkg.rank }

// visible are the functions of fs that f's body may name, in order.
func visible(f *Func, fs []*Func) []*Func {
	var out []*Func
	for _, c := range fs {
		if f.sees(c) {
			out = append(out, c)
		}
	}
	return out
}

// ref is how f's body names the function c (a function, not a method).
func ref(f, c *Func) string { return qual(f, c.pkg, c.local) }

// qual is how f's body names the declaration ident of package k.
func qual(f *Func, k *pkg, ident string) string {
	if k == f.pkg {
		return ident
	}
	return k.name + "." + ident
}

// imports are the import specs a file of package k's source uses: the
// packages its selectors name (the standard library's it may use, and
// the module's other packages), found in the parsed source.
func imports(src string, k *pkg, all []*pkg) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
	if err != nil {
		panic("progen: generated code does not parse: " + err.Error() + "\n" + src)
	}
	std := map[string]string{"sync": "sync", "atomic": "sync/atomic", "unsafe": "unsafe", "slices": "slices"}
	mod := map[string]string{}
	for _, o := range all {
		if o != k && !o.isMain() {
			mod[o.name] = o.path()
		}
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := s.X.(*ast.Ident); ok {
				if p, ok := std[x.Name]; ok {
					used[strconv.Quote(p)] = true
				} else if p, ok := mod[x.Name]; ok {
					used[strconv.Quote(p)] = true
				}
			}
		}
		return true
	})
	var out []string
	for imp := range used {
		out = append(out, imp)
	}
	sort.Strings(out)
	return out
}

// The placeholders of the identifiers of the handler type and its
// method in a program of several packages, until the calls are known
// (nameServe).
const (
	handlerPlaceholder = "HANDLER__"
	servePlaceholder   = "SERVE__"
)

// handlerIdents are the identifiers of the handler type and its method,
// or their placeholders.
func (g *gen) handlerIdents() (handler, serve string) {
	if g.multi() {
		return handlerPlaceholder, servePlaceholder
	}
	return "handler", "serve"
}

// nameServe names the handler type and its method once the calls are
// known: exported only where another package calls the method. The
// method of an exported type is reached, as the call graph's
// reachability goes (from the package's members), and, where nothing
// makes a value of the type, the call of its receiver in it has no
// callee: pmm then says that the answers about the functions it may
// call are incomplete.
func (g *gen) nameServe() {
	f := g.serve
	if f == nil || !g.multi() {
		return
	}
	for _, c := range g.funcs {
		if c.callees[f] && c.pkg != f.pkg {
			f.exported = true
		}
	}
	g.handlerName, g.serveName = f.pkg.ident("handler", f.exported), f.pkg.ident("serve", f.exported)
	f.Name = g.unplace(f.Name)
	f.QName = f.Name
	f.sig = g.unplace(f.sig)
}

// unplace is s with the placeholders of nameServe replaced.
func (g *gen) unplace(s string) string {
	if g.serve == nil || !g.multi() {
		return s
	}
	return strings.NewReplacer(handlerPlaceholder, g.handlerName, servePlaceholder, g.serveName).Replace(s)
}

// tracerPath is the import path of the twin's tracer in a program of
// several packages.
const tracerPath = ModulePath + "/tr"

// tracerNames matches the package-level names of the tracer.
var tracerNames = func() *regexp.Regexp {
	f, err := parser.ParseFile(token.NewFileSet(), "trace.go", traceRuntime, parser.SkipObjectResolution)
	if err != nil {
		panic(err)
	}
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name != "init" {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names = append(names, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "tr") {
			panic("progen: the tracer declares " + n + ", not named tr...")
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names))) // the longer of two with one prefix first
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
}()

// exportTracer renames, in src, the tracer's names to their exported
// forms, as package tr declares them.
func exportTracer(src string) string {
	return tracerNames.ReplaceAllStringFunc(src, export)
}

// tracerPackage is the source of package tr: the tracer, its names
// exported.
func tracerPackage() string {
	return strings.Replace(exportTracer(traceRuntime), "package main", "package tr", 1)
}
