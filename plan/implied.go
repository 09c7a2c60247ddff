package plan

import (
	"strings"

	"pmm.dev/pmm/spec"
)

// Implied ids (docs/RUNTIME.md, "Ids"): an allocation whose id nothing
// reads but the two tuples of its one record, and nothing orders, is
// written without an id (pmmrt.EmitPoint, 16 bytes where EmitExecPair
// writes 24, and no atomic add of NextID); the loader numbers such
// records by their position in the log. The ids of events order them
// (before, contains, calls*, a calling context's sweep) and join their
// tuples: a site takes an implied id only where neither happens.

// ExecPair splits tuples into an execution tuple (id, site) and one
// more of the same id whose value the runtime packs with it in one
// record (pmmrt.EmitExecPair, pmmrt.EmitPoint): its duration, its
// goroutine, its end, an allocation's bytes or elements; ok is false
// when tuples are not such a pair.
func ExecPair(tuples []Emit) (exec, other Emit, ok bool) {
	if len(tuples) != 2 {
		return Emit{}, Emit{}, false
	}
	exec, other = tuples[0], tuples[1]
	if !FieldCaps(exec.Fields, CapID, CapSite) {
		exec, other = other, exec
	}
	if !FieldCaps(exec.Fields, CapID, CapSite) || len(other.Fields) != 2 || !FieldCaps(other.Fields, CapID, other.Fields[1].Cap) ||
		other.Table.ID <= exec.Table.ID || other.Table.ID-exec.Table.ID > 255 {
		return Emit{}, Emit{}, false
	}
	switch other.Fields[1].Cap {
	case CapDuration, CapGoroutine, CapEnd, CapHeapBytes, CapBytes, CapElements:
		return exec, other, true
	}
	return Emit{}, Emit{}, false
}

// FieldCaps reports whether fields are plain captures of caps, in order.
func FieldCaps(fields []Field, caps ...Capture) bool {
	if len(fields) != len(caps) {
		return false
	}
	for i, f := range fields {
		if f.Cap != caps[i] || f.Expr != "" {
			return false
		}
	}
	return true
}

// markImpliedIDs sets ImpliedID on the allocation sites that can take
// an implied id (impliedID).
func markImpliedIDs(prog *spec.Program, sites []*Site) {
	for _, s := range sites {
		s.ImpliedID = impliedID(prog, s)
	}
}

// impliedID reports whether the events of allocation site s need no id
// but the one their record implies: the site records one variable of
// one question, as one execution tuple and an allocation's bytes or
// elements (ExecPair: one record, so the loader gives both tuples the
// same id), runs no test with other events (pairs, negations,
// contexts, callees, run-time aggregates) and adds to no cells, and in
// the question that variable is only the allocation and attributes of
// it that are values (no control relation, no comparison of events, no
// calling context: nothing compares its id with another event's).
func impliedID(prog *spec.Program, s *Site) bool {
	if s.Kind != spec.SiteAllocation || s.Caller || len(s.Targets) != 1 {
		return false
	}
	t := s.Targets[0]
	if t.Publish || len(t.Cells) > 0 || len(t.Vars) != 1 {
		return false
	}
	exec, other, ok := ExecPair(t.Emits)
	if !ok || exec.QIndex != other.QIndex || other.Fields[1].Cap == CapGoroutine || other.Fields[1].Cap == CapEnd ||
		other.Fields[1].Cap == CapDuration || exec.QIndex < 0 || exec.QIndex >= len(prog.Questions) {
		return false
	}
	for _, fs := range t.Filters {
		for _, f := range fs {
			if len(f.Callees) > 0 || f.Caller != "" || f.Hold != nil || f.Probe != nil || len(f.Holds) > 0 ||
				f.Absent != nil || len(f.Absences) > 0 || len(f.Exports) > 0 || f.Buffers || f.Buffered ||
				len(f.Contexts) > 0 || f.Aggregate != nil {
				return false
			}
		}
	}
	q := prog.Questions[exec.QIndex]
	name, v, ok := strings.Cut(t.Vars[0], "/")
	if !ok || name != q.Name {
		return false
	}
	for _, c := range q.Disjuncts {
		if !onlyValuesOf(c, v) {
			return false
		}
	}
	return true
}

// onlyValuesOf reports whether, in c and its negated parts, every atom
// that names variable v is an event type or an attribute whose value no
// calling context computes.
func onlyValuesOf(c *spec.Conj, v string) bool {
	for _, a := range c.Atoms {
		names := false
		for _, t := range a.Args {
			names = names || t.Var == v
		}
		if !names {
			continue
		}
		switch a.Prim.Kind {
		case spec.PointEvent:
		case spec.Attribute:
			if a.Prim.Recorded == nil || a.Prim.Recorded.Context {
				return false
			}
		default:
			return false
		}
	}
	for _, n := range c.Not {
		if !onlyValuesOf(n, v) {
			return false
		}
	}
	return true
}
