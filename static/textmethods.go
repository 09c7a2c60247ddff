package static

import (
	"context"
	"database/sql"
	"fmt"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Text methods. The runtime records a value whose type has an Error or
// String method by the text the method returns (rt/logfmt's Value), so
// that two errors with one message are one value. Calling a method the
// program did not call is safe only where the method has no effect the
// program could see: a count of its calls, a log line, a lock the caller
// may hold (a deadlock), a channel operation. Methods of types outside
// the module are trusted, as the program's own calls of fmt trust them;
// for each named type of the module whose values fmt would print by a
// method, the text_methods table says whether that method is free of
// effects, and why not: only those are called (docs/LANGUAGE.md, "How
// values are recorded").
//
// The analysis is conservative and reads SSA: a method is free of
// effects when it and every function it calls store only into memory
// the call allocated, send, receive and select on no channel, start no
// goroutine, call no interface method and no function value, and call
// outside the module only functions of pure packages (strconv,
// strings, ...) and fmt's Sprint, Sprintf, Sprintln and Errorf with
// values whose own text methods are free of effects. It may read
// anything, as the method does when the program calls it.

// textMethod is a row of the text_methods table: values of the dynamic
// type pkg.name (or *pkg.name) are printed by method.
type textMethod struct {
	pkg, pkgName, name string
	pointer            bool
	method             string // Error or String
	why                string // empty when the method is free of effects
}

// effectFreePackages are the packages outside the module whose
// functions and methods have no effect beyond their results and the
// memory they are handed: calling them is free of effects when what
// they write (a receiver, a destination slice) is the caller's own.
var effectFreePackages = map[string]bool{
	"strconv": true, "strings": true, "bytes": true, "unicode": true, "unicode/utf8": true,
	"unicode/utf16": true, "math": true, "math/bits": true, "errors": true, "encoding/hex": true,
	"time": true, "cmp": true,
}

// effectfulTime are the functions of package time that start timers or
// goroutines, or sleep.
var effectfulTime = map[string]bool{"Sleep": true, "After": true, "AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true, "Reset": true, "Stop": true}

// fmtText are fmt's functions that only format their arguments.
var fmtText = map[string]bool{"Sprint": true, "Sprintf": true, "Sprintln": true, "Errorf": true}

// textMethods finds the text methods of the module's named types in the
// SSA program of funcs.
func (c *collector) textMethods(funcs map[*ssa.Function]bool) []textMethod {
	var prog *ssa.Program
	for fn := range funcs {
		prog = fn.Prog
		break
	}
	if prog == nil {
		return nil
	}
	e := &effects{c: c, prog: prog, memo: map[*ssa.Function]string{}, bodies: map[string]*ssa.Function{}}
	for fn := range funcs {
		if fn.Blocks != nil {
			// A package loaded with its tests is two packages of one
			// path, one with syntax: its functions stand for both.
			e.bodies[fn.String()] = fn
		}
	}
	var rows []textMethod
	local := map[string]bool{} // pkg.name of types declared in functions: reflect cannot tell them apart
	seen := map[string]int{}   // the index in rows of a type's row: a package and its test variant both declare it
	for _, p := range prog.AllPackages() {
		if !c.inModule(p.Pkg.Path()) {
			continue
		}
		scope := p.Pkg.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok || named.TypeParams().Len() > 0 {
				continue
			}
			for _, pointer := range []bool{false, true} {
				var t types.Type = named
				if pointer {
					if _, isPtr := named.Underlying().(*types.Pointer); isPtr {
						continue
					}
					t = types.NewPointer(named)
				}
				if row, ok := e.textMethod(t); ok {
					row.pkg, row.pkgName, row.name, row.pointer = p.Pkg.Path(), p.Pkg.Name(), name, pointer
					key := TextKeys(row.pkg, row.pkgName, row.name, row.pointer)[0]
					if i, dup := seen[key]; dup {
						if rows[i].why == "" {
							rows[i].why = row.why // the same code, analysed twice; the variant with effects, if any, wins
						}
						continue
					}
					seen[key] = len(rows)
					rows = append(rows, row)
				}
			}
		}
	}
	for fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if mi, ok := instr.(*ssa.MakeInterface); ok {
					if tn := localTypeName(mi.X.Type()); tn != nil {
						local[tn.Pkg().Path()+"."+tn.Name()] = true
					}
				}
			}
		}
	}
	kept := rows[:0]
	for _, r := range rows {
		if local[r.pkg+"."+r.name] {
			r.why = "a type declared in a function has the same name"
		}
		kept = append(kept, r)
	}
	sort.Slice(kept, func(i, j int) bool {
		a, b := kept[i], kept[j]
		if a.pkg != b.pkg {
			return a.pkg < b.pkg
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return !a.pointer && b.pointer
	})
	return kept
}

// localTypeName returns the type name of t (or of what t points to)
// when it is declared inside a function.
func localTypeName(t types.Type) *types.TypeName {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := t.(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Parent() == named.Obj().Pkg().Scope() {
		return nil
	}
	return named.Obj()
}

// effects decides whether functions are free of effects.
type effects struct {
	c    *collector
	prog *ssa.Program
	memo map[*ssa.Function]string // why fn has effects, "" if it has none; a function being decided is "" (recursion adds no effect)
	// bodies are the functions with a body by name (fn.String()), for
	// those of a package's variant built from types alone.
	bodies map[string]*ssa.Function
}

// textMethod returns the method fmt prints a value of dynamic type t
// by, and whether t has one: Error before String, as fmt chooses.
func (e *effects) textMethod(t types.Type) (textMethod, bool) {
	ms := e.prog.MethodSets.MethodSet(t)
	if ms.Lookup(nil, "Format") != nil {
		return textMethod{method: "Format", why: "fmt prints it by its Format method, which writes to an fmt.State"}, true
	}
	for _, name := range []string{"Error", "String"} {
		sel := ms.Lookup(nil, name)
		if sel == nil {
			continue
		}
		sig := sel.Type().(*types.Signature)
		if sig.Params().Len() != 0 || sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type(), types.Typ[types.String]) {
			continue
		}
		row := textMethod{method: name}
		fn := e.prog.FuncValue(sel.Obj().(*types.Func))
		switch {
		case fn == nil:
			row.why = "the method is an interface's, embedded: its code is not known"
		default:
			row.why = e.function(fn)
		}
		return row, true
	}
	return textMethod{}, false
}

// function returns why fn has effects, or "" if it has none.
func (e *effects) function(fn *ssa.Function) string {
	if why, ok := e.memo[fn]; ok {
		return why
	}
	if fn.Pkg == nil || !e.c.inModule(fn.Pkg.Pkg.Path()) {
		if o := fn.Origin(); o != nil {
			fn = o
		}
		return e.outside(fn, nil)
	}
	if fn.Blocks == nil {
		if body := e.bodies[fn.String()]; body != nil {
			return e.function(body)
		}
		return "calls " + fn.String() + ", whose body is not Go"
	}
	e.memo[fn] = ""
	why := e.body(fn)
	e.memo[fn] = why
	return why
}

// outside returns why calling fn, a function outside the module, has
// effects; call is the call when there is one, whose arguments fmt's
// functions print.
func (e *effects) outside(fn *ssa.Function, call *ssa.CallCommon) string {
	pkg, name := "", fn.Name()
	if fn.Pkg != nil {
		pkg = fn.Pkg.Pkg.Path()
	} else if obj, ok := fn.Object().(*types.Func); ok && obj.Pkg() != nil {
		pkg = obj.Pkg().Path()
	}
	switch {
	case pkg == "fmt" && fmtText[name]:
		if call == nil {
			return ""
		}
		return e.printed(call)
	case pkg == "fmt" && fmtText["S"+name[1:]] && strings.HasPrefix(name, "F"):
		if call == nil || !ownedBuffer(call.Args[0]) {
			return "calls " + fn.String() + " with a writer it does not own"
		}
		return e.printed(call)
	case pkg == "time" && effectfulTime[name]:
	case effectFreePackages[pkg]:
		return e.receiverOwned(fn, call)
	}
	return "calls " + fn.String()
}

// receiverOwned returns why calling a method of an effect-free package
// has effects: its receiver is a pointer to memory the call did not
// allocate (a strings.Builder of the receiver's, written).
func (e *effects) receiverOwned(fn *ssa.Function, call *ssa.CallCommon) string {
	if call == nil || fn.Signature.Recv() == nil || len(call.Args) == 0 {
		return ""
	}
	if _, ptr := fn.Signature.Recv().Type().(*types.Pointer); ptr && !owned(call.Args[0], map[ssa.Value]bool{}) {
		return "calls " + fn.String() + " on memory it does not own"
	}
	return ""
}

// ownedBuffer reports whether w, an io.Writer, is a strings.Builder or a
// bytes.Buffer its function allocated.
func ownedBuffer(w ssa.Value) bool {
	mi, ok := w.(*ssa.MakeInterface)
	if !ok || !owned(mi.X, map[ssa.Value]bool{}) {
		return false
	}
	switch mi.X.Type().String() {
	case "*strings.Builder", "*bytes.Buffer":
		return true
	}
	return false
}

// printed returns why fmt printing the arguments of call has effects:
// an argument is an interface value whose dynamic type is not known
// here, or one whose text method has effects.
func (e *effects) printed(call *ssa.CallCommon) string {
	for _, arg := range call.Args {
		if _, ok := arg.Type().Underlying().(*types.Slice); !ok {
			continue // the format
		}
		if c, ok := arg.(*ssa.Const); ok && c.IsNil() {
			continue
		}
		var alloc *ssa.Alloc
		if s, ok := arg.(*ssa.Slice); ok {
			alloc, _ = s.X.(*ssa.Alloc)
		}
		if alloc == nil {
			return "passes fmt a slice of values it does not know"
		}
		for _, ref := range *alloc.Referrers() {
			ia, ok := ref.(*ssa.IndexAddr)
			if !ok {
				continue
			}
			for _, r := range *ia.Referrers() {
				st, ok := r.(*ssa.Store)
				if !ok {
					continue
				}
				switch v := st.Val.(type) {
				case *ssa.MakeInterface:
					// MakeInterface is checked where it is made (body).
				case *ssa.Const:
				default:
					return "passes fmt " + v.Type().String() + ", whose dynamic type is not known"
				}
			}
		}
	}
	return ""
}

// body returns why the code of fn has effects.
func (e *effects) body(fn *ssa.Function) string {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if why := e.instruction(instr); why != "" {
				return why
			}
		}
	}
	for _, anon := range fn.AnonFuncs {
		if why := e.function(anon); why != "" {
			return why
		}
	}
	return ""
}

// instruction returns why instr has effects.
func (e *effects) instruction(instr ssa.Instruction) string {
	switch in := instr.(type) {
	case *ssa.Store:
		if !owned(in.Addr, map[ssa.Value]bool{}) {
			return "stores to memory it does not own"
		}
	case *ssa.MapUpdate:
		if !owned(in.Map, map[ssa.Value]bool{}) {
			return "writes to a map it does not own"
		}
	case *ssa.Send, *ssa.Select:
		return "operates on a channel"
	case *ssa.UnOp:
		if in.Op == token.ARROW {
			return "receives from a channel"
		}
	case *ssa.Go:
		return "starts a goroutine"
	case *ssa.MakeInterface:
		return e.converted(in.X.Type())
	case ssa.CallInstruction:
		return e.call(in.Common())
	}
	return ""
}

// converted returns why a value of type t made into an interface may
// have effects when printed: its text method has them.
func (e *effects) converted(t types.Type) string {
	base := t
	if p, ok := t.(*types.Pointer); ok {
		base = p.Elem()
	}
	named, ok := base.(*types.Named)
	if !ok || named.Obj().Pkg() == nil || !e.c.inModule(named.Obj().Pkg().Path()) {
		return ""
	}
	if row, ok := e.textMethod(t); ok && row.why != "" {
		return "prints a " + t.String() + ", whose " + row.method + " " + row.why
	}
	return ""
}

// call returns why a call has effects.
func (e *effects) call(c *ssa.CallCommon) string {
	if c.IsInvoke() {
		return "calls the method " + c.Method.Name() + " of an interface"
	}
	if b, ok := c.Value.(*ssa.Builtin); ok {
		switch b.Name() {
		case "print", "println", "close":
			return "calls " + b.Name()
		case "copy", "clear", "delete":
			if !owned(c.Args[0], map[ssa.Value]bool{}) {
				return "calls " + b.Name() + " on memory it does not own"
			}
		case "append":
			if !owned(c.Args[0], map[ssa.Value]bool{}) {
				return "appends to a slice it does not own"
			}
		}
		return ""
	}
	callee := c.StaticCallee()
	if callee == nil {
		return "calls a function value"
	}
	if callee.Pkg != nil && e.c.inModule(callee.Pkg.Pkg.Path()) {
		return e.function(callee)
	}
	if o := callee.Origin(); o != nil {
		callee = o
	}
	return e.outside(callee, c)
}

// owned reports whether v refers only to memory its function
// allocated: a local variable, a composite literal, a slice or map it
// made, parts of them, and nil.
func owned(v ssa.Value, seen map[ssa.Value]bool) bool {
	if seen[v] {
		return true
	}
	seen[v] = true
	switch x := v.(type) {
	case *ssa.Alloc, *ssa.MakeSlice, *ssa.MakeMap:
		return true
	case *ssa.Const:
		return x.IsNil()
	case *ssa.FieldAddr:
		return owned(x.X, seen)
	case *ssa.IndexAddr:
		return owned(x.X, seen)
	case *ssa.Slice:
		return owned(x.X, seen)
	case *ssa.Phi:
		for _, edge := range x.Edges {
			if !owned(edge, seen) {
				return false
			}
		}
		return true
	case *ssa.Call:
		if b, ok := x.Call.Value.(*ssa.Builtin); ok && b.Name() == "append" {
			return owned(x.Call.Args[0], seen)
		}
	case *ssa.Convert:
		_, toSlice := x.Type().Underlying().(*types.Slice)
		return toSlice && isString(x.X.Type())
	}
	return false
}

// TextKeys are the names by which the runtime knows the dynamic type of
// a row of text_methods (pkg, the package's name, the type's name and
// whether it is the pointer type): the package path, a dot and the
// type's name, after "*" for a pointer, as rt/logfmt's TextMethods
// holds them. reflect spells the path of package main "main" in a
// program and its import path in the package's test binary: both.
func TextKeys(pkg, pkgName, name string, pointer bool) []string {
	paths := []string{pkg}
	if pkgName == "main" {
		paths = append(paths, "main")
	}
	var keys []string
	for _, p := range paths {
		k := p + "." + name
		if pointer {
			k = "*" + k
		}
		keys = append(keys, k)
	}
	return keys
}

// TextTypes returns the names (TextKeys) of the dynamic types of the
// module whose text methods static.db's text_methods found free of
// effects: what rt.Config's TextTypes wants.
func TextTypes(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT pkg, pkg_name, type, pointer FROM text_methods WHERE why IS NULL`)
	if err != nil {
		return nil, fmt.Errorf("reading the text methods: %w", err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var pkg, pkgName, name string
		var pointer bool
		if err := rows.Scan(&pkg, &pkgName, &name, &pointer); err != nil {
			return nil, err
		}
		keys = append(keys, TextKeys(pkg, pkgName, name, pointer)...)
	}
	return keys, rows.Err()
}
