// Package static builds pmm's static-analysis database, static.db: the
// sites of a Go module (function definitions and call sites) and their
// relations (lexical containment, call-graph edges, reachability, go
// statements), and its allocation sites (with the compiler's escape
// analysis when Config.Escape), as SQLite tables and views that static approximation
// queries with SQL. docs/STATIC.md describes the schema.
//
// Build loads the packages with go/packages, builds SSA and a call graph
// (VTA by default) with golang.org/x/tools, and writes the database
// atomically. When no input changed since the last build, the existing
// database is reused without loading anything.
package static

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	gobuild "go/build"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Config says what to analyse and where to write the database.
type Config struct {
	Dir       string   // the directory patterns are relative to, inside the module
	Patterns  []string // package patterns; default "./..."
	Tests     bool     // include test files and test packages
	Tags      []string // build tags, passed to the go command as -tags
	CallGraph string   // VTA (default), CHA or Static
	Output    string   // the database file; default ROOT/.pmm/static.db
	Version   string   // the pmm version, recorded in meta
	// Escape runs the compiler's escape analysis on the module's packages
	// (a go build) to say which allocation sites allocate on the heap;
	// without it the allocations table's heap columns are NULL.
	Escape bool
}

// Result describes the database Build produced or reused.
type Result struct {
	Path       string // the database file
	Root       string // the module root directory
	Reused     bool   // the database was up to date and nothing was loaded
	Functions  int    // rows of the functions table
	Calls      int    // rows of the calls table
	ModulePath string
	// Fingerprint hashes everything the database depends on (sources,
	// go.mod, go.sum, configuration): what later stages may key their
	// own reuse on.
	Fingerprint string
}

// Build writes the static database for cfg, or reuses the existing one
// when its fingerprint (sources, go.mod, go.sum, configuration) matches.
// If a package fails to load or type-check, Build returns an error
// listing every package error and writes nothing.
func Build(ctx context.Context, cfg Config) (*Result, error) {
	if len(cfg.Patterns) == 0 {
		cfg.Patterns = []string{"./..."}
	}
	if cfg.CallGraph == "" {
		cfg.CallGraph = VTA
	}
	switch cfg.CallGraph {
	case VTA, CHA, Static:
	default:
		return nil, fmt.Errorf("unknown call-graph algorithm %q (want vta, cha or static)", cfg.CallGraph)
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	cfg.Dir = dir
	root, err := ModuleRoot(dir)
	if err != nil {
		return nil, err
	}
	mod, err := readGoMod(root)
	if err != nil {
		return nil, err
	}
	out := cfg.Output
	if out == "" {
		out = filepath.Join(root, ".pmm", "static.db")
	}
	res := &Result{Path: out, Root: root, ModulePath: mod.path}
	print, err := fingerprint(root, cfg)
	if err != nil {
		return nil, err
	}
	res.Fingerprint = print
	if counts, ok := reusable(ctx, out, print); ok {
		res.Reused, res.Functions, res.Calls = true, counts[0], counts[1]
		return res, nil
	}
	pkgs, err := load(ctx, root, cfg)
	if err != nil {
		return nil, err
	}
	c := newCollector(pkgs[0].Fset, root, mod.path)
	if cfg.Escape {
		c.exprs, c.boxed = map[lineCol]*exprAt{}, map[ast.Expr]bool{}
	}
	for _, pkg := range pkgs {
		c.addPackage(pkg)
	}
	graph, funcs, err := buildCallGraph(pkgs, cfg.CallGraph)
	if err != nil {
		return nil, err
	}
	if cfg.Escape {
		if err := c.escapes(ctx, cfg, pkgs); err != nil {
			return nil, err
		}
	}
	c.resolveStatic()
	c.markReached(funcs)
	c.texts = c.textMethods(funcs)
	c.addCallGraph(graph)
	c.addCallbacks(graph, funcs)
	meta := map[string]string{
		"module":       mod.path,
		"go_version":   mod.goVersion,
		"build_tags":   strings.Join(cfg.Tags, ","),
		"goflags":      os.Getenv("GOFLAGS"),
		"patterns":     strings.Join(cfg.Patterns, " "),
		"tests":        fmt.Sprint(cfg.Tests),
		"pmm_version":  cfg.Version,
		"callgraph":    cfg.CallGraph,
		"escape":       fmt.Sprint(cfg.Escape),
		"fingerprint":  print,
		"whole_module": fmt.Sprint(!c.partial && wholeModule(root, cfg, pkgs)),
	}
	if err := write(ctx, out, root, c, pkgs, meta); err != nil {
		return nil, err
	}
	res.Functions, res.Calls = len(c.functions), len(c.callList)
	return res, nil
}

// ModuleRoot returns the directory of the go.mod governing dir.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod in %s or any parent directory", dir)
		}
	}
}

// load loads the packages matching cfg's patterns with syntax and types;
// dependencies come from export data, as go vet does.
func load(ctx context.Context, root string, cfg Config) ([]*packages.Package, error) {
	lcfg := &packages.Config{
		Context: ctx,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
			packages.NeedImports | packages.NeedTypes | packages.NeedTypesSizes |
			packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule | packages.NeedForTest,
		Dir:   cfg.Dir,
		Tests: cfg.Tests,
	}
	if len(cfg.Tags) > 0 {
		lcfg.BuildFlags = []string{"-tags=" + strings.Join(cfg.Tags, ",")}
	}
	pkgs, err := LoadPackages(lcfg, cfg.Patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading packages: %v", err)
	}
	if err := packageErrors(root, pkgs); err != nil {
		return nil, err
	}
	pkgs = withoutDuplicateVariants(pkgs)
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no Go packages match %s", strings.Join(cfg.Patterns, " "))
	}
	return pkgs, nil
}

// PackageErrors is the error of packages that fail to load or type-check.
type PackageErrors struct {
	Errors []string // "file:line:col: message", relative to the module root
}

func (e *PackageErrors) Error() string {
	return "packages contain errors:\n\t" + strings.Join(e.Errors, "\n\t")
}

func packageErrors(root string, pkgs []*packages.Package) error {
	var list []string
	seen := map[string]bool{}
	var unplaced []packages.Error // errors without a position, with their package
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			if e.Pos == "" {
				e.Msg = p.PkgPath + ": " + e.Msg
				unplaced = append(unplaced, e)
				continue
			}
			pos := e.Pos
			if rel, err := filepath.Rel(root, pos); err == nil && !strings.HasPrefix(rel, "..") {
				pos = rel
			}
			if msg := pos + ": " + e.Msg; !seen[msg] {
				seen[msg] = true
				list = append(list, msg)
			}
		}
	})
	for _, e := range unplaced {
		if !seen[e.Msg] && !repeatsPlaced(e.Msg, seen) {
			seen[e.Msg] = true
			list = append(list, e.Msg)
		}
	}
	if len(list) == 0 {
		return nil
	}
	sort.Strings(list)
	return &PackageErrors{Errors: list}
}

// repeatsPlaced reports whether msg, an error without a position, is the
// go command's output of a failed compilation ("# pkg" and then
// "./file.go:line:col: message" lines) whose every located line is an
// error placed already (placed): the type checker's errors, which the go
// command prints again when it compiles the package.
func repeatsPlaced(msg string, placed map[string]bool) bool {
	_, out, ok := strings.Cut(msg, "# ")
	if !ok {
		return false
	}
	firstLines := map[string]bool{} // of the placed errors, whose details follow on lines of their own
	for m := range placed {
		first, _, _ := strings.Cut(m, "\n")
		firstLines[first] = true
	}
	lines := strings.Split(out, "\n")[1:] // after the "# pkg" line
	located := 0
	for _, line := range lines {
		if line == "" || strings.HasPrefix(line, "\t") {
			continue // a continuation of the line before
		}
		if !firstLines[strings.TrimPrefix(line, "./")] {
			return false
		}
		located++
	}
	return located > 0
}

// withoutDuplicateVariants keeps one variant of each package when tests
// are loaded: the package's own test variant (its files plus the _test.go
// files) if there is one, else the plain package. The copies of
// packages recompiled for another package's test and the generated test
// main packages are dropped.
func withoutDuplicateVariants(pkgs []*packages.Package) []*packages.Package {
	rank := func(p *packages.Package) int {
		switch {
		case p.ForTest == p.PkgPath && p.ForTest != "":
			return 2
		case p.ID == p.PkgPath:
			return 1
		}
		return 0
	}
	best := map[string]*packages.Package{}
	for _, p := range pkgs {
		if p.Name == "main" && strings.HasSuffix(p.PkgPath, ".test") {
			continue
		}
		if b := best[p.PkgPath]; b == nil || rank(p) > rank(b) {
			best[p.PkgPath] = p
		}
	}
	var out []*packages.Package
	for _, p := range pkgs {
		if best[p.PkgPath] == p {
			out = append(out, p)
		}
	}
	return out
}

// goMod is what Build needs from go.mod.
type goMod struct {
	path      string
	goVersion string
}

func readGoMod(root string) (goMod, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return goMod{}, err
	}
	var m goMod
	for _, line := range strings.Split(string(data), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		if len(fields) == 2 {
			switch fields[0] {
			case "module":
				m.path = strings.Trim(fields[1], `"`+"`")
			case "go":
				m.goVersion = fields[1]
			}
		}
	}
	if m.path == "" {
		return m, errors.New(filepath.Join(root, "go.mod") + ": no module directive")
	}
	return m, nil
}

// wholeModule reports whether the load holds, with its syntax, every
// package of the module that the build can have (a directory of the
// module whose Go files the build constraints of cfg's tags do not all
// exclude), and no workspace may add modules that import them: then the
// calls table holds every call of a function of the module from Go
// code, and a function that only those calls can call has no other
// callers (functions.hidden_callers).
func wholeModule(root string, cfg Config, pkgs []*packages.Package) bool {
	if os.Getenv("GOWORK") != "" && os.Getenv("GOWORK") != "off" {
		return false
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err == nil && os.Getenv("GOWORK") != "off" {
		return false
	}
	loaded := map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if len(p.Syntax) > 0 {
			for _, f := range p.GoFiles {
				loaded[filepath.Dir(f)] = true
			}
		}
	})
	ctxt := gobuild.Default
	ctxt.BuildTags = cfg.Tags
	whole := true
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !whole {
			whole = false
			return filepath.SkipAll
		}
		if !d.IsDir() {
			return nil
		}
		if path != root {
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		if loaded[path] {
			return nil
		}
		bp, err := ctxt.ImportDir(path, 0)
		var none *gobuild.NoGoError
		switch {
		case errors.As(err, &none):
			return nil // no Go file the build takes
		case err == nil && len(bp.GoFiles)+len(bp.CgoFiles) == 0 && !cfg.Tests:
			return nil // test files only, not loaded without tests (their calls are the tests')
		}
		whole = false
		return filepath.SkipAll
	})
	return whole
}
