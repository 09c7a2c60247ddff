package static

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/cha"
	"golang.org/x/tools/go/callgraph/static"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// Call-graph algorithms.
const (
	VTA    = "vta"    // variable type analysis, seeded with CHA (default)
	CHA    = "cha"    // class hierarchy analysis: every method of a matching type
	Static = "static" // static calls only: dynamic calls stay unresolved
)

// buildCallGraph builds SSA for pkgs and the call graph of the program;
// it returns the program's functions too.
func buildCallGraph(pkgs []*packages.Package, algorithm string) (*callgraph.Graph, map[*ssa.Function]bool, error) {
	prog, _ := ssautil.Packages(pkgs, ssa.InstantiateGenerics)
	prog.Build()
	funcs := ssautil.AllFunctions(prog)
	switch algorithm {
	case VTA, "":
		// As the vta documentation recommends: CHA as the initial graph.
		return vta.CallGraph(funcs, cha.CallGraph(prog)), funcs, nil
	case CHA:
		return cha.CallGraph(prog), funcs, nil
	case Static:
		return static.CallGraph(prog), funcs, nil
	}
	return nil, nil, fmt.Errorf("unknown call-graph algorithm %q (want vta, cha or static)", algorithm)
}

// markReached marks the definitions whose code is in funcs.
func (c *collector) markReached(funcs map[*ssa.Function]bool) {
	for fn := range funcs {
		if def := c.definition(fn); def != nil {
			def.reached = true
		}
	}
}

// markHidden marks the definitions whose code runs when a function
// used as a value (taken) is called: a call of that value is a call of
// the calls table only where the call graph resolved it, and code
// outside the module may make it. A range-over-func loop's body is a
// value passed to the iterator, but its code belongs to the function
// holding the loop, which that does not make callable. Methods
// (interface calls, reflection), functions that assembly, C or another
// package's //go:linkname may call are hidden already (addPackage). The
// runtime's calls of main.main and of init functions, on the main
// goroutine before any other code, do not make them hidden.
func (c *collector) markHidden(taken map[*ssa.Function]bool) {
	for fn := range taken {
		if _, loopBody := fn.Syntax().(*ast.RangeStmt); loopBody {
			continue
		}
		if def := c.definition(fn); def != nil {
			def.hidden = true
		}
	}
}

// addCallGraph adds the call graph's callees to the dynamic call sites
// of the loaded definitions. Calls that SSA makes without a call
// expression in the source (a range-over-func loop calling its iterator)
// become call sites of kind "implicit".
func (c *collector) addCallGraph(g *callgraph.Graph) {
	for fn, node := range g.Nodes {
		if fn == nil {
			continue // the root of a CHA graph
		}
		caller := c.definition(fn)
		if caller == nil {
			continue
		}
		for _, edge := range node.Out {
			if edge.Site == nil {
				continue
			}
			pos, end := edge.Site.Common().Pos(), token.NoPos
			if !pos.IsValid() {
				pos, end = rangeOverFunc(edge.Site)
			}
			if !pos.IsValid() {
				continue
			}
			k := c.key(pos)
			site := c.calls[k]
			if site == nil {
				if !end.IsValid() {
					end = pos
				}
				via := "call"
				switch edge.Site.(type) {
				case *ssa.Go:
					via = "go"
				case *ssa.Defer:
					via = "defer"
				}
				site = &call{key: k, caller: caller, where: c.span(pos, end), kind: "implicit", via: via, targets: map[*function]bool{}}
				c.calls[k] = site
				c.callList = append(c.callList, site)
			}
			if site.kind == "static" {
				continue // the type checker named the callee
			}
			for _, target := range c.targets(edge.Callee, map[*callgraph.Node]bool{}) {
				site.targets[target] = true
			}
		}
	}
}

// definition returns the loaded definition that fn's code belongs to:
// instances of generic functions belong to the generic function, the
// body of a range-over-func loop to the function containing the loop.
func (c *collector) definition(fn *ssa.Function) *function {
	if origin := fn.Origin(); origin != nil {
		fn = origin
	}
	switch syntax := fn.Syntax().(type) {
	case *ast.FuncDecl:
		return c.defs[c.key(syntax.Name.Pos())]
	case *ast.FuncLit:
		return c.defs[c.key(syntax.Type.Func)]
	case *ast.RangeStmt:
		return c.ranges[c.key(syntax.Pos())]
	}
	if fn.Synthetic == "package initializer" && fn.Pkg != nil {
		if init := c.inits[fn.Pkg.Pkg.Path()]; init != nil && init.used {
			return init
		}
	}
	return nil
}

// targets returns the functions a call-graph edge to node reaches: the
// node's function, or for a synthetic wrapper (bound method, interface
// method thunk, pointer-receiver wrapper) the functions the wrapper calls.
func (c *collector) targets(node *callgraph.Node, seen map[*callgraph.Node]bool) []*function {
	if seen[node] {
		return nil
	}
	seen[node] = true
	fn := node.Func
	if fn == nil {
		return nil
	}
	if def := c.definition(fn); def != nil {
		return []*function{def}
	}
	if origin := fn.Origin(); origin != nil {
		fn = origin
	}
	if obj, ok := fn.Object().(*types.Func); ok && (fn.Synthetic == "" || strings.HasPrefix(fn.Synthetic, "from type information")) {
		return []*function{c.function(obj)}
	}
	var out []*function
	for _, edge := range node.Out {
		out = append(out, c.targets(edge.Callee, seen)...)
	}
	return out
}

// rangeOverFunc returns the span "range X" of the range-over-func loop
// whose iterator the call calls, which SSA leaves without a position.
func rangeOverFunc(site ssa.CallInstruction) (pos, end token.Pos) {
	for _, arg := range site.Common().Args {
		var yield *ssa.Function
		switch arg := arg.(type) {
		case *ssa.MakeClosure:
			yield, _ = arg.Fn.(*ssa.Function)
		case *ssa.Function:
			yield = arg
		}
		if yield == nil {
			continue
		}
		if rng, ok := yield.Syntax().(*ast.RangeStmt); ok {
			return rng.Range, rng.X.End()
		}
	}
	return token.NoPos, token.NoPos
}
