package static

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/types/typeutil"
)

// Callback edges. Code outside the module is loaded without bodies, so
// the call graph stops at its functions: sort.Slice never calls the less
// function, fmt.Println never calls String. A call site whose callee may
// be outside the module gets, besides its targets, the in-module functions
// that the callee may call back: those that can reach it through its
// arguments and receiver. They are recorded in callback_targets and
// callback_sets, which reachability (calls*) uses and direct calls do not.
//
// The analysis is conservative. A value is traced back through SSA
// (closures, function values, conversions to interfaces, phis, local
// allocations and the parameters of functions whose callers are all
// known); where the trace stops, the value's type stands for everything
// a value of that type can hold: every function used as a value with
// that signature, every type converted to an interface that implements
// it, and, inside composite types, the same for each part. A type that
// reaches external code brings its exported methods (through interfaces
// or reflection, external code can call no others), and a function that
// external code calls hands it its results, so these count too.

// Ways a callback target is found, most precise first: how in
// callback_targets. The third, "type" (a value the trace lost stands for
// anything of its type), is stored as sets: see fallback.
const (
	howValue  = "value"  // a function value or closure passed to the call
	howMethod = "method" // a method of a type whose values are passed to the call
)

// callbackFinder holds what the analysis knows about the whole program.
type callbackFinder struct {
	c          *collector
	graph      *callgraph.Graph
	taken      map[*ssa.Function]bool // functions used as values
	closures   map[*ssa.Function][]*ssa.MakeClosure
	bySig      typeutil.Map                  // *types.Signature → []*function: the in-module functions values of that signature can be
	converted  []types.Type                  // dynamic types: converted to interfaces, or type arguments of external generic code
	resolved   map[*ssa.Function][]*function // in-module functions a function value runs
	typeSets   typeutil.Map                  // types.Type → *funcSet
	implements typeutil.Map                  // *types.Interface → []types.Type: the converted types implementing it
	sets       int                           // funcSets made
	msets      typeutil.MethodSetCache
}

// addCallbacks records the callback targets of the call sites of funcs,
// the functions of the program.
func (c *collector) addCallbacks(g *callgraph.Graph, funcs map[*ssa.Function]bool) {
	cb := &callbackFinder{
		c: c, graph: g, taken: map[*ssa.Function]bool{},
		closures: map[*ssa.Function][]*ssa.MakeClosure{},
		resolved: map[*ssa.Function][]*function{},
	}
	cb.scan(funcs)
	for fn := range funcs {
		def := c.definition(fn)
		if def == nil || !def.inModule || isGenericBody(fn) {
			continue
		}
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				site := c.siteOf(call)
				if site == nil || !site.mayCallOut() {
					continue
				}
				common := call.Common()
				seen := map[ssa.Value]bool{}
				if common.IsInvoke() || common.StaticCallee() == nil {
					// The receiver, or an unresolved function value:
					// what it holds may come from external code.
					cb.flow(common.Value, call, seen, site)
				}
				for _, arg := range common.Args {
					cb.flow(arg, call, seen, site)
				}
			}
		}
	}
}

// isGenericBody reports a generic function's own body, or a closure in
// it: their instances are analysed instead, with the types they run with.
func isGenericBody(fn *ssa.Function) bool {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return fn.TypeParams().Len() > 0 && len(fn.TypeArgs()) == 0
}

// siteOf returns the call site of an SSA call instruction.
func (c *collector) siteOf(call ssa.CallInstruction) *call {
	pos := call.Common().Pos()
	if !pos.IsValid() {
		pos, _ = rangeOverFunc(call)
	}
	if !pos.IsValid() {
		return nil
	}
	return c.calls[c.key(pos)]
}

// mayCallOut reports whether the call may run code outside the loaded
// module: it has a callee without a loaded body in the module, or the
// call graph found no callee at all.
func (site *call) mayCallOut() bool {
	if len(site.targets) == 0 {
		return true
	}
	for t := range site.targets {
		if !t.defined || !t.inModule {
			return true
		}
	}
	return false
}

func (site *call) addCallback(f *function, how string) {
	if site.targets[f] {
		return // a direct callee already
	}
	if site.callbacks == nil {
		site.callbacks = map[*function]string{}
	}
	if old, ok := site.callbacks[f]; !ok || old == howMethod && how == howValue {
		site.callbacks[f] = how
	}
}

// scan collects the functions used as values, the closures made of each
// function and the types converted to interfaces.
func (cb *callbackFinder) scan(funcs map[*ssa.Function]bool) {
	var conv typeutil.Map
	convert := func(t types.Type) {
		if conv.At(t) == nil {
			conv.Set(t, true)
			cb.converted = append(cb.converted, t)
		}
	}
	var ops []*ssa.Value
	for fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch instr := instr.(type) {
				case *ssa.MakeInterface:
					convert(instr.X.Type())
				case *ssa.MakeClosure:
					f := instr.Fn.(*ssa.Function)
					cb.closures[f] = append(cb.closures[f], instr)
				case ssa.CallInstruction:
					// External generic code may convert values of its type
					// arguments to interfaces that the module never sees.
					if callee := instr.Common().StaticCallee(); callee != nil && cb.c.definition(callee) == nil {
						for _, t := range callee.TypeArgs() {
							convert(t)
						}
					}
				}
				ops = instr.Operands(ops[:0])
				for i, op := range ops {
					f, ok := (*op).(*ssa.Function)
					if !ok {
						continue
					}
					if call, isCall := instr.(ssa.CallInstruction); isCall && i == 0 && !call.Common().IsInvoke() {
						continue // the callee of a static call, not a value
					}
					cb.taken[f] = true
				}
			}
		}
	}
	cb.c.markHidden(cb.taken)
	for f := range cb.taken {
		sig := f.Signature
		list, _ := cb.bySig.At(sig).([]*function)
		cb.bySig.Set(sig, append(list, cb.resolve(f)...))
	}
}

// resolve returns the in-module definitions that calling the function
// value fn runs: fn itself, or what a synthetic wrapper (bound method,
// method expression, promotion) calls.
func (cb *callbackFinder) resolve(fn *ssa.Function) []*function {
	if out, ok := cb.resolved[fn]; ok {
		return out
	}
	cb.resolved[fn] = nil // cycles
	var out []*function
	if def := cb.c.definition(fn); def != nil {
		if def.inModule {
			out = []*function{def}
		}
	} else if fn.Synthetic != "" {
		node := cb.graph.Nodes[fn]
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(ssa.CallInstruction)
				if !ok {
					continue
				}
				if callee := call.Common().StaticCallee(); callee != nil {
					out = append(out, cb.resolve(callee)...)
					continue
				}
				found := false
				if node != nil {
					for _, e := range node.Out {
						if e.Site == call && e.Callee.Func != nil {
							out = append(out, cb.resolve(e.Callee.Func)...)
							found = true
						}
					}
				}
				if common := call.Common(); !found && common.IsInvoke() {
					// The graph does not know this wrapper: every
					// converted type's method of that name.
					iface, _ := common.Value.Type().Underlying().(*types.Interface)
					for _, t := range cb.implementations(iface) {
						if sel := cb.msets.MethodSet(t).Lookup(common.Method.Pkg(), common.Method.Name()); sel != nil {
							if f := cb.c.loaded(sel.Obj().(*types.Func)); f != nil {
								out = append(out, f)
							}
						}
					}
				}
			}
		}
	}
	cb.resolved[fn] = out
	return out
}

// implementations returns the dynamic types that implement iface.
func (cb *callbackFinder) implementations(iface *types.Interface) []types.Type {
	if iface == nil {
		return nil
	}
	if list, ok := cb.implements.At(iface).([]types.Type); ok {
		return list
	}
	list := []types.Type{}
	for _, t := range cb.converted {
		if types.Implements(t, iface) {
			list = append(list, t)
		}
	}
	cb.implements.Set(iface, list)
	return list
}

// loaded returns obj's in-module definition, or nil.
func (c *collector) loaded(obj *types.Func) *function {
	obj = obj.Origin()
	if !obj.Pos().IsValid() {
		return nil
	}
	if def := c.defs[c.key(obj.Pos())]; def != nil && def.inModule {
		return def
	}
	return nil
}

// flow adds to site the callbacks that value v, passed to the call, can
// lead to. seen guards against cycles through phis and parameters.
func (cb *callbackFinder) flow(v ssa.Value, call ssa.CallInstruction, seen map[ssa.Value]bool, site *call) {
	if seen[v] {
		return
	}
	seen[v] = true
	if len(cb.typeSet(v.Type()).funcs) == 0 {
		return // nothing callable can hide in a value of this type
	}
	// A concrete type's exported methods, through reflection.
	cb.methods(v.Type(), howMethod, site)
	switch v := v.(type) {
	case *ssa.Function:
		cb.addFunc(v, site)
	case *ssa.MakeClosure:
		cb.addFunc(v.Fn.(*ssa.Function), site)
	case *ssa.MakeInterface, *ssa.ChangeType, *ssa.ChangeInterface, *ssa.Convert, *ssa.MultiConvert,
		*ssa.Slice, *ssa.SliceToArrayPointer, *ssa.TypeAssert:
		// The same value, or a view of it: X, their first operand. A type
		// assertion's dynamic types are those of X.
		cb.flow(*v.(ssa.Instruction).Operands(nil)[0], call, seen, site)
	case *ssa.Phi:
		for _, e := range v.Edges {
			cb.flow(e, call, seen, site)
		}
	case *ssa.Extract:
		if ta, ok := v.Tuple.(*ssa.TypeAssert); ok {
			cb.flow(ta.X, call, seen, site)
		} else {
			cb.fallback(v.Type(), site)
		}
	case *ssa.Const:
		// nil, or a basic value: its methods are added above
	case *ssa.UnOp:
		if a, ok := v.X.(*ssa.Alloc); ok && v.Op == token.MUL {
			cb.flowAlloc(a, call, seen, site)
		} else {
			cb.fallback(v.Type(), site)
		}
	case *ssa.Alloc:
		cb.flowAlloc(v, call, seen, site)
	case *ssa.Parameter:
		cb.flowParam(v, seen, site)
	case *ssa.FreeVar:
		cb.flowFreeVar(v, call, seen, site)
	default:
		cb.fallback(v.Type(), site)
	}
}

// addFunc adds what calling the function value fn runs, and what its
// results can lead to, since external code receives them.
func (cb *callbackFinder) addFunc(fn *ssa.Function, site *call) {
	targets := cb.resolve(fn)
	for _, f := range targets {
		site.addCallback(f, howValue)
	}
	if len(targets) > 0 {
		cb.fallback(fn.Signature.Results(), site)
	}
}

// flowAlloc adds the values stored in a local allocation (a variable, a
// composite literal, the array of a variadic call); when the allocation
// escapes to anything but loads, stores into it and the call, other code
// may store into it, and its type stands for its content.
func (cb *callbackFinder) flowAlloc(a *ssa.Alloc, call ssa.CallInstruction, seen map[ssa.Value]bool, site *call) {
	var stored []ssa.Value
	escapes := false
	var visit func(addr ssa.Value)
	visit = func(addr ssa.Value) {
		refs := addr.Referrers()
		if refs == nil {
			escapes = true
			return
		}
		for _, r := range *refs {
			switch r := r.(type) {
			case *ssa.Store:
				if r.Addr == addr {
					stored = append(stored, r.Val)
				} else {
					escapes = true
				}
			case *ssa.FieldAddr:
				visit(r)
			case *ssa.IndexAddr:
				visit(r)
			case *ssa.Slice:
				visit(r)
			case *ssa.UnOp, *ssa.DebugRef:
			case ssa.CallInstruction:
				if r != call {
					escapes = true
				}
			default:
				escapes = true
			}
		}
	}
	visit(a)
	for _, v := range stored {
		cb.flow(v, call, seen, site)
	}
	if escapes {
		cb.fallback(a.Type(), site)
	}
}

// flowParam follows a parameter to the arguments of every call of its
// function, when the call graph knows them all: a function, not a method
// (external code calls methods through interfaces), never used as a
// value, and called from the loaded code.
func (cb *callbackFinder) flowParam(p *ssa.Parameter, seen map[ssa.Value]bool, site *call) {
	fn := p.Parent()
	node := cb.graph.Nodes[fn]
	if cb.taken[fn] || fn.Signature.Recv() != nil || fn.Synthetic != "" || node == nil || len(node.In) == 0 {
		cb.fallback(p.Type(), site)
		return
	}
	index := -1
	for i, q := range fn.Params {
		if q == p {
			index = i
		}
	}
	for _, e := range node.In {
		if index < 0 || e.Site == nil || e.Site.Common().IsInvoke() || len(e.Site.Common().Args) != len(fn.Params) {
			cb.fallback(p.Type(), site)
			return
		}
	}
	for _, e := range node.In {
		cb.flow(e.Site.Common().Args[index], e.Site, seen, site)
	}
}

// flowFreeVar follows a captured variable to the values the closures of
// its function capture.
func (cb *callbackFinder) flowFreeVar(fv *ssa.FreeVar, call ssa.CallInstruction, seen map[ssa.Value]bool, site *call) {
	fn := fv.Parent()
	index := -1
	for i, v := range fn.FreeVars {
		if v == fv {
			index = i
		}
	}
	makes := cb.closures[fn]
	if index < 0 || len(makes) == 0 {
		cb.fallback(fv.Type(), site)
		return
	}
	for _, mc := range makes {
		cb.flow(mc.Bindings[index], call, seen, site)
	}
}

// fallback adds everything a value of type t can lead to. Such sets are
// large (any: every exported method of every type converted to an
// interface) and shared by many calls, so a call keeps references to
// them, and static.db stores each distinct union once.
func (cb *callbackFinder) fallback(t types.Type, site *call) {
	if set := cb.typeSet(t); len(set.funcs) > 0 {
		if site.lost == nil {
			site.lost = map[*funcSet]bool{}
		}
		site.lost[set] = true
	}
}

// funcSet is what the values of a type can lead external code to call.
type funcSet struct {
	id    int
	funcs map[*function]bool
}

// methods adds the exported in-module methods of the concrete type t and
// of *t, which external code can call through interfaces or reflection.
func (cb *callbackFinder) methods(t types.Type, how string, site *call) {
	cb.methodsOf(t, func(f *function, results *types.Tuple) {
		site.addCallback(f, how)
		cb.fallback(results, site)
	})
}

func (cb *callbackFinder) methodsOf(t types.Type, add func(*function, *types.Tuple)) {
	if types.IsInterface(t) {
		return
	}
	named := t
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		named = p.Elem()
	}
	n, ok := types.Unalias(named).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || !cb.c.inModule(n.Obj().Pkg().Path()) || types.IsInterface(n) {
		return
	}
	mset := cb.msets.MethodSet(types.NewPointer(n)) // includes n's own
	for i := 0; i < mset.Len(); i++ {
		obj, ok := mset.At(i).Obj().(*types.Func)
		if !ok || !obj.Exported() {
			continue
		}
		if f := cb.c.loaded(obj); f != nil {
			add(f, obj.Signature().Results())
		}
	}
}

// typeSet returns the in-module functions a value of type t can lead
// external code to call.
func (cb *callbackFinder) typeSet(t types.Type) *funcSet {
	if set, ok := cb.typeSets.At(t).(*funcSet); ok {
		return set
	}
	cb.sets++
	set := &funcSet{id: cb.sets, funcs: map[*function]bool{}}
	var visited typeutil.Map
	cb.walk(t, &visited, set.funcs)
	cb.typeSets.Set(t, set)
	return set
}

func (cb *callbackFinder) walk(t types.Type, visited *typeutil.Map, set map[*function]bool) {
	if done, ok := cb.typeSets.At(t).(*funcSet); ok {
		for f := range done.funcs {
			set[f] = true
		}
		return
	}
	if visited.At(t) != nil {
		return
	}
	visited.Set(t, true)
	cb.methodsOf(t, func(f *function, results *types.Tuple) {
		set[f] = true
		cb.walk(results, visited, set)
	})
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		cb.walk(t.Underlying(), visited, set)
	case interface{ Elem() types.Type }: // pointer, slice, array, chan, map
		if m, ok := t.(*types.Map); ok {
			cb.walk(m.Key(), visited, set)
		}
		cb.walk(t.Elem(), visited, set)
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			cb.walk(t.Field(i).Type(), visited, set)
		}
	case *types.Tuple:
		for i := 0; i < t.Len(); i++ {
			cb.walk(t.At(i).Type(), visited, set)
		}
	case *types.Signature:
		list, _ := cb.bySig.At(t).([]*function)
		for _, f := range list {
			set[f] = true
		}
		cb.walk(t.Results(), visited, set)
	case *types.Interface:
		for _, dyn := range cb.implementations(t) {
			cb.walk(dyn, visited, set)
		}
	case *types.TypeParam:
		for _, dyn := range cb.converted {
			cb.walk(dyn, visited, set)
		}
	}
}
