package static

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// Loading without compiling the module. packages.Load with NeedTypes
// runs `go list -export`, which compiles every package it lists to
// export data, the packages it then type-checks from source as well: after
// a change, the module's packages are compiled for nothing (most of what
// `go vet` does too), before pmm's own analysis can start. LoadPackages
// asks the go command only for the packages' files and imports, and for
// export data of the packages the loaded ones import (the standard
// library and other modules, unchanged and in the build cache), and
// type-checks the loaded packages from source itself, as packages.Load
// would: the packages it returns are the ones packages.Load returns,
// each field as it sets it.

// LoadPackages is packages.Load(cfg, patterns...) for a cfg that asks
// for types and syntax (NeedTypes, NeedSyntax and NeedTypesInfo, without
// NeedDeps), without compiling the packages it type-checks from
// source. With another cfg, or where the loaded packages' imports are
// not all outside them (a package it does not load from source imports
// one it does), it is packages.Load.
func LoadPackages(cfg *packages.Config, patterns ...string) ([]*packages.Package, error) {
	const typed = packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo
	if cfg.Mode&typed != typed || cfg.Mode&packages.NeedDeps != 0 || cfg.ParseFile != nil || len(cfg.Overlay) > 0 {
		return packages.Load(cfg, patterns...)
	}
	meta := *cfg
	meta.Mode = cfg.Mode&^(typed|packages.NeedExportFile) | packages.NeedImports | packages.NeedDeps | packages.NeedCompiledGoFiles | packages.NeedModule
	if meta.Fset == nil {
		meta.Fset = token.NewFileSet()
	}
	roots, err := packages.Load(&meta, patterns...)
	if err != nil {
		return nil, err
	}
	isRoot := map[*packages.Package]bool{}
	for _, p := range roots {
		isRoot[p] = true
	}
	// The packages outside the roots that the roots import directly:
	// their types come from export data.
	var external []string
	seen := map[string]bool{}
	fallback := false
	packages.Visit(roots, nil, func(p *packages.Package) {
		if isRoot[p] {
			for _, imp := range p.Imports {
				if !isRoot[imp] && !seen[imp.ID] {
					seen[imp.ID] = true
					external = append(external, imp.ID)
				}
			}
			return
		}
		if strings.Contains(p.ID, " ") {
			fallback = true // a test variant outside the roots
		}
		for _, imp := range p.Imports {
			if isRoot[imp] {
				fallback = true // export data would refer to a package typed from source
			}
		}
	})
	if fallback {
		return packages.Load(cfg, patterns...)
	}
	exported := map[string]*packages.Package{}
	if len(external) > 0 {
		ext := *cfg
		ext.Mode = packages.NeedName | packages.NeedTypes | packages.NeedImports | packages.NeedTypesSizes
		ext.Fset = meta.Fset
		ext.Tests = false
		epkgs, err := packages.Load(&ext, external...)
		if err != nil {
			return nil, err
		}
		packages.Visit(epkgs, nil, func(p *packages.Package) { exported[p.ID] = p })
	}
	// The packages outside the roots take the types of export data (of
	// the direct imports complete, of the others what they refer to),
	// and their errors.
	packages.Visit(roots, nil, func(p *packages.Package) {
		if isRoot[p] {
			return
		}
		if e := exported[p.ID]; e != nil {
			p.Types, p.TypesSizes, p.IllTyped = e.Types, e.TypesSizes, e.IllTyped
			p.Errors = append(p.Errors, e.Errors...)
		}
	})
	l := &sourceLoader{cfg: cfg, fset: meta.Fset, isRoot: isRoot, done: map[*packages.Package]chan struct{}{}, parsed: map[string]*parsedFile{}}
	for p := range isRoot {
		l.done[p] = make(chan struct{})
	}
	l.cpu = make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for p := range isRoot {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.check(p)
		}()
	}
	wg.Wait()
	if cfg.Context != nil && cfg.Context.Err() != nil {
		return nil, cfg.Context.Err()
	}
	packages.Visit(roots, nil, func(p *packages.Package) { p.Fset = meta.Fset })
	return roots, nil
}

// sourceLoader type-checks the roots of a load from source.
type sourceLoader struct {
	cfg    *packages.Config
	fset   *token.FileSet
	isRoot map[*packages.Package]bool
	done   map[*packages.Package]chan struct{} // closed when the root is checked
	cpu    chan struct{}                       // a token per type-checking goroutine at work

	mu     sync.Mutex
	parsed map[string]*parsedFile // by file name: test variants share a file's syntax, as packages.Load's
}

type parsedFile struct {
	once sync.Once
	file *ast.File
	err  error
}

// parse parses a file once.
func (l *sourceLoader) parse(name string) (*ast.File, error) {
	l.mu.Lock()
	pf := l.parsed[name]
	if pf == nil {
		pf = &parsedFile{}
		l.parsed[name] = pf
	}
	l.mu.Unlock()
	pf.once.Do(func() {
		src, err := os.ReadFile(name)
		if err != nil {
			pf.err = err
			return
		}
		pf.file, pf.err = parser.ParseFile(l.fset, name, src, parser.AllErrors|parser.ParseComments)
	})
	return pf.file, pf.err
}

// check type-checks root p after the roots it imports, as packages.Load
// does (its loadPackage): the same errors, in the same form.
func (l *sourceLoader) check(p *packages.Package) {
	defer close(l.done[p])
	for _, imp := range p.Imports {
		if l.isRoot[imp] {
			<-l.done[imp]
		}
	}
	appendError := func(err error) {
		var list scanner.ErrorList
		var terr types.Error
		var perr *os.PathError
		switch {
		case errors.As(err, &list):
			for _, e := range list {
				p.Errors = append(p.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
			}
		case errors.As(err, &terr):
			p.TypeErrors = append(p.TypeErrors, terr)
			p.Errors = append(p.Errors, packages.Error{Pos: terr.Fset.Position(terr.Pos).String(), Msg: terr.Msg, Kind: packages.TypeError})
		case errors.As(err, &perr):
			p.Errors = append(p.Errors, packages.Error{Pos: perr.Path + ":1", Msg: perr.Err.Error(), Kind: packages.ParseError})
		default:
			p.Errors = append(p.Errors, packages.Error{Pos: "-", Msg: err.Error(), Kind: packages.UnknownError})
		}
	}
	if p.Types == nil {
		p.Types = types.NewPackage(p.PkgPath, p.Name)
	}
	for _, name := range p.CompiledGoFiles {
		f, err := l.parse(name)
		if f != nil {
			p.Syntax = append(p.Syntax, f)
		}
		if err != nil {
			appendError(err)
		}
	}
	p.TypesInfo = &types.Info{
		Types:        make(map[ast.Expr]types.TypeAndValue),
		Defs:         make(map[*ast.Ident]types.Object),
		Uses:         make(map[*ast.Ident]types.Object),
		Implicits:    make(map[ast.Node]types.Object),
		Instances:    make(map[*ast.Ident]types.Instance),
		Scopes:       make(map[ast.Node]*types.Scope),
		Selections:   make(map[*ast.SelectorExpr]*types.Selection),
		FileVersions: make(map[*ast.File]string),
	}
	if l.cfg.Context != nil && l.cfg.Context.Err() != nil {
		return
	}
	tc := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			imp := p.Imports[path]
			if imp == nil {
				return nil, fmt.Errorf("no metadata for %s", path)
			}
			if imp.Types == nil || !imp.Types.Complete() {
				return nil, fmt.Errorf("could not import %s: no export data", path)
			}
			return imp.Types, nil
		}),
		Error: appendError,
		Sizes: p.TypesSizes,
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		tc.GoVersion = "go" + p.Module.GoVersion
	}
	l.cpu <- struct{}{}
	typErr := types.NewChecker(tc, l.fset, p.Types, p.TypesInfo).Files(p.Syntax)
	<-l.cpu
	if typErr != nil && len(p.Errors) == 0 {
		appendError(typErr)
	}
	ill := len(p.Errors) > 0
	for _, imp := range p.Imports {
		ill = ill || imp.IllTyped
	}
	p.IllTyped = ill
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
