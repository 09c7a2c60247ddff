// Package instrument generates the code of a plan (seed 001, 4.3–4.4):
// for every site of a *plan.Plan, its six template parameters as Go code
// typed for it (pre-condition, local variables, before-form, after-form,
// post-condition and action), the typed helpers of each file, and the
// byte edits of the user's files. It reads the plan and never changes
// it: the tests a site cannot take part in are reported (Code.Off), and
// the driver generates again from the plan without them. Package rewrite
// merges the code into the Go source.
package instrument

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/go/packages"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// Template is the six parameters of a site (seed 4.3.1), as Go code.
type Template struct {
	Locals []string // fields of the site's state
	Pre    string   // the pre-condition: whether to record this execution
	Before []string // the before-form: statements run when the event begins
	After  []string // the after-form: statements run when it ends, by return or panic
	Post   string   // the post-condition
	Action []string // statements that emit the tuples
}

// String prints t as in the seed's Table 4.1.
func (t Template) String() string {
	var b strings.Builder
	row := func(name string, lines []string) {
		b.WriteString(fmt.Sprintf("%-16s", name))
		if len(lines) == 0 {
			b.WriteString("-\n")
			return
		}
		b.WriteString(strings.Join(lines, "\n"+strings.Repeat(" ", 16)) + "\n")
	}
	row("Local-variables", t.Locals)
	row("Pre-condition", []string{t.Pre})
	row("Before-form", t.Before)
	row("After-form", t.After)
	row("Post-condition", []string{t.Post})
	row("Action", t.Action)
	return b.String()
}

// Edit replaces bytes [Off, End) of a file with Text; Off == End inserts.
// Edits are small and compose: a call site inside the arguments of
// another keeps its own edits. Insertions at the same offset apply in
// increasing Order, so that the outer construct opens first.
type Edit struct {
	Off, End int
	Text     string
	Order    int
	// Twin, when not 0, makes the insertion the start of a copy of the
	// source from End to CopyEnd, with the edits inside that range
	// (those Only for Twin included), followed by After; the source
	// from End then follows as usual, without the edits Only for Twin.
	// A definition site uses it to keep its defer out of the function
	// (definition.twin).
	Twin    int
	CopyEnd int
	After   string
	// Only, when not 0, applies the edit in the copy of that Twin alone.
	Only int
}

// The orders of insertions that may meet at one offset.
const (
	orderWrapEnd    = iota - 3 // the ")" that ends an expression a site wraps, before any statement after it
	orderOuterEnd              // the ")..." of a variadic call's extra arguments, the ")" of an if's condition: after the wraps ending there
	orderMain                  // main's deferred end of the run, run last
	orderAccount               // an accounted function's deferred account (accountgen.go), outside the site's code
	orderDefinition            // statements at the top of a body
	orderReturn                // return s.ret( ... )
	orderCall                  // W(caller, F, ...): outer calls before inner ones
	orderRegion                // a region's points, in the order FindRegions gives them
	orderMoved                 // a moved variable's allocation, after every other point at its offset
)

// Code is the generated code of a plan.
type Code struct {
	Files   map[string][]Edit   // absolute file path → its edits
	Helpers map[string]*Helpers // absolute file path → the helpers of its sites
	Sites   []*SiteCode
	Skipped []plan.Skip
	// Off are the tests decided at run time, on in the plan, that some
	// site could not take part in: the code is right only for a plan
	// without them (plan.Without), from which it is generated again.
	Off []plan.RunTimeTest
	// Inexact are the targets of sites instrumented that may still miss
	// executions, and why.
	Inexact []plan.Inexact
	// WaitEnd are, by site number, the questions (indexes) whose answers
	// wait for the end of the site's executions, that the site counts
	// while open: one that never ended may be missing from them.
	WaitEnd map[int][]int
	// SiteBases are constants of the runtime package, by name: a
	// file's site numbers are written as its constant plus an offset,
	// so that sites added or removed elsewhere change the constants, not
	// the file's code (SiteBase).
	SiteBases map[string]int
}

// SiteBase names the constant, in the runtime package, below the site
// numbers (plan.Target.SiteID) of the sites of file (a path as the plan
// has it): a function of the path alone, the path in letters, digits
// and underscores, then a hash of it (two paths may spell the same).
// The plan numbers the sites in source order, so a file's are
// consecutive and its offsets do not change when sites come or go in
// other files.
func SiteBase(file string) string {
	file = filepath.ToSlash(file)
	sum := sha256.Sum256([]byte(file))
	spelled := strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '_'
	}, strings.TrimSuffix(file, ".go"))
	return "Sites_" + spelled + "_" + hex.EncodeToString(sum[:2])
}

// Helpers are the typed helpers of the sites of one source file, for a
// generated file beside it in the same package, which shares its build
// constraints.
type Helpers struct {
	Source  string            // the source file
	Package string            // its package name
	Imports map[string]string // import path → name
	Decls   []string
	prefix  string // of generated identifiers, unused in the package
}

// SiteCode is the code of one site.
type SiteCode struct {
	Site     *plan.Site
	Template Template
}

// runtimeName names the runtime package in generated code, after the
// prefix of generated identifiers.
const runtimeName = "rt"

// generatedKinds are the site kinds Generate writes code for, in the order
// it writes them: definition sites first, since call and go sites refer
// to their state variables; go sites before call sites, whose wrapper
// of the same go statement takes their part (goStart).
func generatedKinds() []spec.SiteKind {
	return []spec.SiteKind{spec.SiteDefinition, spec.SiteGo, spec.SiteCall, spec.SiteRegion, spec.SiteIteration, spec.SiteBlocking, spec.SiteAllocation}
}

// Generate produces the code of every site of plan p, typed by the
// loaded packages pkgs of the module at root; rtPath is the import path
// of the runtime package in the module. It does not change p. When some
// site cannot take part in a test decided at run time that others
// generated code for (Code.Off), the code is to be generated again from
// p.Without those tests: tests only ever turn off, so that ends.
func Generate(p *plan.Plan, pkgs []*packages.Package, root, rtPath string, opt Options) (*Code, error) {
	g := &generator{opt: opt, plan: p, code: &Code{Files: map[string][]Edit{}, Helpers: map[string]*Helpers{}}, rtPath: rtPath, root: root, failed: map[plan.RunTimeTest]bool{}, callerAtBegin: map[*plan.RunAggregate]bool{}, adopters: map[int64]bool{}, twinState: map[int]string{}, stateUsed: map[int]bool{}, local: map[*plan.Site]int{}}
	g.index(pkgs)
	g.accounts = p.Accounts()
	g.code.SiteBases = map[string]int{}
	counted := map[string]int{} // sites so far, by directory
	for _, s := range p.Sites {
		for _, t := range s.Targets {
			g.adopters[t.FuncID] = g.adopters[t.FuncID] || t.Publish
		}
		// Generated names are numbered within the site's directory (so
		// within its package), in source order.
		dir := filepath.Dir(s.File)
		counted[dir]++
		g.local[s] = counted[dir]
		if len(s.Targets) > 0 {
			if base, ok := g.code.SiteBases[SiteBase(s.File)]; !ok || s.Targets[0].SiteID-1 < base {
				g.code.SiteBases[SiteBase(s.File)] = s.Targets[0].SiteID - 1
			}
		}
	}
	kinds := generatedKinds()
	for _, kind := range kinds {
		for _, s := range p.Sites {
			if s.Kind != kind {
				continue
			}
			if err := g.site(s); err != nil {
				g.code.Skipped = append(g.code.Skipped, plan.Skip{Site: s, Reason: err.Error()})
			}
		}
	}
	g.goSitesAlone()
	// A site of a kind with no generator records nothing: the answer says
	// so, rather than count zero events.
	for _, s := range p.Sites {
		if !slices.Contains(kinds, s.Kind) {
			g.code.Skipped = append(g.code.Skipped, plan.Skip{Site: s, Reason: fmt.Sprintf("pmm generates no code for %s sites yet", s.Kind)})
		}
	}
	// The body of a twin as the user wrote it declares the state its
	// call sites pass (zero: the site was off when the execution began).
	for _, edits := range g.code.Files {
		for i, e := range edits {
			if e.Twin != 0 && g.stateUsed[e.Twin] {
				edits[i].After += g.twinState[e.Twin]
			}
		}
	}
	sort.Slice(g.code.Sites, func(i, j int) bool { return g.code.Sites[i].Site.Index < g.code.Sites[j].Site.Index })
	if len(g.code.Sites) > 0 {
		g.endRunAtMain()
		g.accountEntries()
		g.accountCacheDecls()
	}
	return g.code, nil
}

// Options are the choices of generated code that the plan leaves open.
type Options struct {
	// Twin lets a definition site that defers its exit keep the defer
	// out of the function: when the site is off, the function runs as
	// written, without the cost of a defer; when it is on, the function
	// calls a function literal holding the instrumented body (a copy of
	// it). The price: while recording, such a function has a second
	// frame (F.func1) in stack traces and for runtime.Callers, and the
	// body's code is compiled twice. Bodies for which the frame would
	// change more (recover, function literals, testing's helpers) keep
	// the defer (siteGen.twinnable).
	Twin bool
	// Nested says which sites' durations other timed executions may run
	// inside, and which sites those are: the code of the first subtracts
	// the recording of the second (plan.NestedClocks). Nil subtracts
	// nothing.
	Nested *plan.NestedClocks
	// Quiet are, by account set (its index in plan.Accounts), the
	// functions, by span, whose executions run no allocation site that
	// reads the set's account, as the call graph tells: an accounted one
	// need not enter its account. Nil: every accounted function that
	// calls something enters.
	Quiet map[int]map[static.Span]bool
	// Known are, by account set, the functions (by id) whose every
	// execution runs under one account, as the call graph tells: their
	// allocation sites write its index among the set's patterns (0 for
	// none) as a constant instead of reading the goroutine's. Nil: every
	// site of an unaccounted package reads it.
	Known map[int]map[int64]int
	// GoVersion is the version of the Go toolchain that builds the
	// program (go env GOVERSION), where the runtime's allocations depend
	// on it (a channel's header); "" when no site needs it.
	GoVersion string
}

// mainFunc is the declaration of the program's main function if fi's
// file holds it (package main, not a test file), else nil.
func mainFunc(fi *fileInfo) *ast.FuncDecl {
	if fi.pkg.Name != "main" || fi.tf == nil || strings.HasSuffix(fi.tf.Name(), "_test.go") {
		return nil
	}
	for _, d := range fi.file.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" && fd.Body != nil {
			return fd
		}
	}
	return nil
}

// endRunAtMain makes each main function of the module end the run when
// it returns normally (rt/pmmrt's MainReturned): its first statement
// defers a helper, so that it runs after main's own deferred calls and
// records. Without it, a goroutine still writing a record when main
// returned and the process exited leaves it torn, and every answer of
// the run incomplete.
func (g *generator) endRunAtMain() {
	paths := make([]string, 0, len(g.files))
	for path := range g.files {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		fi := g.files[path]
		if rel, err := filepath.Rel(g.root, path); err != nil || strings.HasPrefix(rel, "..") {
			continue // code cgo generates, which pmm does not rewrite
		}
		if fd := mainFunc(fi); fd != nil {
			h := g.helpers(fi)
			rt, name := h.Imports[g.rtPath], h.prefix+"main"
			// Returning is false when main is unwound by a panic or
			// runtime.Goexit: the other goroutines may go on.
			h.Decls = append(h.Decls, "func "+name+"() {\n\tif "+rt+".Returning() {\n\t\t"+rt+".MainReturned()\n\t}\n}")
			off := fi.tf.Offset(fd.Body.Lbrace) + 1
			g.code.Files[path] = append(g.code.Files[path], Edit{Off: off, End: off, Text: "defer " + name + "();", Order: orderMain})
		}
	}
}

type generator struct {
	opt    Options
	plan   *plan.Plan
	code   *Code
	rtPath string
	root   string
	files  map[string]*fileInfo // absolute path → its syntax
	done   map[*plan.Site]bool  // definition sites generated (call sites may refer to them)
	// regionDone are the region and iteration sites generated with their body, and the
	// body's outcome (regionSites).
	regionDone map[*plan.Site]error
	// typeArgs are the type arguments of the state of generic definition
	// sites, "" for the others.
	typeArgs map[*plan.Site]string
	// fileImports are the packages imported into each user's file for
	// the code of its sites (absolute path → import paths).
	fileImports map[string]map[string]bool
	// defVals are the values each definition site generated captures, for
	// the tests of its callees.
	defVals map[*plan.Site]map[string]value
	// local numbers the sites within their directories, for the names
	// of their generated declarations.
	local map[*plan.Site]int
	// adopters are the functions whose definition adopts the id a call
	// site publishes (Target.Publish).
	adopters map[int64]bool
	// twinState declares, by Edit.Twin, the state of a definition site
	// whose body has a twin; stateUsed are the twins whose call sites
	// pass that state.
	twinState map[int]string
	stateUsed map[int]bool
	// blanks are the blank type parameters of methods' receivers named
	// in the copies of their files (siteGen.nameBlank).
	blanks map[token.Pos]bool
	// accounts are the plan's account sets (plan.Accounts).
	accounts []string
	// notInlined are the functions whose allocation sites pmm records,
	// kept from being inlined (allocgen.go).
	notInlined map[*ast.FuncDecl]bool
	// accountCaches are the function bodies whose allocation sites share
	// an account read, by set (accountCache).
	accountCaches map[accountCacheKey]bool
	// failed are the tests decided at run time, on in the plan, that some
	// site could not take part in (Code.Off).
	failed map[plan.RunTimeTest]bool
	// callerAtBegin caches callerPassesAtBegin.
	callerAtBegin map[*plan.RunAggregate]bool
	// passMethods are, by definition site and callee flag of its state,
	// the methods its callees call once they set the flag (passMethod).
	passMethods map[*plan.Site]map[string]string
	// goStarts are the go sites generated, by the span of their call,
	// whose part the call site of the same statement may take.
	goStarts map[static.Span]*goStart
	// ifaceMethodValues are the interface methods the loaded packages
	// take as function values, found when a site first needs them.
	ifaceMethodValues []ifaceMethodValue
	foundMethodValues bool
	// candidates are the types of the loaded packages that may be a
	// dynamic type at a site of a package, by that package
	// (candidateTypes).
	candidates map[*packages.Package][]*types.TypeName
}

type fileInfo struct {
	pkg  *packages.Package
	file *ast.File
	tf   *token.File
}

func (g *generator) index(pkgs []*packages.Package) {
	g.files = map[string]*fileInfo{}
	g.done = map[*plan.Site]bool{}
	g.regionDone = map[*plan.Site]error{}
	g.defVals = map[*plan.Site]map[string]value{}
	g.typeArgs = map[*plan.Site]string{}
	g.fileImports = map[string]map[string]bool{}
	g.goStarts = map[static.Span]*goStart{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for i, f := range p.Syntax {
			if i >= len(p.CompiledGoFiles) {
				break
			}
			path := p.CompiledGoFiles[i]
			if _, seen := g.files[path]; seen && !strings.HasSuffix(path, "_test.go") {
				continue
			}
			g.files[path] = &fileInfo{pkg: p, file: f, tf: p.Fset.File(f.Pos())}
		}
	})
}

// node finds the site's syntax: a FuncDecl or FuncLit, or a CallExpr.
func (g *generator) node(s *plan.Site) (*fileInfo, ast.Node, []ast.Node, error) {
	if filepath.IsAbs(s.File) { // outside the module
		return nil, nil, nil, fmt.Errorf("%s is code that cgo generates at build time, which pmm does not rewrite", s.File)
	}
	fi := g.files[filepath.Join(g.root, s.File)]
	if fi == nil || fi.tf == nil {
		return nil, nil, nil, fmt.Errorf("%s is not in a loaded package", s.File)
	}
	start := lineColOffset(fi.tf, s.Line, s.Col)
	end := lineColOffset(fi.tf, s.EndLine, s.EndCol)
	if s.Kind == spec.SiteAllocation {
		if why := allocNotRecorded[s.Label]; why != "" {
			return nil, nil, nil, fmt.Errorf("%s", why)
		}
		e, path := allocExpr(fi, start, end)
		if s.Label == "interface" || s.Label == "method-value" {
			e, path = valueExpr(fi, start, end)
		}
		if s.Label == "map-assign" {
			e, path = mapElementExpr(fi, start, end)
		}
		if id, ok := e.(*ast.Ident); s.Label == "variable" && (!ok || fi.pkg.TypesInfo.Defs[id] == nil) {
			e, path = typeSwitchVar(fi, start)
		}
		if e == nil {
			return nil, nil, nil, fmt.Errorf("no allocation at %s:%d:%d", s.File, s.Line, s.Col)
		}
		return fi, e, path, nil
	}
	found, path := firstPath(fi.file, fi.tf, start, start, func(n ast.Node) bool {
		off := fi.tf.Offset(n.Pos())
		match := off == start && (end < 0 || fi.tf.Offset(n.End()) == end)
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			if s.Kind == spec.SiteDefinition && off == start {
				return true
			}
		case *ast.CallExpr:
			if (s.Kind == spec.SiteCall || s.Kind == spec.SiteBlocking || s.Kind == spec.SiteGo) && match {
				return true
			}
		case *ast.SendStmt, *ast.UnaryExpr, *ast.SelectStmt, *ast.RangeStmt:
			if s.Kind == spec.SiteBlocking && match {
				return true
			}
		}
		// A region's first statement: a labeled one, or the first of
		// those a comment marks (the span ends with the last).
		_, stmt := n.(ast.Stmt)
		return stmt && (s.Kind == spec.SiteRegion || s.Kind == spec.SiteIteration) && off == start
	})
	if found == nil {
		return nil, nil, nil, fmt.Errorf("no %s at %s:%d:%d", s.Kind, s.File, s.Line, s.Col)
	}
	return fi, found, path, nil
}

// firstPath returns the first node below root, depth first, that match
// accepts, and the nodes from root to it (root first, the node last).
// A node that match accepts begins at or before offset lo of tf and
// ends at or after hi, and is no comment: the search does not go into a
// node that does not span them (a node's children but its doc comments
// lie within it), so for each site it reads the nodes around it, not
// the whole file (about 0.2 s of CPU on expr's 2,944 sites,
// docs/PERFORMANCE.md).
func firstPath(root ast.Node, tf *token.File, lo, hi int, match func(ast.Node) bool) (ast.Node, []ast.Node) {
	var found ast.Node
	var stack, path []ast.Node
	ast.Inspect(root, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return false
		}
		if found != nil {
			return false
		}
		if p, e := n.Pos(), n.End(); p.IsValid() && e.IsValid() && (tf.Offset(p) > lo || tf.Offset(e) < hi) {
			return false
		}
		stack = append(stack, n)
		if match(n) {
			found, path = n, append([]ast.Node(nil), stack...)
			return false
		}
		return true
	})
	return found, path
}

func lineColOffset(tf *token.File, line, col int) int {
	if line <= 0 || line > tf.LineCount() {
		return -1
	}
	return tf.Offset(tf.LineStart(line)) + col - 1
}

func (g *generator) helpers(fi *fileInfo) *Helpers {
	path := fi.tf.Name()
	h, ok := g.code.Helpers[path]
	if !ok {
		prefix := unusedPrefix(fi.pkg)
		h = &Helpers{Source: path, Package: fi.file.Name.Name, Imports: map[string]string{g.rtPath: prefix + runtimeName}, prefix: prefix}
		g.code.Helpers[path] = h
	}
	return h
}

// unusedPrefix returns a prefix for generated identifiers that no
// identifier of the package starts with.
func unusedPrefix(p *packages.Package) string {
	prefix := "pmm__"
	for {
		clash := false
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && strings.HasPrefix(id.Name, prefix) {
					clash = true
				}
				return !clash
			})
		}
		if !clash {
			return prefix
		}
		prefix += "_"
	}
}

// typeName writes t as Go source in the package of pc, importing what it
// needs; it fails for types the package cannot name.
func (g *generator) typeName(pc *Helpers, self *types.Package, t types.Type) (string, error) {
	var bad error
	qual := func(p *types.Package) string {
		if samePackage(p, self) {
			return ""
		}
		if !importable(self.Path(), p.Path()) {
			bad = fmt.Errorf("type %s is in package %s, which %s cannot import", t, p.Path(), self.Path())
		}
		return pc.importName(p.Path())
	}
	if err := nameable(self, t, map[types.Type]bool{}); err != nil {
		return "", err
	}
	s := types.TypeString(t, qual)
	if self.Scope().Lookup("any") == nil {
		// go/types writes the empty interface as any, which a module
		// whose go directive is older than 1.18 cannot use.
		s = renameTypeParams(s, map[string]string{"any": "interface{}"})
	}
	return s, bad
}

// importName returns the name under which the helpers import path,
// adding the import.
func (pc *Helpers) importName(path string) string {
	name, ok := pc.Imports[path]
	if !ok {
		name = pc.prefix + "i" + strconv.Itoa(len(pc.Imports))
		pc.Imports[path] = name
	}
	return name
}

// samePackage reports whether a and b are one package: a package that
// uses cgo is typed twice (once from the files cgo generates, once from
// its own, which use the first's C types), so its path says.
func samePackage(a, b *types.Package) bool {
	return a == b || a != nil && b != nil && a.Path() == b.Path()
}

// nameable reports an error for a type that source in package self
// cannot write: unexported names of other packages.
func nameable(self *types.Package, t types.Type, seen map[types.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Basic:
		if t.Kind() == types.Invalid { // the packages that use cgo are typed with C's names left untyped
			return fmt.Errorf("a type of C (cgo), which pmm cannot name")
		}
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && !samePackage(obj.Pkg(), self) && !obj.Exported() {
			return fmt.Errorf("type %s is unexported in another package", t)
		}
		if obj.Parent() != nil && obj.Parent() != obj.Pkg().Scope() && obj.Pkg() != nil {
			return fmt.Errorf("type %s is local to a function", t)
		}
		for i := 0; i < t.TypeArgs().Len(); i++ {
			if err := nameable(self, t.TypeArgs().At(i), seen); err != nil {
				return err
			}
		}
	case *types.Pointer:
		return nameable(self, t.Elem(), seen)
	case *types.Slice:
		return nameable(self, t.Elem(), seen)
	case *types.Array:
		return nameable(self, t.Elem(), seen)
	case *types.Chan:
		return nameable(self, t.Elem(), seen)
	case *types.Map:
		if err := nameable(self, t.Key(), seen); err != nil {
			return err
		}
		return nameable(self, t.Elem(), seen)
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for i := 0; i < tup.Len(); i++ {
				if err := nameable(self, tup.At(i).Type(), seen); err != nil {
					return err
				}
			}
		}
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			f := t.Field(i)
			if !f.Exported() && !samePackage(f.Pkg(), self) {
				return fmt.Errorf("struct type %s has unexported fields of another package", t)
			}
			if err := nameable(self, f.Type(), seen); err != nil {
				return err
			}
		}
	case *types.Interface:
		for i := 0; i < t.NumMethods(); i++ {
			m := t.Method(i)
			if !m.Exported() && !samePackage(m.Pkg(), self) {
				return fmt.Errorf("interface type %s has unexported methods of another package", t)
			}
		}
	}
	return nil
}

// importable applies Go's internal-package rule. The rule is about
// directories: an external test package P_test is in the directory of P.
func importable(from, path string) bool {
	from = strings.TrimSuffix(from, "_test")
	i := strings.LastIndex(path, "/internal/")
	switch {
	case strings.HasSuffix(path, "/internal"):
		i = len(path) - len("/internal")
	case strings.HasPrefix(path, "internal/") || path == "internal":
		return !strings.Contains(from, ".") // the standard library's own
	case i < 0:
		return true
	}
	parent := path[:i]
	return from == parent || strings.HasPrefix(from, parent+"/")
}

// value is a typed value a site captures, and how to encode it.
type value struct {
	field string     // the state field
	typ   types.Type // its Go type
	expr  string     // how the helper reads it at capture time
	// walk and member, for a data-condition's field, are its heap walk
	// (plan.Field's Walk and Member).
	walk, member string
}

// encode returns the statement that appends v to the record r.
func encode(r string, v value, read string) string {
	t := v.typ
	if b, ok := t.Underlying().(*types.Basic); ok {
		switch {
		case b.Info()&types.IsBoolean != 0:
			return fmt.Sprintf("%s.Bool(bool(%s))", r, read)
		case b.Info()&types.IsUnsigned != 0:
			return fmt.Sprintf("%s.Uint(uint64(%s))", r, read)
		case b.Info()&types.IsInteger != 0:
			return fmt.Sprintf("%s.Int(int64(%s))", r, read)
		case b.Info()&types.IsFloat != 0:
			return fmt.Sprintf("%s.Float(float64(%s))", r, read)
		case b.Info()&types.IsString != 0:
			return fmt.Sprintf("%s.Str(string(%s))", r, read)
		}
	}
	if s, ok := t.Underlying().(*types.Slice); ok {
		if b, ok := s.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			return fmt.Sprintf("%s.Bytes([]byte(%s))", r, read)
		}
	}
	return fmt.Sprintf("%s.Value(%s)", r, read)
}
