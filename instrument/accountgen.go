package instrument

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// Memory accounts and liveness (seed 002, ASGMemProf; docs/MEMORY.md).
//
// An account set is the package patterns of an allocation-account atom
// (plan.Accounts numbers them). Every function of the module whose
// package a pattern of set k matches, function literals included,
// enters its account on entry and restores the one before on exit:
//
//	func Parse(b []byte) *Doc {
//		defer pmm__account1_0_2().Leave()   // AccountEnter(0, 2): set 0's second pattern (in the directory's first file)
//		...
//
// so the goroutine's account is always that of its innermost accounted
// frame, and an allocation site in an unaccounted package (an agent)
// reads it (rt.Account). A site in an accounted package is its own
// innermost accounted frame: its account is a constant. A goroutine
// starts with no account (0): the go statement's function, when
// accounted, enters its own.

// accountEntries writes the entry of every accounted function that
// calls something: a deferred Leave of a helper that enters the
// account. A function that calls nothing (an accessor) runs no other
// function's allocation site, and its own sites know their account: it
// enters none, and stays as cheap, and as inlinable, as written. Nor
// does one the call graph says reaches no site that reads the account
// (Options.Quiet, from cmd/pmm's accounts): the sites it reaches
// are of accounted packages, and write their own account, or of agents
// whose account the call graph knows (Options.Known), which write it.
func (g *generator) accountEntries() {
	if len(g.accounts) == 0 {
		return
	}
	paths := make([]string, 0, len(g.files))
	for path := range g.files {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	nth := map[string]int{} // files so far, by directory
	for _, path := range paths {
		fi := g.files[path]
		if rel, err := filepath.Rel(g.root, path); err != nil || strings.HasPrefix(rel, "..") || fi.tf == nil {
			continue // code cgo generates, which pmm does not rewrite
		}
		var sets [][2]int // the account sets its package is accounted in, and its pattern's index
		for k, set := range g.accounts {
			if patterns, err := spec.AccountPatterns(set); err == nil {
				if i := spec.AccountIndex(patterns, fi.pkg.PkgPath, fi.pkg.Name); i > 0 {
					sets = append(sets, [2]int{k, i})
				}
			}
		}
		if len(sets) == 0 {
			continue
		}
		// The functions that enter an account, and the sets each enters.
		type entry struct {
			body *ast.BlockStmt
			sets [][2]int
		}
		var entries []entry
		add := func(fn ast.Node, body *ast.BlockStmt) {
			if body == nil || !callsSomething(fi.pkg.TypesInfo, body) {
				return
			}
			e := entry{body: body}
			span := g.spanOf(path, fn)
			for _, ki := range sets {
				if !g.opt.Quiet[ki[0]][span] {
					e.sets = append(e.sets, ki)
				}
			}
			if len(e.sets) > 0 {
				entries = append(entries, e)
			}
		}
		ast.Inspect(fi.file, func(n ast.Node) bool {
			switch f := n.(type) {
			case *ast.FuncDecl:
				add(f, f.Body)
			case *ast.FuncLit:
				add(f, f.Body)
			}
			return true
		})
		if len(entries) == 0 {
			continue
		}
		// Helpers are declared per file, in its package: the file's
		// number in its directory keeps their names apart.
		dir := filepath.Dir(path)
		nth[dir]++
		h := g.helpers(fi)
		rt := h.Imports[g.rtPath]
		declared := map[[2]int]bool{}
		for _, e := range entries {
			text := ""
			for _, ki := range e.sets {
				name := fmt.Sprintf("%saccount%d_%d_%d", h.prefix, nth[dir], ki[0], ki[1])
				if !declared[ki] {
					declared[ki] = true
					h.Decls = append(h.Decls, fmt.Sprintf("func %s() %s.AccountCtx {\n\treturn %s.AccountEnter(%d, %d)\n}", name, rt, rt, ki[0], ki[1]))
				}
				text += "defer " + name + "().Leave();"
			}
			off := fi.tf.Offset(e.body.Lbrace) + 1
			g.code.Files[path] = append(g.code.Files[path], Edit{Off: off, End: off, Text: text, Order: orderAccount})
		}
	}
}

// spanOf is the span of function fn of the file at path as static.db
// writes it: from "func" to the closing brace, the file relative to the
// module root.
func (g *generator) spanOf(path string, fn ast.Node) static.Span {
	fi := g.files[path]
	p, q := fi.tf.Position(fn.Pos()), fi.tf.Position(fn.End())
	file := p.Filename
	if rel, err := filepath.Rel(g.root, file); err == nil {
		file = filepath.ToSlash(rel)
	}
	return static.Span{File: file, Line: p.Line, Col: p.Column, EndLine: q.Line, EndCol: q.Column}
}

// accountValue is the Go expression of the account an allocation of
// this site is charged to, under the patterns of an account set: a
// constant when the site's own package is accounted, else the account
// its goroutine entered last, by its index in the set.
func (sg *siteGen) accountValue(set string) (string, error) {
	patterns, err := spec.AccountPatterns(set)
	if err != nil {
		return "", err
	}
	if acc := spec.AccountOf(patterns, sg.fi.pkg.PkgPath, sg.fi.pkg.Name); acc != "" {
		return strconv.Quote(acc), nil
	}
	k := slices.Index(sg.g.accounts, set)
	if k < 0 {
		return "", fmt.Errorf("pmm bug: the account set %q is not the plan's", set)
	}
	if i, ok := sg.knownAccount(k); ok {
		return strconv.Quote(append([]string{""}, patterns...)[i]), nil
	}
	names := []string{`""`}
	for _, p := range patterns {
		names = append(names, strconv.Quote(p))
	}
	return fmt.Sprintf("[...]string{%s}[%s.Account(%d)]", strings.Join(names, ", "), sg.pc.Imports[sg.g.rtPath], k), nil
}

// knownAccount returns the account of set k under which every execution
// of the site's function runs, when the call graph tells it
// (Options.Known): the index of its pattern, 0 for none.
func (sg *siteGen) knownAccount(k int) (int, bool) {
	if sg.s.Kind != spec.SiteAllocation || sg.s.FuncID == 0 {
		return 0, false
	}
	i, ok := sg.g.opt.Known[k][sg.s.FuncID]
	return i, ok
}

// trackLive renders a tuple of allocation-live: the runtime keeps a
// weak pointer to the object (s.live, set by the allocation's helper)
// and writes the tuple when main returns, after a full collection
// (rt.TrackLive). The site counts the object open until then, so that
// a run that ends otherwise (os.Exit, a panic, a signal) says the
// answer is incomplete.
func (sg *siteGen) trackLive(rt, table string, t *plan.Target, e plan.Emit) []string {
	if sg.g.code.WaitEnd == nil {
		sg.g.code.WaitEnd = map[int][]int{}
	}
	if !slices.Contains(sg.g.code.WaitEnd[t.SiteID], e.QIndex) {
		sg.g.code.WaitEnd[t.SiteID] = append(sg.g.code.WaitEnd[t.SiteID], e.QIndex)
	}
	// One weak pointer for every question that asks, where no test
	// tells the questions apart; else one each.
	tables := []string{table}
	if len(t.Filters) == 0 {
		tables = nil
		for _, o := range t.Emits {
			if plan.FieldCaps(o.Fields, plan.CapID, plan.CapLive) {
				tables = append(tables, strconv.Itoa(int(o.Table.ID)))
			}
		}
		if tables[0] != table {
			return []string{"// tracked with " + tables[0] + ": " + e.Table.Name}
		}
	}
	name := sg.name("live") + "_" + table
	sg.decls = append(sg.decls, fmt.Sprintf("var %s = []uint16{%s}", name, strings.Join(tables, ", ")))
	return []string{fmt.Sprintf("%s.TrackLive(%s, s.id, %s, s.live) // %s", rt, name, sg.siteID(t), strings.Join(tableNames(t, tables), ", "))}
}

// tableNames are the names of the stored relations of t's tuples whose
// table numbers are tables.
func tableNames(t *plan.Target, tables []string) []string {
	var names []string
	for _, id := range tables {
		for _, e := range t.Emits {
			if strconv.Itoa(int(e.Table.ID)) == id && !slices.Contains(names, e.Table.Name) {
				names = append(names, e.Table.Name)
			}
		}
	}
	return names
}

// allocCells renders the cells of the aggregates cells at allocation
// site of target t (plan.AllocCells): a Cell per group the site can add
// to, made when the package is initialized, and the statements that add
// the allocation to its group's: the one of the account its goroutine
// is in, when the group has an account the site does not know (read
// once for all the cells). Questions whose groups are the same at the
// site, and that add the same value (or count), share their Cells: a
// count and a sum of the same allocations read the same cells, the
// count their count and the sum their sum (pmmrt.NewCell's tables),
// and an allocation is one addition for both.
func (sg *siteGen) allocCells(t *plan.Target, cells []*plan.AllocCells) (add, decls []string, err error) {
	rt := sg.pc.Imports[sg.g.rtPath]
	type shared struct {
		index  string   // the expression of the cell's index
		groups []string // each cell's group encoding, by index
		tables []string // the questions' cells tables
		value  string   // the value added, "" for a count
		name   string
	}
	var all []*shared
	read := map[string]bool{} // the accounts read once for the cells
	for _, ac := range cells {
		accounts := []string{""} // the account of each cell, by its index
		index := "0"
		for _, k := range ac.Group {
			if k.Account == "" {
				continue
			}
			patterns, err := spec.AccountPatterns(k.Account)
			if err != nil {
				return nil, nil, err
			}
			if acc := spec.AccountOf(patterns, sg.fi.pkg.PkgPath, sg.fi.pkg.Name); acc != "" {
				accounts = []string{acc}
				continue
			}
			set := slices.Index(sg.g.accounts, k.Account)
			if set < 0 {
				return nil, nil, fmt.Errorf("pmm bug: the account set %q is not the plan's", k.Account)
			}
			accounts = append(accounts, patterns...)
			if i, ok := sg.knownAccount(set); ok {
				index = strconv.Itoa(i)
				continue
			}
			index = "acc" + strconv.Itoa(set)
			if !read[index] {
				read[index] = true
				if sg.accountCached {
					add = append(add, fmt.Sprintf("%s := %s.AccountOnce(%d, %s)", index, rt, set, accountCache(set)))
					if !slices.Contains(sg.cachedSets, set) {
						sg.cachedSets = append(sg.cachedSets, set)
					}
				} else {
					add = append(add, fmt.Sprintf("%s := %s.Account(%d)", index, rt, set))
				}
			}
		}
		var groups []string
		for _, acc := range accounts {
			var group []string
			for _, k := range ac.Group {
				v := acc
				switch k.Known {
				case plan.KnownFunction:
					v = t.Function
				case plan.KnownKind:
					v = sg.s.Label
				case plan.KnownType:
					v = sg.s.Operand
				}
				group = append(group, "r.Str("+strconv.Quote(v)+")")
			}
			groups = append(groups, strings.Join(group, "; "))
		}
		value := ""
		if ac.Value != nil {
			value = sg.int64Of(ac.Value.Cap)
		}
		table := strconv.Itoa(int(ac.Table))
		i := slices.IndexFunc(all, func(c *shared) bool {
			return c.index == index && slices.Equal(c.groups, groups) && (c.value == "" || value == "" || c.value == value)
		})
		if i < 0 {
			all = append(all, &shared{index: index, groups: groups, name: sg.name("cells") + "q" + strconv.Itoa(ac.QIndex)})
			i = len(all) - 1
		}
		c := all[i]
		c.tables = append(c.tables, table)
		if value != "" {
			c.value = value
		}
	}
	for _, c := range all {
		var made []string
		for _, g := range c.groups {
			made = append(made, fmt.Sprintf("%s.NewCell(func(r *%s.Rec) { %s }, %s)", rt, rt, g, strings.Join(c.tables, ", ")))
		}
		decls = append(decls, fmt.Sprintf("var %s = [...]*%s.Cell{\n\t%s,\n}", c.name, rt, strings.Join(made, ",\n\t")))
		// Add, to the cell of the goroutine's P, rather than Count's
		// atomic add to the shared cell: a count adds 0.
		value := c.value
		if value == "" {
			value = "0"
		}
		add = append(add, fmt.Sprintf("%s[%s].Add(%s)", c.name, c.index, value))
	}
	return add, decls, nil
}

// accountCache is the name of the variable, local to an unaccounted
// function's body, through which its allocation sites read the
// goroutine's account of set k once per execution (pmmrt.AccountOnce);
// the sites' helpers take its address as a parameter of the same name.
func accountCache(k int) string { return "pmm__acct" + strconv.Itoa(k) }

// accountCacheKey is a function body (its file and the offset of its
// opening brace) and an account set whose cache it declares.
type accountCacheKey struct {
	file string
	at   int
	set  int
}

// accountCacheDecls declares, at the top of each function body whose
// generated allocation sites share an account read, its cache: -1, not
// read yet.
func (g *generator) accountCacheDecls() {
	keys := make([]accountCacheKey, 0, len(g.accountCaches))
	for k := range g.accountCaches {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		return a.file < b.file || a.file == b.file && (a.at < b.at || a.at == b.at && a.set < b.set)
	})
	for _, k := range keys {
		g.code.Files[k.file] = append(g.code.Files[k.file], Edit{Off: k.at, End: k.at, Text: "var " + accountCache(k.set) + " = -1;", Order: orderDefinition})
	}
}

// inRangeFuncBody reports whether the innermost node of path lies in
// the body of a range-over-func loop of its function: code that runs
// inside the iterator's execution, under the iterator's account if it
// is accounted.
func inRangeFuncBody(info *types.Info, path []ast.Node) bool {
	for i := len(path) - 1; i >= 0; i-- {
		switch n := path[i].(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return false
		case *ast.RangeStmt:
			if _, ok := info.TypeOf(n.X).Underlying().(*types.Signature); ok && i+1 < len(path) && path[i+1] == n.Body {
				return true
			}
		}
	}
	return false
}

// callsSomething reports whether body may run another function of the
// program: a call that is neither a conversion nor a builtin that runs
// no code of the program, or a range over a function (an iterator).
// Function literals written in body are functions of their own.
func callsSomething(info *types.Info, body *ast.BlockStmt) bool {
	calls := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if tv, ok := info.Types[n.Fun]; ok && tv.IsType() {
				return true // a conversion
			}
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() != "panic" {
					return true // len, append, make, new, copy, ...: no code of the program
				}
			}
			calls = true
		case *ast.RangeStmt:
			if _, ok := info.TypeOf(n.X).Underlying().(*types.Signature); ok {
				calls = true // an iterator function
			}
		}
		return !calls
	})
	return calls
}
