package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Point is a node of an event dependency graph: the begin or end point of
// an event variable. A point event is its own begin and end; one declared
// by (begin p x) or (end p x) is the point of x.
type Point struct {
	Var string
	End End
}

func (p Point) String() string {
	if p.End == Begin {
		return p.Var + " begins"
	}
	return p.Var + " ends"
}

// TemporalEdge says From precedes To; Atom is the control relation that
// implies it, or nil for the begin → end edge of an interval.
type TemporalEdge struct {
	From, To Point
	Atom     *Atom
}

// TemporalGraph is the event dependency graph of a conjunction (seed 001,
// Definition 1 and Algorithm 2): its nodes are the points of the
// conjunction's events and its edges the order the control relations
// imply, as the vocabulary's Temporal rows say, with begin → end for
// every interval. Negated atoms imply no order.
type TemporalGraph struct {
	Nodes []Point
	Edges []TemporalEdge
}

// BuildTemporalGraph builds the event dependency graph of c, whose
// variables have the given types.
func BuildTemporalGraph(c *Conj, types VarTypes) *TemporalGraph {
	alias := map[string]Point{} // point variable → the interval point it is
	for _, a := range c.Atoms {
		if a.Prim.PointOf() && a.Args[0].Lit == nil && a.Args[1].Lit == nil {
			alias[a.Args[0].Var] = Point{Var: a.Args[1].Var, End: a.Prim.Denotes}
		}
	}
	node := func(v string, end End) Point {
		if p, ok := alias[v]; ok {
			return p
		}
		if IsInstant(types[v]) {
			return Point{Var: v, End: Begin}
		}
		return Point{Var: v, End: end}
	}
	g := &TemporalGraph{}
	seen := map[Point]bool{}
	addNode := func(p Point) {
		if !seen[p] {
			seen[p] = true
			g.Nodes = append(g.Nodes, p)
		}
	}
	var intervals []string
	for v, t := range types {
		if IsInterval(t) {
			intervals = append(intervals, v)
		}
	}
	sort.Strings(intervals)
	for _, v := range intervals {
		b, e := Point{Var: v, End: Begin}, Point{Var: v, End: Finish}
		addNode(b)
		addNode(e)
		g.Edges = append(g.Edges, TemporalEdge{From: b, To: e})
	}
	for _, a := range c.Atoms {
		for _, e := range a.Prim.Temporal {
			from, to := a.Args[e.From.Arg], a.Args[e.To.Arg]
			if from.Lit != nil || to.Lit != nil {
				continue
			}
			f, t := node(from.Var, e.From.End), node(to.Var, e.To.End)
			addNode(f)
			addNode(t)
			g.Edges = append(g.Edges, TemporalEdge{From: f, To: t, Atom: a})
		}
	}
	return g
}

// Cycle returns the edges of a cycle of g, or nil when g is acyclic.
func (g *TemporalGraph) Cycle() []TemporalEdge {
	out := map[Point][]TemporalEdge{}
	for _, e := range g.Edges {
		out[e.From] = append(out[e.From], e)
	}
	done := map[Point]bool{}
	// path holds the nodes of the depth-first search from the root and
	// edges the edges between them: edges[k] leads from path[k] to path[k+1].
	var path []Point
	var edges []TemporalEdge
	var visit func(p Point) []TemporalEdge
	visit = func(p Point) []TemporalEdge {
		path = append(path, p)
		for _, e := range out[p] {
			for i, q := range path {
				if q == e.To {
					return append(append([]TemporalEdge(nil), edges[i:]...), e)
				}
			}
			if done[e.To] {
				continue
			}
			edges = append(edges, e)
			if c := visit(e.To); c != nil {
				return c
			}
			edges = edges[:len(edges)-1]
		}
		path = path[:len(path)-1]
		done[p] = true
		return nil
	}
	for _, p := range g.Nodes {
		if !done[p] {
			if c := visit(p); c != nil {
				return c
			}
		}
	}
	return nil
}

// checkTemporal reports a temporal dependency cycle in c (IC2).
func checkTemporal(c *Conj, types VarTypes, diags *diagnostics) {
	cycle := BuildTemporalGraph(c, types).Cycle()
	if cycle == nil {
		return
	}
	var steps []string
	var first *Atom
	for _, e := range cycle {
		why := "as every execution does"
		if e.Atom != nil {
			why = "by " + e.Atom.String()
			if first == nil || e.Atom.Pos.Line < first.Pos.Line || e.Atom.Pos.Line == first.Pos.Line && e.Atom.Pos.Col < first.Pos.Col {
				first = e.Atom
			}
		}
		steps = append(steps, fmt.Sprintf("%s before %s %s", e.From, e.To, why))
	}
	diags.errorf(first.Pos, "no execution can satisfy these relations together; check the order of their arguments",
		"temporal dependency cycle (IC2): %s", strings.Join(steps, "; "))
}
