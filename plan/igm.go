package plan

import (
	"fmt"

	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/spec"
)

// Capture is a value a site takes when the event it records happens.
type Capture string

// The captures. Each has its meaning (captureMeanings, below) and its
// Go, its state field and its place among the six template parameters
// (package instrument, captureCodes).
const (
	CapID        Capture = "id"        // a new event id, taken when the event begins (it orders begins)
	CapSite      Capture = "site"      // the site's number (pmm_sites)
	CapEnd       Capture = "end"       // a new sequence number, taken when the event ends
	CapGoroutine Capture = "g"         // the goroutine id
	CapDuration  Capture = "d"         // the clock at the end minus the clock at the begin
	CapBegin     Capture = "t0"        // the clock at the begin
	CapFinish    Capture = "t1"        // the clock at the end
	CapParams    Capture = "params"    // all parameters, as a list
	CapParam     Capture = "param"     // parameter N
	CapResults   Capture = "results"   // all results, as a list
	CapResult    Capture = "result"    // result N
	CapReceiver  Capture = "recv"      // the receiver
	CapPanicked  Capture = "panicked"  // whether the execution ended by panicking
	CapCaller    Capture = "caller"    // the id of the enclosing recorded execution (call sites)
	CapDataCond  Capture = "datacond"  // the value of a Go expression at the begin or end point
	CapConst     Capture = "const"     // a constant field: N, or the expression text
	CapFunction  Capture = "function"  // the name of the function the site records, as pmm_sites has it
	CapCallLine  Capture = "line"      // the file:line of a call or allocation site (known when generated)
	CapIndex     Capture = "index"     // the index of a loop's iteration in its execution (iteration sites)
	CapCase      Capture = "case"      // the case by which a select proceeded, -1 for another operation (blocking sites)
	CapObject    Capture = "object"    // the address of what a blocking operation operates on (blocking sites)
	CapBlocked   Capture = "waited"    // whether a blocking operation's fast attempt failed, so that it waited (blocking sites)
	CapElements  Capture = "elements"  // the elements an allocation made room for (allocation sites)
	CapBytes     Capture = "bytes"     // the bytes an allocation requested (allocation sites)
	CapHeapBytes Capture = "heapbytes" // the bytes the heap took for an allocation, size-class rounded (allocation sites)
	CapAccount   Capture = "account"   // the memory account an allocation is charged to (allocation sites; read, not taken)
	CapLive      Capture = "live"      // whether an allocated object is reachable when main returns (allocation sites; written then)
)

// Captures returns all the captures, for the tests that check that every
// table of them covers each.
func Captures() []Capture {
	return []Capture{CapID, CapSite, CapEnd, CapGoroutine, CapDuration, CapBegin, CapFinish, CapParams, CapParam,
		CapResults, CapResult, CapReceiver, CapPanicked, CapCaller, CapDataCond, CapConst, CapFunction, CapCallLine, CapIndex, CapCase, CapObject, CapBlocked,
		CapElements, CapBytes, CapHeapBytes, CapAccount, CapLive}
}

// captureMeaning is when a capture is known, and what the site takes
// for it: package instrument's captureCodes say how, in Go.
type captureMeaning struct {
	atEnd bool // known only when the execution ends (else when it begins)
	// takes are the captures the site takes for it: itself when nil;
	// none for the values the site knows when it is generated.
	takes []Capture
}

// captureMeanings are the captures' meanings; CapDataCond is taken at
// the point its Field says.
var captureMeanings = map[Capture]captureMeaning{
	CapID:        {},
	CapSite:      {takes: []Capture{}},
	CapEnd:       {atEnd: true},
	CapGoroutine: {},
	CapDuration:  {atEnd: true, takes: []Capture{CapBegin, CapFinish}},
	CapBegin:     {},
	CapFinish:    {atEnd: true},
	CapParams:    {},
	CapParam:     {},
	CapResults:   {atEnd: true},
	CapResult:    {atEnd: true},
	CapReceiver:  {},
	CapPanicked:  {atEnd: true},
	CapCaller:    {},
	CapDataCond:  {},
	CapConst:     {takes: []Capture{}},
	CapFunction:  {takes: []Capture{}},
	CapCallLine:  {takes: []Capture{}},
	CapIndex:     {},
	CapCase:      {atEnd: true},
	CapObject:    {},
	CapBlocked:   {},
	CapElements:  {},
	CapBytes:     {},
	CapHeapBytes: {},
	CapAccount:   {takes: []Capture{}},
	CapLive:      {},
}

// AtEnd reports whether the value of f is known only when the execution
// ends.
func (f Field) AtEnd() bool {
	if f.Cap == CapDataCond {
		return f.N == PointEnd
	}
	return captureMeanings[f.Cap].atEnd
}

// Takes returns the captures a site takes for f.
func (f Field) Takes() []Capture {
	if m := captureMeanings[f.Cap]; m.takes != nil {
		return m.takes
	}
	return []Capture{f.Cap}
}

// The points of an execution a value is taken at (need.end, Field.N of
// CapDataCond).
const (
	PointBegin = 0
	PointEnd   = 1
)

// Field is one field of an emitted tuple.
type Field struct {
	Cap  Capture
	N    int    // CapParam, CapResult: the position; CapConst: the value; CapDataCond: the point
	Expr string // CapDataCond, or CapConst with a text value
	// Walk and Member, for CapDataCond, say that the value is a heap
	// walk from the expression's value (spec's Recording.Walk) and its
	// membership type; empty for the expression's own value.
	Walk, Member string
}

// String writes f as %v writes its first three fields, then a heap
// walk's, when it has one.
func (f Field) String() string {
	s := fmt.Sprintf("{%s %d %s", f.Cap, f.N, f.Expr)
	if f.Walk != "" {
		s += " " + f.Walk + " " + f.Member
	}
	return s + "}"
}

// need is one stored relation a site must fill for one question.
type need struct {
	prim string // the schema's Table.Prim
	n    int    // parameter, return-value: the position
	expr string // data-condition: the Go expression
	// member is a heap walk's membership type (spec.ArgTypeName).
	member string
	end    int // time: 0 for the begin point, 1 for the end point
}

func id(f ...Field) []Field { return append([]Field{{Cap: CapID}}, f...) }

// igmFields is the instrumentation generation mapping (seed 4.3.2, IGM):
// for a stored relation of the schema, the tuple a site emits for an
// event, in terms of what the site captures. Executions and their end
// points are pmm's own; an attribute's tuple follows from its vocabulary
// row (Recorded), a stored pair's is emitted at the site of the second
// event with the first event's id in CapCaller (seed Table 4.1). The six
// template parameters follow from the captures (package instrument).
func igmFields(n need) ([]Field, bool) {
	if schema.IsExecutions(n.prim) {
		return id(Field{Cap: CapSite}), true
	}
	switch n.prim {
	case "end":
		return id(Field{Cap: CapEnd}), true
	}
	p := spec.Lookup(n.prim)
	switch {
	case p == nil:
		return nil, false
	case p.Kind == spec.Attribute && p.Recorded != nil:
		fields := id()
		if p.OfPoints() {
			fields = append(fields, Field{Cap: CapConst, N: n.end})
		}
		for _, a := range p.Keys() {
			switch a.Kind {
			case spec.ArgGoExpr, spec.ArgAccounts:
				fields = append(fields, Field{Cap: CapConst, Expr: n.expr})
			case spec.ArgTypeName:
				fields = append(fields, Field{Cap: CapConst, Expr: n.member})
			default:
				fields = append(fields, Field{Cap: CapConst, N: n.n})
			}
		}
		return append(fields, recordedField(p, n)), true
	case p.Kind == spec.ControlRelation && p.Lexical && p.Stored != nil && p.Stored.Pair != [2]string{}:
		return []Field{{Cap: CapCaller}, {Cap: CapID}}, true
	}
	return nil, false
}

// recordedField is the captured value of attribute p for need n (its
// position, expression and point): the row's capture at that point.
func recordedField(p *spec.Primitive, n need) Field {
	c := Capture(p.Recorded.Capture)
	if n.end == PointEnd && p.Recorded.FinishCapture != "" {
		c = Capture(p.Recorded.FinishCapture)
	}
	f := Field{Cap: c, N: n.n, Expr: n.expr}
	if c == CapDataCond {
		f.N = n.end
		f.Walk, f.Member = p.Recorded.Walk, n.member
	}
	return f
}

// needOf is the stored relation that attribute atom a fills, at point end
// of its event: its table, position and expression (the row's Keys).
func needOf(a *spec.Atom, end int) need {
	n := need{prim: a.Prim.Name, end: end}
	for i, arg := range a.Prim.Args {
		switch {
		case i == 0 || i == len(a.Prim.Args)-1 || a.Args[i].Lit == nil:
		case arg.Kind == spec.ArgGoExpr || arg.Kind == spec.ArgAccounts:
			n.expr = a.Args[i].Lit.Str
		case arg.Kind == spec.ArgTypeName:
			n.member = a.Args[i].Lit.Str
		case arg.Kind == spec.ArgPosition:
			n.n = int(a.Args[i].Lit.Int)
		}
	}
	return n
}
