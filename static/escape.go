package static

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
)

// lineCol is a position as the compiler's diagnostics give it.
type lineCol struct {
	file      string // absolute
	line, col int
}

// localVar is a variable declared in a function body or signature: if
// escape analysis moves it to the heap, it is an allocation site.
type localVar struct {
	v     *types.Var
	owner *function
	key   posKey
	where Span
	sizes types.Sizes
}

// escapes runs the compiler's escape analysis on the module's packages
// of cfg (go build with -gcflags=-m, and -json for the positions of
// inlined copies) and sets the heap columns of the allocation sites. It
// compiles the packages again, into a directory of its own: the flags
// name a new directory each time, so the build cache never answers
// without running the compiler. go build compiles no test file: where
// test files have sites (cfg.Tests), a second pass compiles the
// packages' test variants (go list -test -export, which compiles as go
// test does, without linking) and decides those sites from what it says
// of the test files.
func (c *collector) escapes(ctx context.Context, cfg Config, pkgs []*packages.Package) error {
	tmp, err := os.MkdirTemp("", "pmm-escape-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	c.inlinedCopies = map[*allocation]map[string]lineCol{}
	c.escapesAt = map[lineCol]bool{}
	// The loaded packages by import path (test packages are not built).
	// go build discards what it compiles for several packages; for one,
	// it writes a binary, which goes to the temporary directory.
	var paths, tested []string
	for _, p := range pkgs {
		// A package of test files only (go-toml's benchmark) is not
		// built: go build fails on it.
		built := slices.ContainsFunc(p.GoFiles, func(f string) bool { return !isTestFile(f) })
		if built && !strings.HasSuffix(p.PkgPath, "_test") && !slices.Contains(paths, p.PkgPath) {
			paths = append(paths, p.PkgPath)
		}
		if p.ForTest != "" && slices.ContainsFunc(p.GoFiles, isTestFile) && !slices.Contains(tested, p.ForTest) {
			tested = append(tested, p.ForTest)
		}
	}
	build := []string{"build"}
	if len(paths) == 1 {
		build = append(build, "-o", filepath.Join(tmp, "out"))
	}
	if len(paths) > 0 {
		out, jsonDir, err := c.compile(ctx, cfg, tmp, "build", build, paths)
		if err != nil {
			return err
		}
		if err := c.decide(out, jsonDir, cfg.Dir, func(p lineCol) bool { return !isTestFile(p.file) }); err != nil {
			return err
		}
	}
	// The test pass's: the test files, and the generic functions only
	// tests instantiate (the build compiled none of their code).
	inTestPass := func(p lineCol) bool {
		if isTestFile(p.file) {
			return true
		}
		if len(c.uncompiled) == 0 {
			return false
		}
		at := c.point(p)
		return slices.ContainsFunc(c.uncompiled, func(f *function) bool { return f.where.Contains(at) })
	}
	if len(tested) > 0 && slices.ContainsFunc(c.allocList, func(al *allocation) bool {
		return inTestPass(lineCol{al.key.file, al.where.Line, al.where.Col})
	}) {
		// go list -test -export compiles the test variants of the
		// packages, as go test does, without linking test binaries.
		out, jsonDir, err := c.compile(ctx, cfg, tmp, "test", []string{"list", "-test", "-export", "-f", "{{.ImportPath}}"}, tested)
		if err != nil {
			return err
		}
		if err := c.decide(out, jsonDir, cfg.Dir, inTestPass); err != nil {
			return err
		}
	}
	return nil
}

// isTestFile reports whether file is a test file, which go build does
// not compile.
func isTestFile(file string) bool { return strings.HasSuffix(file, "_test.go") }

// compile runs go (args, the build flags, paths) with the escape
// analysis's diagnostics on, text (returned) and -json (into a
// directory named after pass under tmp, returned).
func (c *collector) compile(ctx context.Context, cfg Config, tmp, pass string, args, paths []string) ([]byte, string, error) {
	jsonDir := filepath.Join(tmp, "json-"+pass)
	// -d=escapedebug=1 adds walk's "convert:" lines: the conversions to
	// an interface that take a global (a static or zero value) rather
	// than allocate, which escape analysis reports as escaping all the
	// same.
	flags := fmt.Sprintf("-gcflags=%s/...=-m -d=escapedebug=1 -json=0,file://%s", c.modulePath, filepath.ToSlash(jsonDir))
	args = append(slices.Clone(args), flags)
	if len(cfg.Tags) > 0 {
		args = append(args, "-tags="+strings.Join(cfg.Tags, ","))
	}
	args = append(args, paths...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = cfg.Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, "", fmt.Errorf("escape analysis (go %s): %v\n%s", strings.Join(args, " "), err, out.Bytes())
	}
	return out.Bytes(), jsonDir, nil
}

// decide sets the heap columns of the allocation sites at the positions
// inPass selects from one compilation's diagnostics: out, the text
// output of -m, and jsonDir, the -json output's (dir, the directory the
// compiler ran in). Only diagnostics there count (test files are
// compiled only with their package's test binary, once; the module's
// other files are decided by go build's pass), and the inlined copies
// there: a copy of another pass's site marks it heap_inlined.
func (c *collector) decide(out []byte, jsonDir, dir string, inPass func(lineCol) bool) error {
	at, others := sitesAt{}, sitesAt{} // this pass's sites, and those another pass decides
	for _, al := range c.allocList {
		p := lineCol{al.key.file, al.where.Line, al.where.Col}
		if !inPass(p) {
			others[p] = append(others[p], al)
			continue
		}
		at[p] = append(at[p], al)
		al.heap, al.heapInlined, al.inlinable = 0, 0, 0
		if al.kind == allocMakeChan || al.kind == allocMapAssign {
			// The compiler never puts a channel on the stack, nor what
			// the runtime allocates as a map grows.
			al.heap = 1
		}
	}
	// The functions the compiler may inline: "can inline F" at the line
	// of F's name (where "func" is), F without its package.
	inlinable := map[lineCol][]string{}
	inlinedCalls := map[lineCol][]string{} // "inlining call to F" at a call's "(", F without type arguments
	var fromGlobal []lineCol               // conversions to an interface that allocate nothing
	seen := map[diagAt]bool{}
	diagLines := map[string][]int{} // the lines of each file with a diagnostic
	// Where escape analysis decided about a compiled body: at its own
	// positions, or at a call that inlines a copy.
	var ownCopies []lineCol
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := diagLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		file := m[1]
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		p, msg := lineCol{filepath.Clean(file), line, col}, m[4]
		if !inPass(p) {
			continue
		}
		diagLines[p.file] = append(diagLines[p.file], p.line)
		if escapeVerdict(msg) {
			ownCopies = append(ownCopies, p)
		}
		switch {
		case strings.HasPrefix(msg, "inlining call to "):
			name, _, _ := strings.Cut(strings.TrimPrefix(msg, "inlining call to "), "[")
			inlinedCalls[p] = append(inlinedCalls[p], name)
		case strings.HasPrefix(msg, "can inline "):
			// A generic function's instantiations are named with their
			// type arguments (Keep[go.shape.int]).
			name, _, _ := strings.Cut(strings.TrimPrefix(msg, "can inline "), "[")
			at := lineCol{p.file, p.line, 0}
			inlinable[at] = append(inlinable[at], name)
		case strings.HasPrefix(msg, "convert: using global for interface value: "),
			strings.HasPrefix(msg, "convert: using global for zero value interface value: "):
			fromGlobal = append(fromGlobal, p)
		case strings.HasPrefix(msg, "moved to heap: "):
			if al := at.about(p, msg); al != nil {
				al.heap = 1
			} else if v := c.vars[p]; v != nil {
				al := c.variable(v.key, v.v, v.owner, v.where, v.sizes)
				if v.owner != nil && v.owner.generic && hasTypeParam(v.v.Type(), map[types.Type]bool{}) && !c.reassigned[v.v] {
					// Moved because a closure captures it by reference,
					// which the compiler does for an instantiation whose
					// type argument makes it over 128 bytes, by value
					// for the others: undecided.
					al.heap = -1
				}
				at[p] = []*allocation{al}
			}
		case strings.HasSuffix(msg, " escapes to heap"):
			al, again := at.about(p, msg), seen[diagAt{p, msg}]
			seen[diagAt{p, msg}] = true
			switch {
			case al == nil:
			case al.kind == allocVariadic && !strings.HasPrefix(msg, "... argument"),
				al.kind == allocAppend && !strings.HasPrefix(msg, "append "):
				// At the "(" of a variadic call or an append, the
				// others are the call's result converted to an
				// interface, or an inlined callee's allocations.
				al = nil
			case again:
				// The same text twice at a slice literal, a make, a
				// sum of strings: the value, converted to an interface.
				al = nil
			default:
				al.heap = 1
				continue
			}
			// In a generic function it may be another instantiation's
			// diagnostic: undecided where the syntax converts the value
			// to an interface, else none.
			e := c.exprs[p]
			generic := again && e != nil && e.owner != nil && e.owner.generic
			if generic && !c.boxed[ast.Unparen(e.expr)] {
				continue
			}
			if box := c.unknownEscape(p, msg); box != nil {
				if generic {
					box.heap = -1
				}
				at[p] = append(at[p], box)
			}
		}
	}
	// A conversion the compiler makes from a global allocates nothing.
	// At a call's "(" it may be an inlined callee's own conversion, told
	// by no diagnostic from the call's result converted: undecided.
	for _, p := range fromGlobal {
		for _, al := range at[p] {
			if al.kind != allocInterface {
				continue
			}
			if _, call := ast.Unparen(c.exprs[p].expr).(*ast.CallExpr); call {
				al.heap = -1
			} else {
				al.heap = 0
			}
		}
	}
	c.uncompiledGeneric(at, diagLines)
	if err := c.inlinedEscapes(jsonDir, at, others, inPass); err != nil {
		return err
	}
	canInline := func(o *function) int {
		if o == nil {
			return 0
		}
		names := inlinable[lineCol{filepath.Join(c.root, filepath.FromSlash(o.where.File)), o.where.Line, 0}]
		// The name without its package: main's is "main.F".
		short := strings.TrimPrefix(o.name, o.pkg+".")
		if short == o.name {
			short = strings.TrimPrefix(o.name, "main.")
		}
		short, _, _ = strings.Cut(short, "[") // a generic function's "F[...]"
		if slices.Contains(names, short) {
			return 1
		}
		return 0
	}
	for _, al := range slices.Concat(slices.Collect(maps.Values(at))...) {
		al.inlinable = canInline(al.owner)
	}
	c.inlinedOnly(at, ownCopies, canInline)
	c.inlinedIteratorCalls(inlinedCalls)
	return nil
}

// inlinedIterators are the iterators of the standard library whose only
// allocation is the closure they return, which calls only the loop's
// body: inlined into a range over it, with nothing escaping, a call of
// one allocates nothing (TestInlinedIteratorsAllocateNothing).
var inlinedIterators = []string{"slices.All", "slices.Values", "slices.Backward", "maps.All", "maps.Keys", "maps.Values"}

// inlinedIteratorCalls marks the calls of inlinedIterators the compiler
// inlines, with no escape through them (in any copy of the caller), as
// allocating nothing: code outside the module that runs no allocation
// an answer would miss.
func (c *collector) inlinedIteratorCalls(inlinedCalls map[lineCol][]string) {
	for _, site := range c.callList {
		fn := site.calleeFn
		if fn == nil || fn.Pkg() == nil {
			continue
		}
		name := fn.Pkg().Path() + "." + fn.Name()
		if slices.Contains(inlinedIterators, name) && slices.Contains(inlinedCalls[site.lparen], name) && !c.escapesAt[site.lparen] {
			site.allocatesNothing = true
		}
	}
}

// escapeVerdict reports whether msg, a diagnostic of -m, is escape
// analysis's decision about a value or a parameter of a compiled body.
func escapeVerdict(msg string) bool {
	return strings.HasSuffix(msg, " escapes to heap") || strings.HasSuffix(msg, " does not escape") ||
		strings.HasPrefix(msg, "moved to heap: ") || strings.HasPrefix(msg, "leaking param")
}

// uncompiledGeneric makes undecided the sites of the generic functions
// the build compiled no instantiation of: the compiler compiles a
// generic function's code only where a package instantiates it, so one
// instantiated only in test files (golang-lru's simplelru.NewLRU) or in
// other modules has no diagnostic at all, and its sites were taken as
// kept in the frame, and not recorded, silently. (A make of a channel and
// a map's growth are on the heap whatever escape analysis says.)
func (c *collector) uncompiledGeneric(at sitesAt, diagLines map[string][]int) {
	compiled := map[*function]bool{}
	for _, al := range slices.Concat(slices.Collect(maps.Values(at))...) {
		top := al.owner
		for top != nil && top.parent != nil {
			top = top.parent
		}
		if top == nil || !top.generic || al.kind == allocMakeChan || al.kind == allocMapAssign {
			continue
		}
		done, ok := compiled[top]
		if !ok {
			file := filepath.Join(c.root, filepath.FromSlash(top.where.File))
			done = slices.ContainsFunc(diagLines[file], func(l int) bool { return l >= top.where.Line && l <= top.where.EndLine })
			compiled[top] = done
		}
		if !done {
			al.heap, al.heapInlined = -1, -1
			if !slices.Contains(c.uncompiled, top) {
				c.uncompiled = append(c.uncompiled, top)
			}
		}
	}
}

// unknownEscape is the site of an escape to the heap the compiler
// reports at p, where no known site is: a value converted to an
// interface, or a method value, if an expression of a function of the
// module is at p. At a call's "(" it is the call's result converted,
// when msg names the call ("f(x) escapes to heap") or, inlined, its
// result ("~r0 escapes to heap"); an allocation inside an inlined
// callee is reported there too, under the callee's own text.
func (c *collector) unknownEscape(p lineCol, msg string) *allocation {
	e := c.exprs[p]
	if e == nil || e.owner == nil || strings.HasPrefix(msg, "... argument") {
		return nil
	}
	if call, ok := e.expr.(*ast.CallExpr); ok && len(call.Args) == 1 && strings.HasPrefix(msg, ".autotmp_") {
		// f(g()): g's results converted to f's interface parameters,
		// each a temporary named at f's "(".
		if results, ok := e.info.TypeOf(call.Args[0]).(*types.Tuple); ok {
			return c.resultsBoxed(e, call.Args[0], results)
		}
	}
	if call, ok := e.expr.(*ast.CallExpr); ok && !strings.HasPrefix(msg, types.ExprString(call.Fun)+"(") && !strings.HasPrefix(msg, "~r") {
		return nil // not the call's result, named so, or an inlined callee's ~r0
	}
	kind := allocInterface
	if sel, ok := e.expr.(*ast.SelectorExpr); ok {
		if s := e.info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			kind = allocMethodValue
		}
	}
	if kind == allocInterface && BoxedBy(e.sizes, e.info.TypeOf(e.expr)) == "" {
		return nil
	}
	k := c.key(e.expr.Pos())
	if c.allocs[k] != nil {
		return nil
	}
	e.owner.used = true
	al := &allocation{
		key: k, owner: e.owner, where: c.span(e.expr.Pos(), e.expr.End()), kind: kind,
		typ: typeString(e.info.TypeOf(e.expr)), elements: -1, bytes: -1, heap: 1, heapInlined: 0, inlinable: -1,
	}
	c.allocs[k] = al
	c.allocList = append(c.allocList, al)
	return al
}

// resultsBoxed is the site of the values of g's results that f(g())
// converts to interfaces on the heap, one site for all of them at g()
// (the compiler names each by a temporary at f's "("), of g's results'
// type.
func (c *collector) resultsBoxed(e *exprAt, g ast.Expr, results *types.Tuple) *allocation {
	k := c.key(g.Pos())
	if c.allocs[k] != nil {
		return nil // the site of another of its results
	}
	e.owner.used = true
	al := &allocation{
		key: k, owner: e.owner, where: c.span(g.Pos(), g.End()), kind: allocInterface,
		typ: typeString(results), elements: -1, bytes: -1, heap: 1, heapInlined: 0, inlinable: -1,
	}
	c.allocs[k] = al
	c.allocList = append(c.allocList, al)
	return al
}

// BoxedBy is the runtime function that allocates the value of type t
// converted to an interface (cmd/compile's walk.dataWord and
// dataWordFuncName), or "" when the conversion never allocates: a
// pointer-shaped value (the interface holds it), a zero-size one
// (runtime.zerobase), a bool or one-byte integer alone in its type
// (runtime.staticuint64s). convT16, convT32 and convT64 allocate
// nothing for a value under 256 either, convTstring for "" and
// convTslice for a nil slice. A type whose layout depends on a type
// parameter is "convT": its instantiations decide.
func BoxedBy(sizes types.Sizes, t types.Type) string {
	if LayoutHasTypeParam(t) {
		return "convT"
	}
	size := sizes.Sizeof(t)
	if size == 0 || directInterface(t) {
		return ""
	}
	sole := soleComponent(t)
	if b, ok := sole.Underlying().(*types.Basic); ok && (b.Info()&types.IsBoolean != 0 || b.Info()&types.IsInteger != 0 && size == 1) {
		return ""
	}
	align, pointers := sizes.Alignof(t), HasPointers(t)
	switch {
	case size == 2 && align == 2:
		return "convT16"
	case size == 4 && align == 4 && !pointers:
		return "convT32"
	case size == 8 && align == 8 && !pointers:
		return "convT64"
	}
	switch u := sole.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsString != 0 {
			return "convTstring"
		}
	case *types.Slice:
		return "convTslice"
	}
	if pointers {
		return "convT"
	}
	return "convTnoptr"
}

// soleComponent is the one component of t, through structs of one field
// and arrays of one element (cmd/compile's Type.SoleComponent), or t.
func soleComponent(t types.Type) types.Type {
	switch u := t.Underlying().(type) {
	case *types.Struct:
		if u.NumFields() == 1 {
			return soleComponent(u.Field(0).Type())
		}
	case *types.Array:
		if u.Len() == 1 {
			return soleComponent(u.Elem())
		}
	}
	return t
}

// directInterface reports whether an interface holds a value of type t
// in its data word (cmd/compile's types.IsDirectIface): a pointer, a
// map, a channel, a function, an unsafe.Pointer, or a struct or array
// of one such component.
func directInterface(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Map, *types.Chan, *types.Signature:
		return true
	case *types.Basic:
		return u.Kind() == types.UnsafePointer
	case *types.Struct:
		return u.NumFields() == 1 && directInterface(u.Field(0).Type())
	case *types.Array:
		return u.Len() == 1 && directInterface(u.Elem())
	}
	return false
}

// sitesAt are the allocation sites at each position the compiler names:
// one, or a conversion and the append it converts.
type sitesAt map[lineCol][]*allocation

// about is the site at p that diagnostic msg is about: at a conversion
// of an append, the append's begin "append ".
func (at sitesAt) about(p lineCol, msg string) *allocation {
	// A range over a function is decided by the -json diagnostics only
	// (c.loopEscapes): at its for, the compiler also names the copies
	// of the body inlined there.
	sites := slices.DeleteFunc(slices.Clone(at[p]), func(al *allocation) bool { return al.kind == allocRangeFunc })
	if len(sites) == 1 {
		return sites[0]
	}
	for _, al := range sites {
		if (al.kind == allocAppend) == strings.HasPrefix(msg, "append ") {
			return al
		}
	}
	return nil
}

// diagAt is a diagnostic's text at a position.
type diagAt struct {
	p   lineCol
	msg string
}

// diagLine is a line of the compiler's -m output.
var diagLine = regexp.MustCompile(`^(.+\.go):(\d+):(\d+): (.*)$`)

// inlinedEscapes reads the -json diagnostics: an escape in a copy of a
// function inlined elsewhere is reported at the call, with the
// allocation's own position last among its "inlineLoc" locations (the
// text output names only the call), and the calls that inlined it
// before. It sets heapInlined of the sites so named, making the sites
// the text output could not (a variable moved, a value converted to an
// interface, in a copy only), and counts each site's inlined copies that
// escape. It decides the ranges over functions (loopEscapes).
func (c *collector) inlinedEscapes(dir string, at, others sitesAt, inPass func(lineCol) bool) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := bytes.Split(data, []byte("\n"))
		var header struct {
			File string `json:"file"`
		}
		if len(lines) == 0 || json.Unmarshal(lines[0], &header) != nil || header.File == "" {
			return nil
		}
		for _, line := range lines[1:] {
			var diag compilerDiag
			// "escape" where solving the flows finds it, "escapes" where
			// building them does (a store to a global): the same verdict.
			if json.Unmarshal(line, &diag) != nil || diag.Code != "escape" && diag.Code != "escapes" || !strings.HasSuffix(diag.Message, " escapes to heap") {
				continue
			}
			// The positions from the outermost call to the allocation.
			chain := []lineCol{diagLocation{URI: "file://" + filepath.ToSlash(header.File), Range: diag.Range}.lineCol()}
			for _, rel := range diag.Related {
				if rel.Message != "inlineLoc" {
					break // the flows that explain it follow, each with its own
				}
				chain = append(chain, rel.Location.lineCol())
			}
			if !inPass(chain[0]) {
				continue // another pass's
			}
			for _, p := range chain {
				c.escapesAt[p] = true
			}
			c.loopEscapes(chain)
			if len(chain) == 1 {
				continue // of a body's own copy: the text said it
			}
			var al *allocation
			if last := chain[len(chain)-1]; inPass(last) {
				al = c.inlinedSite(at, last, diag.Message)
			} else {
				// A copy, in this pass's code, of a site another pass
				// decided (a test inlining the module's function): it
				// escapes there.
				al = others.about(last, diag.Message)
			}
			if al == nil {
				continue
			}
			al.heapInlined = 1
			if c.inlinedCopies[al] == nil {
				c.inlinedCopies[al] = map[string]lineCol{}
			}
			c.inlinedCopies[al][fmt.Sprint(chain[:len(chain)-1])] = chain[0]
		}
		return nil
	})
}

// inlinedSite is the site at p that msg is about, in an inlined copy:
// one the text output named at p, else a variable moved to the heap or
// a value converted to an interface, which the text output named only
// at the call. Those are made on the stack in their own body (heap 0):
// inlinedOnly decides where that body is not compiled.
func (c *collector) inlinedSite(at sitesAt, p lineCol, msg string) *allocation {
	if al := at.about(p, msg); al != nil {
		return al
	}
	if len(at[p]) > 0 {
		return nil // another site of the same position
	}
	if v := c.vars[p]; v != nil && msg == v.v.Name()+" escapes to heap" {
		if al := c.allocs[v.key]; al != nil {
			return al
		}
		al := c.variable(v.key, v.v, v.owner, v.where, v.sizes)
		al.heap = 0
		if v.owner != nil && v.owner.generic && hasTypeParam(v.v.Type(), map[types.Type]bool{}) && !c.reassigned[v.v] {
			al.heap = -1 // as for the text's "moved to heap": undecided
		}
		at[p] = []*allocation{al}
		return al
	}
	if e := c.exprs[p]; e != nil && e.owner != nil && e.owner.generic {
		return nil // maybe another instantiation's: the text output decides
	}
	box := c.unknownEscape(p, msg)
	if box != nil {
		box.heap = 0
		at[p] = append(at[p], box)
	}
	return box
}

// loopEscapes decides the ranges over functions from one escape's chain
// of positions (outermost first): the loop allocates on the heap itself
// (its body's closure, its state, an inlined iterator's variables) when
// the chain passes its for and does not go on into its body. In the
// loop's own function's compiled body it is heap, in a copy of that
// function inlined elsewhere heap_inlined.
func (c *collector) loopEscapes(chain []lineCol) {
	for _, b := range c.bodies {
		if b.loop == nil {
			continue
		}
		at := b.loop.where
		i := slices.IndexFunc(chain, func(p lineCol) bool {
			return c.relative(p.file) == at.File && p.line == at.Line && p.col == at.Col
		})
		if i < 0 || i+1 < len(chain) && b.contains(c.point(chain[len(chain)-1])) {
			continue
		}
		if i == 0 {
			b.loop.heap = 1
		} else {
			b.loop.heapInlined = 1
		}
	}
}

// point is the empty span at p.
func (c *collector) point(p lineCol) Span {
	return Span{c.relative(p.file), p.line, p.col, p.line, p.col}
}

// inlinedOnly decides the sites of closure bodies the compiler did not
// compile on their own, having inlined them at every call: a literal
// called where it is written, a loop's body whose iterator is inlined.
// Their sites have no diagnostic at their own positions (heap 0); they
// allocate on the heap where their inlined copies do (heap_inlined 1).
// A body is compiled on its own when escape analysis decided about some
// position in it but not in a body nested in it. Only the copies in the
// body of the declared function around the site count: the
// instrumented program keeps that function from being inlined
// (instrument's //go:noinline), so they are the copies it runs. A site
// is decided when it escapes in as many of them as any other site of its
// body does (a copy that keeps it on the stack is not in the -json
// output); those copies are the declared function's, which the plain
// program may inline into callers where they stay on the stack:
// inlinable is that function's. A loop whose iterator may be the module's own code is
// taken as on the heap: the instrumented program may compile it
// otherwise (keep the iterator from being inlined).
func (c *collector) inlinedOnly(at sitesAt, ownCopies []lineCol, canInline func(*function) int) {
	innermost := func(s Span) *closureBody {
		var in *closureBody
		for _, b := range c.bodies {
			if b.contains(s) && (in == nil || in.where.Contains(b.where)) {
				in = b
			}
		}
		return in
	}
	compiled := map[*closureBody]bool{}
	for _, p := range ownCopies {
		if b := innermost(c.point(p)); b != nil {
			compiled[b] = true
		}
	}
	declared := func(al *allocation) *function {
		top := al.owner
		for top != nil && top.parent != nil {
			top = top.parent
		}
		return top
	}
	// The copies of each site in its declared function's own body.
	ownBody := func(al *allocation) int {
		top := declared(al)
		n := 0
		for _, outer := range c.inlinedCopies[al] {
			if top != nil && top.where.Contains(c.point(outer)) {
				n++
			}
		}
		return n
	}
	most := map[*closureBody]int{}
	sites := slices.Concat(slices.Collect(maps.Values(at))...)
	for _, al := range sites {
		if b := innermost(al.where); b != nil {
			most[b] = max(most[b], ownBody(al))
		}
	}
	for _, al := range sites {
		if al.heap != 0 || al.heapInlined != 1 || al.kind == allocRangeFunc {
			continue
		}
		if b := innermost(al.where); b != nil && !compiled[b] && ownBody(al) > 0 && ownBody(al) == most[b] {
			al.heap, al.inlinable = 1, canInline(declared(al))
		}
	}
	for _, b := range c.bodies {
		if b.loop != nil && b.iteratorInModule {
			b.loop.heap = 1
		}
	}
}

// compilerDiag is one line of the compiler's -json output (LSP
// diagnostics; lines and characters as the text output counts them).
type compilerDiag struct {
	Range   diagRange `json:"range"`
	Code    string    `json:"code"`
	Message string    `json:"message"`
	Related []struct {
		Location diagLocation `json:"location"`
		Message  string       `json:"message"`
	} `json:"relatedInformation"`
}

type diagLocation struct {
	URI   string    `json:"uri"`
	Range diagRange `json:"range"`
}

type diagRange struct {
	Start struct {
		Line      int `json:"line"`
		Character int `json:"character"`
	} `json:"start"`
}

func (l diagLocation) lineCol() lineCol {
	file := strings.TrimPrefix(l.URI, "file://")
	return lineCol{filepath.Clean(filepath.FromSlash(file)), l.Range.Start.Line, l.Range.Start.Character}
}
