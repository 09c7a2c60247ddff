package static

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"pmm.dev/pmm/internal/funcname"
)

// write writes the database to a temporary file next to out and renames
// it, so that readers see the old database or the new one, never a part.
func write(ctx context.Context, out, root string, c *collector, pkgs []*packages.Package, meta map[string]string) error {
	dir := filepath.Dir(out)
	if err := ensureDir(dir, root); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".static-*.db")
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpName) // a no-op after the rename
	if err := fill(ctx, tmpName, root, c, pkgs, meta); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	return os.Rename(tmpName, out)
}

// ensureDir creates dir; when it is ROOT/.pmm it gets a .gitignore, so
// that nothing pmm writes is committed by accident.
func ensureDir(dir, root string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if dir != filepath.Join(root, ".pmm") {
		return nil
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(ignore); os.IsNotExist(err) {
		return os.WriteFile(ignore, []byte("*\n"), 0o644)
	}
	return nil
}

func fill(ctx context.Context, path, root string, c *collector, pkgs []*packages.Package, meta map[string]string) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	// The file is private until renamed: no journal is needed.
	for _, pragma := range []string{"PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF"} {
		if _, err := db.ExecContext(ctx, pragma); err != nil {
			return err
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return err
	}
	c.number()
	ins := inserter{ctx: ctx, tx: tx}
	for _, k := range sortedKeys(meta) {
		ins.row("INSERT INTO meta VALUES (?, ?)", k, meta[k])
	}
	files, err := fileHashes(root, pkgs)
	if err != nil {
		return err
	}
	for i, f := range files {
		ins.row("INSERT INTO files VALUES (?, ?, ?)", i+1, f[0], f[1])
	}
	for _, f := range c.functions {
		var file, line, col, endLine, endCol any
		if w := f.where; w.File != "" { // package initializers have no position
			file, line, col, endLine, endCol = w.File, w.Line, w.Col, w.EndLine, w.EndCol
		}
		var reached, hidden any // known for the module's definitions only
		if f.inModule && f.defined {
			reached, hidden = f.reached, f.hidden
		}
		ins.row("INSERT INTO functions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			f.id, f.name, funcname.Key(f.name), f.pkg, nullable(f.recv), f.base, f.kind,
			f.generic, f.exported, f.inModule, f.defined, file, line, col, endLine, endCol, idOf(f.parent), reached, hidden)
		depth := 1
		for outer := f.parent; outer != nil; outer = outer.parent {
			ins.row("INSERT INTO contains_static VALUES (?, ?, ?)", outer.id, f.id, depth)
			depth++
		}
	}
	for i, r := range c.sortedRegions() {
		w := r.where
		ins.row("INSERT INTO regions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			i+1, idOf(r.owner), r.label, r.kind, r.loop, w.File, w.Line, w.Col, w.EndLine, w.EndCol)
	}
	for _, t := range c.texts {
		ins.row("INSERT INTO text_methods VALUES (?, ?, ?, ?, ?, ?)", t.pkg, t.pkgName, t.name, t.pointer, t.method, nullable(t.why))
	}
	sort.Slice(c.blocking, func(i, j int) bool { return c.blocking[i].where.Less(c.blocking[j].where) })
	for i, b := range c.blocking {
		w := b.where
		ins.row("INSERT INTO blocking VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			i+1, idOf(b.owner), string(b.op.Kind), b.op.Text, b.op.Stmt, w.File, w.Line, w.Col, w.EndLine, w.EndCol)
	}
	sets := callbackSets{byParts: map[string]int{}, byMembers: map[string]int{}}
	memo := map[*types.Func]bool{}
	mayRun := func(m *types.Func) bool { return c.mayRunInModule(m, memo) }
	for _, site := range c.callList {
		var callee any
		if site.callee != nil {
			callee = site.callee.name
		}
		w := site.where
		ins.row("INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			site.id, idOf(site.caller), w.File, w.Line, w.Col, w.EndLine, w.EndCol,
			site.kind, site.via, callee, idOf(site.callee), nullable(site.method), site.external(mayRun), site.loops, site.allocates())
		for _, t := range sortedTargets(site.targets) {
			ins.row("INSERT INTO call_targets VALUES (?, ?, ?)", site.id, t.name, t.id)
		}
		for _, t := range sortedTargets(site.callbacks) {
			ins.row("INSERT INTO callback_targets VALUES (?, ?, ?, ?)", site.id, t.name, t.id, site.callbacks[t])
		}
		if len(site.lost) > 0 {
			id, members := sets.of(site.lost)
			for _, f := range members {
				ins.row("INSERT INTO callback_set_members VALUES (?, ?)", id, f.id)
			}
			ins.row("INSERT INTO callback_sets VALUES (?, ?)", site.id, id)
		}
	}
	for _, al := range c.allocList {
		w := al.where
		ins.row("INSERT INTO allocations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			al.id, idOf(al.owner), w.File, w.Line, w.Col, w.EndLine, w.EndCol, al.kind, al.typ,
			nullable(al.elemType), known(al.elements), known(al.bytes), known(int64(al.heap)), known(int64(al.heapInlined)), known(int64(al.inlinable)))
	}
	if ins.err != nil {
		return ins.err
	}
	return tx.Commit()
}

// callbackSets numbers the distinct unions of the funcSets of calls, in
// the order of the calls, so that the same source gives the same ids.
type callbackSets struct {
	byParts   map[string]int // the sorted ids of the funcSets → set id
	byMembers map[string]int // the sorted ids of the members → set id
}

// of returns the id of the union of parts, and its members when the
// union is new (nil when it was returned before).
func (cs *callbackSets) of(parts map[*funcSet]bool) (int, []*function) {
	var ids []int
	for p := range parts {
		ids = append(ids, p.id)
	}
	sort.Ints(ids)
	partsKey := fmt.Sprint(ids)
	if id, ok := cs.byParts[partsKey]; ok {
		return id, nil
	}
	union := map[*function]bool{}
	for p := range parts {
		for f := range p.funcs {
			union[f] = true
		}
	}
	members := sortedTargets(union)
	var b strings.Builder
	for _, f := range members {
		fmt.Fprintf(&b, "%d,", f.id)
	}
	id, ok := cs.byMembers[b.String()]
	if ok {
		members = nil
	} else {
		id = len(cs.byMembers) + 1
		cs.byMembers[b.String()] = id
	}
	cs.byParts[partsKey] = id
	return id, members
}

// inserter runs inserts, keeping the first error so that the caller can
// write a sequence of rows and check once.
type inserter struct {
	ctx   context.Context
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	err   error
}

func (in *inserter) row(query string, args ...any) {
	if in.err != nil {
		return
	}
	stmt := in.stmts[query]
	if stmt == nil {
		if stmt, in.err = in.tx.PrepareContext(in.ctx, query); in.err != nil {
			return
		}
		if in.stmts == nil {
			in.stmts = map[string]*sql.Stmt{}
		}
		in.stmts[query] = stmt
	}
	_, in.err = stmt.ExecContext(in.ctx, args...)
}

// number gives functions and calls their ids: definitions by position,
// then the functions outside the loaded packages by name; calls by
// position. The same source gives the same ids run after run.
func (c *collector) number() {
	sort.SliceStable(c.functions, func(i, j int) bool {
		a, b := c.functions[i], c.functions[j]
		if a.defined != b.defined {
			return a.defined
		}
		if a.where != b.where {
			return a.where.Less(b.where)
		}
		return a.name < b.name
	})
	for i, f := range c.functions {
		f.id = i + 1
	}
	byPosition(c.callList, func(site *call) (Span, posKey) { return site.where, site.key })
	for i, site := range c.callList {
		site.id = i + 1
	}
	byPosition(c.allocList, func(al *allocation) (Span, posKey) { return al.where, al.key })
	for i, al := range c.allocList {
		al.id = i + 1
	}
}

// byPosition sorts sites by their span, then by offset.
func byPosition[S any](list []S, pos func(S) (Span, posKey)) {
	sort.SliceStable(list, func(i, j int) bool {
		a, ak := pos(list[i])
		b, bk := pos(list[j])
		if a != b {
			return a.Less(b)
		}
		return ak.offset < bk.offset
	})
}

// sortedRegions returns the regions in source order.
func (c *collector) sortedRegions() []*region {
	rs := make([]*region, 0, len(c.regions))
	for _, r := range c.regions {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].where.Less(rs[j].where) })
	return rs
}

// mayRunInModule reports whether an interface call of the abstract
// method m may run a function of the module: the module declares a
// method of m's name whose signature, without its receiver, is m's
// (methodSignature). A call dispatches to a method of the dynamic type
// of that name and signature, whatever embeds or promotes it; if the
// module declares none, the call runs none of its functions, whatever
// the call graph knows (a method of a reflect.Type, whose values come
// from the standard library, which the call graph does not analyse). It
// answers yes, as if unresolved, when the signatures cannot be compared
// so (they name type parameters: a method of a generic type, an
// interface inside generic code) and when a package of the module was
// loaded without its syntax. Answers are memoized by m.
func (c *collector) mayRunInModule(m *types.Func, memo map[*types.Func]bool) bool {
	if may, ok := memo[m]; ok {
		return may
	}
	sig, _ := m.Type().(*types.Signature)
	may := c.partial || sig == nil || namesTypeParam(sig)
	want, wantText := methodSignature(sig)
	for _, s := range c.methods[m.Name()] {
		if may {
			break
		}
		plain, text := methodSignature(s)
		may = s.RecvTypeParams().Len() > 0 || namesTypeParam(s) || types.Identical(plain, want) || text == wantText
	}
	memo[m] = may
	return may
}

// namesTypeParam reports whether t names a type parameter, so that its
// text does not say which types it stands for (allocs.go's hasTypeParam
// asks about layout, which pointers and functions hide). A named type
// is not looked into: its name is its text.
func namesTypeParam(t types.Type) bool {
	switch t := t.(type) {
	case *types.TypeParam:
		return true
	case *types.Alias:
		return namesTypeParam(types.Unalias(t))
	case *types.Named:
		for i := 0; i < t.TypeArgs().Len(); i++ {
			if namesTypeParam(t.TypeArgs().At(i)) {
				return true
			}
		}
		return t.TypeParams().Len() > 0
	case *types.Pointer:
		return namesTypeParam(t.Elem())
	case *types.Slice:
		return namesTypeParam(t.Elem())
	case *types.Array:
		return namesTypeParam(t.Elem())
	case *types.Chan:
		return namesTypeParam(t.Elem())
	case *types.Map:
		return namesTypeParam(t.Key()) || namesTypeParam(t.Elem())
	case *types.Tuple:
		for i := 0; i < t.Len(); i++ {
			if namesTypeParam(t.At(i).Type()) {
				return true
			}
		}
		return false
	case *types.Signature:
		return namesTypeParam(t.Params()) || namesTypeParam(t.Results())
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			if namesTypeParam(t.Field(i).Type()) {
				return true
			}
		}
		return false
	case *types.Interface:
		for i := 0; i < t.NumMethods(); i++ {
			if namesTypeParam(t.Method(i).Type()) {
				return true
			}
		}
		return false
	}
	return false
}

// methodSignature is a method's signature without its receiver nor the
// names of its parameters and results, and its text with full package
// paths: types.Identical compares the first (aliases as what they stand
// for), the text matches across the plain and test variants of a
// package, whose types are distinct objects.
func methodSignature(sig *types.Signature) (*types.Signature, string) {
	if sig == nil {
		return nil, ""
	}
	unnamed := func(t *types.Tuple) *types.Tuple {
		vars := make([]*types.Var, t.Len())
		for i := range vars {
			vars[i] = types.NewParam(token.NoPos, nil, "", t.At(i).Type())
		}
		return types.NewTuple(vars...)
	}
	plain := types.NewSignatureType(nil, nil, nil, unnamed(sig.Params()), unnamed(sig.Results()), sig.Variadic())
	return plain, types.TypeString(plain, func(p *types.Package) string { return p.Path() })
}

// external is 1 when every known callee of the call is outside the
// module, 0 when one is inside, NULL when a dynamic call is unresolved:
// it has no known callee and may run one of the module's functions (an
// interface call that no type of the module can answer runs none: 1,
// mayRunInModule).
func (site *call) external(mayRun func(*types.Func) bool) any {
	if len(site.targets) == 0 {
		if site.kind == "interface" && site.abstract != nil && !mayRun(site.abstract) {
			return 1 // none of the module's functions can be it
		}
		return nil
	}
	for t := range site.targets {
		if t.inModule {
			return 0
		}
	}
	return 1
}

// sortedTargets returns the functions of set by id.
func sortedTargets[V any](set map[*function]V) []*function {
	var list []*function
	for f := range set {
		list = append(list, f)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].id < list[j].id })
	return list
}

func sortedKeys(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func idOf(f *function) any {
	if f == nil {
		return nil
	}
	return f.id
}

// known is n, or NULL when n is -1 (unknown).
// allocates is the calls table's allocates column of site.
func (site *call) allocates() any {
	if site.allocatesNothing {
		return 0
	}
	return nil
}

func known(n int64) any {
	if n < 0 {
		return nil
	}
	return n
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// fileHashes returns the Go files of the loaded packages inside the
// module, relative to root, with the SHA-256 of their content.
func fileHashes(root string, pkgs []*packages.Package) ([][2]string, error) {
	seen := map[string]bool{}
	var out [][2]string
	for _, p := range pkgs {
		for _, name := range p.CompiledGoFiles {
			rel, err := filepath.Rel(root, name)
			if err != nil || strings.HasPrefix(rel, "..") || seen[rel] {
				continue
			}
			seen[rel] = true
			data, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			sum := sha256.Sum256(data)
			out = append(out, [2]string{filepath.ToSlash(rel), hex.EncodeToString(sum[:])})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out, nil
}
