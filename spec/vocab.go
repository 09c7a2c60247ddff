package spec

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Kind classifies a primitive of the vocabulary (seed 001, appendix A).
type Kind int

// The kinds of primitives.
const (
	IntervalEvent   Kind = iota + 1 // an event with a begin and an end point
	PointEvent                      // an event at one point of execution
	Attribute                       // relates an event to a value observed at it
	ControlRelation                 // a temporal relation between events
	ValueRelation                   // a comparison between values
	// AggregateRelation is an aggregate defined with defevent or
	// defquestion (seed A.3), used in a formula as a relation: its
	// input positions, then the number. Its rows are not in the table:
	// each aggregate of a program has one (AggregateRelationOf).
	AggregateRelation
)

func (k Kind) String() string {
	switch k {
	case IntervalEvent:
		return "interval event"
	case PointEvent:
		return "point event"
	case Attribute:
		return "attribute"
	case ControlRelation:
		return "control relation"
	case ValueRelation:
		return "value relation"
	case AggregateRelation:
		return "aggregate relation"
	}
	return "unknown kind"
}

// ArgKind says what an argument position of a primitive holds.
type ArgKind int

// The kinds of arguments.
const (
	ArgEvent    ArgKind = iota + 1 // an event variable of one of Arg.Events
	ArgValue                       // a value: a variable or a literal
	ArgPosition                    // a literal integer ≥ 1 (parameter or result position)
	ArgFuncName                    // a function name: a string or quoted symbol, or a variable
	ArgGoExpr                      // a side-effect-free Go expression, as a string literal
	ArgAccounts                    // package patterns, the memory accounts, as a string literal (accounts.go)
	ArgTypeName                    // a named Go type ("main.Node", "example.com/m/pkg.T") or "*", as a string literal
)

// AnyType is the ArgTypeName that stands for every type: a heap walk
// of everything reachable.
const AnyType = "*"

// The event types of the Go vocabulary.
const (
	TypeFunctionExecution = "function-execution"
	TypeRegionExecution   = "region-execution"
	TypeIteration         = "loop-iteration"
	TypeBlocking          = "blocking-operation"
	TypeGoroutine         = "goroutine-execution"
	TypeAllocation        = "allocation"
	TypePoint             = "point"
)

// IsInterval reports whether the event type t is recorded as an interval
// with an id taken at its begin and an end sequence number: a recorded
// event type (one with a Table) that is an interval event.
func IsInterval(t string) bool {
	p := recordedType(t)
	return p != nil && p.Kind == IntervalEvent
}

// IsRegion reports whether the event type t is one recorded at a part of
// a function's body, named by a function and a label or a kind: a
// region's executions, a loop's iterations, a blocking operation, a
// goroutine (at its go statement, named by the function it starts), an
// allocation; every recorded type but function-execution. Run time
// tests none of them: SQL decides their questions.
func IsRegion(t string) bool {
	return recordedType(t) != nil && t != TypeFunctionExecution
}

// IsInstant reports whether the event type t is of events at one point
// of execution, their own begin and end: a point, or a recorded point
// event type (an allocation).
func IsInstant(t string) bool {
	if t == TypePoint {
		return true
	}
	p := recordedType(t)
	return p != nil && p.Kind == PointEvent
}

// recordedType returns the row of event type t when sites record its
// events (its Table), else nil.
func recordedType(t string) *Primitive {
	if p := Lookup(t); p != nil && p.Table != "" {
		return p
	}
	return nil
}

// EventTables returns the stored relations of the recorded event types
// (their rows' Table), in the vocabulary's order.
func EventTables() []string {
	var tables []string
	for _, p := range vocabulary {
		if p.Table != "" {
			tables = append(tables, p.Table)
		}
	}
	return tables
}

// RecordedAt returns the recorded event type whose events sites of kind
// k record, or nil.
func RecordedAt(k SiteKind) *Primitive {
	for _, p := range vocabulary {
		if p.Table != "" && slices.Contains(p.Sites, k) {
			return p
		}
	}
	return nil
}

// AttrGoroutine is the attribute whose stored relation the views of the
// control relations that stay on one goroutine read (Storage.Derived).
const AttrGoroutine = "goroutine"

// The control relations later stages read by name: whether a question
// relates an execution to the allocations it contains, on its goroutine
// (sites: allocations outside the module).
const (
	RelContains      = "contains"
	RelCallsStar     = "calls*"
	RelSameGoroutine = "same-goroutine"
)

// ValueType is the type of the value an attribute yields; later stages
// use it to type the generated recording code.
type ValueType string

// The value types.
const (
	ValInt      ValueType = "int"      // int64
	ValBool     ValueType = "bool"     // bool
	ValDuration ValueType = "duration" // nanoseconds, int64
	ValTime     ValueType = "time"     // nanoseconds since the run began, int64
	ValList     ValueType = "list"     // a tuple of Go values (parameters, results)
	ValAny      ValueType = "any"      // a Go value whose type the site decides
	ValName     ValueType = "name"     // a function name, string
	ValText     ValueType = "text"     // a string
)

// Arg describes one argument position of a primitive.
type Arg struct {
	Name   string
	Kind   ArgKind
	Events []string  // ArgEvent: the event types accepted
	Value  ValueType // ArgValue: the type of the value
}

// End names the begin or end point of an interval event; a point event's
// begin and end are the same point.
type End int

// The two ends of an event.
const (
	Begin End = iota
	Finish
)

func (e End) String() string {
	if e == Begin {
		return "begin"
	}
	return "end"
}

// PointRef is the begin or end point of the event at argument Arg.
type PointRef struct {
	Arg int
	End End
}

// Edge says that point From precedes point To (seed Table 5.1).
type Edge struct{ From, To PointRef }

// SiteKind is a kind of place in Go source where an event can be recorded.
type SiteKind string

// The site kinds.
const (
	SiteDefinition SiteKind = "definition" // the body of a function
	SiteCall       SiteKind = "call"       // a call expression
	SiteRegion     SiteKind = "region"     // a labeled statement of a body
	SiteIteration  SiteKind = "iteration"  // the body of a labeled loop
	SiteBlocking   SiteKind = "blocking"   // an operation that may block its goroutine
	SiteGo         SiteKind = "go"         // a go statement
	SiteAllocation SiteKind = "allocation" // an expression that allocates on the heap
)

// Primitive is one row of the vocabulary: an event type, attribute,
// control relation or value relation, with everything the stages of pmm
// need to know about it.
type Primitive struct {
	Name    string
	Kind    Kind
	Args    []Arg
	Doc     string // one sentence: what it means
	Example string // an example of its use, in PMM syntax

	// Temporal is the temporal meaning of a control relation: the order it
	// implies between the points of its arguments (seed Table 5.1); the
	// event dependency graph is built from it.
	Temporal []Edge
	// Static is the static approximation of this primitive (seed 4.2.2,
	// SMAP): an SQL condition over static.db (docs/STATIC.md) that holds
	// for the sites of every tuple of the primitive. {1}, {2} stand for
	// the arguments: an event argument is a row of the functions table, a
	// function name its match_name. Empty when nothing approximates it:
	// attributes and comparisons are tested at run time (seed 4.2.3), and
	// so are relations that span goroutines.
	Static string
	// Lexical says that the second event's call site lies in the body of
	// the first, so data passes between their sites through the first's
	// local variables (seed Table 4.1), and the second event is recorded
	// at those call sites.
	Lexical bool
	// Sites are the kinds of sites where an event of this type is
	// recorded; for an attribute, the kinds of its event's sites that know
	// its value (sites/ records the event only there), empty when all do;
	// empty for other primitives.
	Sites []SiteKind
	// Table, for an event type that sites record, is its stored
	// relation: one (id, site) row per event recorded, ids from one
	// counter, so that every later stage reads each type alike.
	Table string
	// Denotes, for the point events begin and end, which point of the
	// interval (the second argument) the point (the first argument) is.
	Denotes End
	// Definition, for a primitive defined by others, is its meaning as a
	// set-former over its arguments, in PMM ("((x) s.t. ...)"): it names
	// only rows without a Definition. Normalization expands it (and drops
	// an event type test that a declaration of the same variable already
	// makes), so no later stage meets the row; the reference evaluator
	// answers it directly. The rows of the seed's appendix A that pmm
	// records through others are such rows: interval, point,
	// function-invocation and function-name.
	Definition string
	// Recorded, for an attribute that sites record, is how: the value a
	// site takes for it and the column that stores it. Nil for the rows
	// with a Definition.
	Recorded *Recording
	// Stored, for a control relation, is how its tuples reach the
	// database: as pairs of event ids, or derived in the views from the
	// stored relations it names.
	Stored *Storage
	// Compares, for a value relation, is how the stages write it: in
	// the generated Go, in the answers' SQL.
	Compares *Comparison
	// Aggregated, for an AggregateRelation, is the aggregate question
	// whose answer the relation is: its view, in run, is what a formula
	// joins (the aggregate's condition is applied by SQL, never at run
	// time).
	Aggregated *Question
}

// Recording is how sites record an attribute. When its value is known
// (at the begin or the end of the execution) is the capture's (package
// plan, captureMeanings): one place says it.
type Recording struct {
	// Capture names the value a site takes for the attribute (package
	// plan's Capture): at the begin point, or at the only point.
	Capture string
	// FinishCapture, for an attribute of points, is the capture taken at
	// an end point, when it is not Capture.
	FinishCapture string
	// Column is the name of its value column in the schema ("v" when
	// empty); its SQL type follows from the value argument's ValueType.
	Column string
	// Tested says that run-time tests (filters, pairs, the keys of
	// run-time aggregates) may read the captured value; the others are
	// only stored, and their tests are SQL's.
	Tested bool
	// Walk, for an attribute whose value is a heap walk from the value
	// of its Go expression (captured as a data-condition's), is what
	// the walk counts: "objects" or "bytes" (docs/MEMORY.md, "Heap
	// structures").
	Walk string
	// Context says that the value is computed after the run, not taken by
	// the site: the site stores its event's goroutine in the column, and
	// cmd/pmm replaces it with the event's calling context, read from the
	// executions the frames question (FramesQuestion) records.
	Context bool
}

// Comparison is how a value relation is written in the languages pmm
// generates.
type Comparison struct {
	Go  string // the Go operator
	SQL string // the SQL operator
	// NullSQL, for = and /=, is the SQL operator that compares with NULL
	// (IS, IS NOT); empty for an ordering, which NULL makes unknown.
	NullSQL string
	// Binds says that the relation is equality: where one side is known
	// and the other a variable not bound yet, it binds the variable.
	Binds bool
}

// Storage is how the tuples of a control relation are stored.
type Storage struct {
	// Pair, for a relation recorded at the site of its second event
	// (Lexical), names the columns of the first and second event ids of
	// its stored relation, which bears the primitive's name.
	Pair [2]string
	// Derived, for a relation the views compute, names the stored
	// relations it reads: "end" (end sequence numbers) and attributes.
	Derived []string
	// Go says that the first event starts the second with a go
	// statement: its call sites are go statements, and no others.
	Go bool
	// Closure, for a transitive relation, extends a set reach(id) of
	// functions (static.db) by those its events may reach: SQL UNION
	// terms that sites/ appends to its own start set, as Static does.
	Closure string
}

// IsEvent reports whether p is an event type.
func (p *Primitive) IsEvent() bool { return p.Kind == IntervalEvent || p.Kind == PointEvent }

// OfPoints reports whether p's first argument may be a point event, so
// that its tuples say which point of an execution they are of.
func (p *Primitive) OfPoints() bool {
	for _, e := range p.Args[0].Events {
		if e == TypePoint {
			return true
		}
	}
	return false
}

// PointOf reports whether p is a point event of an interval: begin or
// end, whose first argument is the point and second the interval.
func (p *Primitive) PointOf() bool {
	return p.Kind == PointEvent && len(p.Args) == 2 && p.Args[1].Kind == ArgEvent
}

// Keys are the arguments of attribute p between its event and its value:
// which parameter or result, which Go expression.
func (p *Primitive) Keys() []Arg {
	if p.Kind != Attribute || len(p.Args) < 2 {
		return nil
	}
	return p.Args[1 : len(p.Args)-1]
}

// The shapes of control relations that the run-time analyses of package
// plan recognize, read from the row's columns rather than its name.

// Nests reports whether p's second event lies within its first (its
// temporal meaning is that of calls, calls* and contains).
func (p *Primitive) Nests() bool { return slices.Equal(p.Temporal, nests) }

// Calls reports whether p relates an execution to those it calls, on its
// goroutine: directly (recorded at the call sites in its body) or
// transitively (closed over the call graph).
func (p *Primitive) Calls() bool { return p.Nests() && (p.Lexical || p.Transitive()) }

// Transitive reports whether p is closed over the call graph (Closure).
func (p *Primitive) Transitive() bool { return p.Stored != nil && p.Stored.Closure != "" }

// EndsBefore reports whether p says exactly that its first event ends
// before its second begins.
func (p *Primitive) EndsBefore() bool {
	return len(p.Temporal) == 1 && p.Temporal[0] == Edge{ends(0), begins(1)}
}

// Arity is the number of arguments of p.
func (p *Primitive) Arity() int { return len(p.Args) }

var (
	anyEvent = []string{TypeFunctionExecution, TypeRegionExecution, TypeIteration, TypeBlocking, TypeGoroutine, TypeAllocation, TypePoint}
	fnExec   = []string{TypeFunctionExecution}
	// intervals are the executions of functions and of regions, the
	// iterations of loops, blocking operations and goroutines: what
	// durations, goroutines, points and containment apply to.
	intervals = []string{TypeFunctionExecution, TypeRegionExecution, TypeIteration, TypeBlocking, TypeGoroutine}
	point     = []string{TypePoint}
	// onGoroutine are the events that run on one goroutine: intervals
	// and allocations.
	onGoroutine = append(slices.Clone(intervals), TypeAllocation)
	allocation  = []string{TypeAllocation}
	// fnExecOrPoint are the events whose scope a Go expression can be
	// evaluated in.
	fnExecOrPoint = []string{TypeFunctionExecution, TypePoint}
	// walkPoints are the events a heap walk can be taken at: those, and
	// an allocation (in its function's scope, once the value is made).
	walkPoints = []string{TypeFunctionExecution, TypePoint, TypeAllocation}
)

// execAndName are the arguments of function-execution and function-name:
// an execution and the name of its function.
var execAndName = []Arg{{Name: "x", Kind: ArgEvent, Events: fnExec}, {Name: "name", Kind: ArgFuncName}}

// begins and ends are shorthands for the rows of Temporal.
func begins(arg int) PointRef { return PointRef{Arg: arg, End: Begin} }
func ends(arg int) PointRef   { return PointRef{Arg: arg, End: Finish} }

// nests is the temporal meaning of calls, calls* and contains: the second
// event lies within the first.
var nests = []Edge{{begins(0), begins(1)}, {ends(1), ends(0)}}

// callsStarClosure extends reach(id) by what its functions call on the
// same goroutine: go statements start other goroutines and do not count.
// Functions that code outside the module may call back count, since the
// call graph has no edges through that code: callback_targets, and
// callback_sets, whose set ids enter reach negated so that each set is
// expanded once.
const callsStarClosure = "UNION SELECT t.callee_id FROM reach r JOIN calls c ON c.caller_id = r.id JOIN call_targets t ON t.call_id = c.id WHERE c.via <> 'go' " +
	"UNION SELECT t.callee_id FROM reach r JOIN calls c ON c.caller_id = r.id JOIN callback_targets t ON t.call_id = c.id WHERE c.via <> 'go' " +
	"UNION SELECT -s.set_id FROM reach r JOIN calls c ON c.caller_id = r.id JOIN callback_sets s ON s.call_id = c.id WHERE c.via <> 'go' " +
	"UNION SELECT m.callee_id FROM reach r JOIN callback_set_members m ON m.set_id = -r.id"

// vocabulary is the table of Go primitives. Adding a primitive is adding a
// row here (and its templates in the later stages), not a code path.
var vocabulary = []*Primitive{
	{
		Name: TypeFunctionExecution, Kind: IntervalEvent,
		Args:    execAndName,
		Doc:     "x is an execution of the function called name, from its entry to its return or panic.",
		Example: `(function-execution x "main.F")`,
		Static:  "{1}.match_name = {2}",
		Sites:   []SiteKind{SiteDefinition, SiteCall},
		Table:   "exec",
	},
	// Seed A.1: function-execution is derived from function-invocation
	// and function-name. pmm records function-execution, so the two are
	// defined by it: the same equivalence, read the other way.
	typeTest("function-invocation", IntervalEvent, "x",
		"x is an invocation of a function, whichever function it is: an execution, from its entry to its return or panic.",
		"((x) s.t. (exists (name) (function-execution x name)))"),
	{
		Name: "function-name", Kind: Attribute,
		Args:       execAndName,
		Doc:        "name is the name of the function of which x is an invocation.",
		Example:    `(function-name x "main.F")`,
		Definition: "((x name) s.t. (function-execution x name))",
	},
	{
		Name: TypeRegionExecution, Kind: IntervalEvent,
		Args: []Arg{
			{Name: "r", Kind: ArgEvent, Events: []string{TypeRegionExecution}},
			{Name: "name", Kind: ArgFuncName},
			{Name: "label", Kind: ArgValue, Value: ValText},
		},
		Doc: "r is an execution of the statement labeled label (a for, range, switch, select or block statement), or of the statements " +
			"a //pmm:region label comment marks, in the body of the function called name: from its begin to the first point where control leaves it.",
		Example: `(region-execution r "main.F" "parse")`,
		Sites:   []SiteKind{SiteRegion},
		Table:   "region",
	},
	{
		Name: TypeIteration, Kind: IntervalEvent,
		Args: []Arg{
			{Name: "i", Kind: ArgEvent, Events: []string{TypeIteration}},
			{Name: "name", Kind: ArgFuncName},
			{Name: "label", Kind: ArgValue, Value: ValText},
		},
		Doc: "i is an iteration of the loop labeled label (a for or range statement, or one a //pmm:region comment marks) " +
			"in the body of the function called name: from the top of its body to the top of the next iteration's, or to where control leaves the loop.",
		Example: `(loop-iteration i "main.F" "rows")`,
		Sites:   []SiteKind{SiteIteration},
		Table:   "iteration",
	},
	{
		Name: TypeBlocking, Kind: IntervalEvent,
		Args: []Arg{
			{Name: "b", Kind: ArgEvent, Events: []string{TypeBlocking}},
			{Name: "name", Kind: ArgFuncName},
			{Name: "kind", Kind: ArgValue, Value: ValText},
			{Name: "operand", Kind: ArgValue, Value: ValText},
		},
		Doc: "b is an operation of kind kind (send, recv, select, range, lock, rlock, wait) in the body of the function called name, " +
			"on operand (the channel, mutex, wait group or condition as written; \"\" for a select): from its begin to when it proceeds, the time its goroutine may be blocked.",
		Example: `(blocking-operation b "main.Handle" "lock" "s.mu")`,
		Sites:   []SiteKind{SiteBlocking},
		Table:   "blocking",
	},
	{
		Name: TypeGoroutine, Kind: IntervalEvent,
		Args: []Arg{
			{Name: "g", Kind: ArgEvent, Events: []string{TypeGoroutine}},
			{Name: "name", Kind: ArgFuncName},
		},
		Doc: "g is a goroutine that a go statement starts with the function called name (a function literal's name is its enclosing function's " +
			"with .func1, .func2, ... as pprof names it): from the go statement, before its function value and arguments are evaluated, " +
			"to when that function returns, panics or calls runtime.Goexit; its goroutine is the new one.",
		Example: `(goroutine-execution g "main.worker")`,
		Sites:   []SiteKind{SiteGo},
		Table:   "go",
	},
	{
		Name: TypeAllocation, Kind: PointEvent,
		Args: []Arg{
			{Name: "a", Kind: ArgEvent, Events: allocation},
			{Name: "name", Kind: ArgFuncName},
			{Name: "kind", Kind: ArgValue, Value: ValText},
			{Name: "type", Kind: ArgValue, Value: ValText},
		},
		Doc: "a is a heap allocation of kind kind (new, composite, make-slice, append, concat, conversion, closure) " +
			"at a site in the body of the function called name that the compiler's escape analysis puts on the heap, of Go type type " +
			"(the object's for new and &T{...}, else the slice, string or func type): the point at which the allocated value is ready.",
		Example: `(allocation a "main.Parse" "make-slice" "[]byte")`,
		Sites:   []SiteKind{SiteAllocation},
		Table:   "alloc",
	},
	// Seed A.1: an interval is a new type of entity, with a starting and
	// an ending point; function invocations are its only subtype in Go's
	// vocabulary today. A point occurs at a single point of execution.
	typeTest("interval", IntervalEvent, "x",
		"x is an interval event: today, an execution of any function.",
		"((x) s.t. (exists (name) (function-execution x name)))"),
	typeTest(TypePoint, PointEvent, "p",
		"p is a point event: today, the begin or end point of an execution of any function.",
		"((p) s.t. (exists (x name) (and (function-execution x name) (or (begin p x) (end p x)))))"),
	{
		Name: "begin", Kind: PointEvent, Denotes: Begin,
		Args: []Arg{
			{Name: "p", Kind: ArgEvent, Events: point},
			{Name: "x", Kind: ArgEvent, Events: intervals},
		},
		Doc:     "p is the point at which the interval x begins.",
		Example: `(begin p x)`,
	},
	{
		Name: "end", Kind: PointEvent, Denotes: Finish,
		Args: []Arg{
			{Name: "p", Kind: ArgEvent, Events: point},
			{Name: "x", Kind: ArgEvent, Events: intervals},
		},
		Doc:     "p is the point at which the interval x ends.",
		Example: `(end p x)`,
	},
	attribute("parameters", fnExec, ValList,
		"v is the list of the parameters (arguments) of x, receiver excluded.",
		`(parameters x v)`, &Recording{Capture: "params", Tested: true}),
	{
		Name: "parameter", Kind: Attribute,
		Args: []Arg{
			{Name: "x", Kind: ArgEvent, Events: fnExec},
			{Name: "n", Kind: ArgPosition},
			{Name: "v", Kind: ArgValue, Value: ValAny},
		},
		Doc:      "v is the n-th parameter of x, counting from 1, receiver excluded.",
		Example:  `(parameter x 1 v)`,
		Recorded: &Recording{Capture: "param", Tested: true},
	},
	attribute("return-values", fnExec, ValList,
		"v is the list of the results of x (empty if x panicked).",
		`(return-values x v)`, &Recording{Capture: "results", Tested: true}),
	{
		Name: "return-value", Kind: Attribute,
		Args: []Arg{
			{Name: "x", Kind: ArgEvent, Events: fnExec},
			{Name: "n", Kind: ArgPosition},
			{Name: "v", Kind: ArgValue, Value: ValAny},
		},
		Doc:      "v is the n-th result of x, counting from 1.",
		Example:  `(return-value x 1 v)`,
		Recorded: &Recording{Capture: "result", Tested: true},
	},
	attribute("duration", intervals, ValDuration,
		"d is the wall-clock duration of x in nanoseconds.",
		`(duration x d)`, &Recording{Capture: "d", Column: "d", Tested: true}),
	eventNamed("i", attribute("iteration-index", []string{TypeIteration}, ValInt,
		"n is the index of iteration i in its loop's execution, counting from 0.",
		`(iteration-index i n)`, &Recording{Capture: "index"})),
	eventNamed("b", attribute("blocking-object", []string{TypeBlocking}, ValInt,
		"addr is the address of the channel, mutex, wait group or condition that b operates on (0 for a select): operations with one address are on one object.",
		`(blocking-object b addr)`, &Recording{Capture: "object"})),
	eventNamed("b", attribute("select-case", []string{TypeBlocking}, ValInt,
		"n is the index, from 0 in source order, of the case by which the select b proceeded; -1 when b is not a select.",
		`(select-case b n)`, &Recording{Capture: "case"})),
	eventNamed("b", attribute("operation-blocked", []string{TypeBlocking}, ValBool,
		"v is true when b could not proceed when it began (its goroutine waited), false when it proceeded at once.",
		`(operation-blocked b v)`, &Recording{Capture: "waited"})),
	{
		Name: "blocked", Kind: Attribute,
		Args:       []Arg{{Name: "b", Kind: ArgEvent, Events: []string{TypeBlocking}}},
		Doc:        "b could not proceed when it began: its goroutine waited (operation-blocked b true).",
		Example:    `(blocked b)`,
		Definition: "((b) s.t. (operation-blocked b true))",
	},
	eventNamed("a", attribute("allocation-elements", allocation, ValInt,
		"n is the number of elements allocation a made room for: a slice's capacity (of a make, a literal, an append that grew, a conversion to a slice), a string's length; 1 for new, &T{...} and a closure.",
		`(allocation-elements a n)`, &Recording{Capture: "elements"})),
	eventNamed("a", attribute("allocation-bytes", allocation, ValInt,
		"n is the number of bytes allocation a requested: the elements times the element's size; a closure's code pointer and captured variables.",
		`(allocation-bytes a n)`, &Recording{Capture: "bytes"})),
	eventNamed("a", attribute("allocation-heap-bytes", allocation, ValInt,
		"n is the number of bytes the heap took for allocation a: its requested bytes rounded up to the allocator's size class (what runtime.MemStats.TotalAlloc counts).",
		`(allocation-heap-bytes a n)`, &Recording{Capture: "heapbytes"})),
	eventNamed("a", attribute("allocation-line", allocation, ValText,
		"l is the position of allocation a's site, file:line with the file relative to the module root.",
		`(allocation-line a l)`, &Recording{Capture: "line"})),
	// Memory accounts and liveness (seed 002, ASGMemProf; issue 13).
	{
		Name: "allocation-account", Kind: Attribute,
		Args: []Arg{
			{Name: "a", Kind: ArgEvent, Events: allocation},
			{Name: "accounts", Kind: ArgAccounts},
			{Name: "acc", Kind: ArgValue, Value: ValText},
		},
		Doc: "acc is the memory account allocation a is charged to: of the package patterns accounts (\"example.com/m/parser example.com/m/db/...\"), " +
			"the one that matches the package of the nearest frame of a's goroutine, from the allocating function outwards, whose package some pattern matches " +
			"(the most specific pattern when several do); frames of other packages, the agents, are skipped; \"\" when no frame's package matches.",
		Example:  `(allocation-account a "example.com/m/parser example.com/m/db/..." acc)`,
		Recorded: &Recording{Capture: "account"},
	},
	eventNamed("a", attribute("allocation-live", allocation, ValBool,
		"b is true when the object allocation a allocated is still reachable after a full garbage collection when main returns, false when it is not (objects pmm itself refers to only weakly).",
		`(allocation-live a b)`, &Recording{Capture: "live"})),
	// Calling contexts (issue 13, seed 003): its own section, below.
	callingContext,
	attribute(AttrGoroutine, onGoroutine, ValInt,
		"g is the id of the goroutine x runs on.",
		`(goroutine x g)`, &Recording{Capture: "g", Column: "g"}),
	{
		Name: "caller-line", Kind: Attribute,
		Args: []Arg{{Name: "x", Kind: ArgEvent, Events: fnExec}, {Name: "l", Kind: ArgValue, Value: ValText}},
		Doc: "l is the position, file:line with the file relative to the module root, of the call, " +
			"go or defer statement that started x; only call sites know it.",
		Example:  `(caller-line x l)`,
		Sites:    []SiteKind{SiteCall},
		Recorded: &Recording{Capture: "line"},
	},
	attribute("receiver", fnExec, ValAny,
		"r is the receiver of the method execution x.",
		`(receiver x r)`, &Recording{Capture: "recv", Tested: true}),
	attribute("panicked", fnExec, ValBool,
		"b is true when x ended by panicking.",
		`(panicked x b)`, &Recording{Capture: "panicked", Tested: true}),
	attribute("time", point, ValTime,
		"t is the time of point p, in nanoseconds since the run began.",
		`(time p t)`, &Recording{Capture: "t0", FinishCapture: "t1", Column: "t"}),
	{
		Name: "data-condition", Kind: Attribute,
		Args: []Arg{
			{Name: "p", Kind: ArgEvent, Events: fnExecOrPoint},
			{Name: "expr", Kind: ArgGoExpr},
			{Name: "v", Kind: ArgValue, Value: ValAny},
		},
		Doc: "v is the value of the Go expression expr, evaluated in the scope of point p " +
			"(of the begin point when p is an interval); expr must have no side effects.",
		Example:  `(data-condition x "len(items)" n)`,
		Recorded: &Recording{Capture: "datacond", Tested: true},
	},
	// Heap structures (seed 000): walks from a value at a point.
	heapWalk("reachable-objects", "objects",
		"n is the number of distinct objects reachable from the value of the Go expression expr at point p (as data-condition evaluates it; at an allocation, in its function's scope once the value is made) "+
			"that are of the named type type, walking from that value only through pointers to type, and slices, maps and interfaces holding type or pointers to it; "+
			"\"*\" counts every object reachable (docs/MEMORY.md defines an object).",
		`(reachable-objects p "l" "main.Node" n)`),
	heapWalk("reachable-bytes", "bytes",
		"b is the sum of the sizes of the objects reachable-objects counts: unsafe.Sizeof of a pointer's target, a slice's capacity times its element's size, "+
			"a string's length, a map's entries' keys and values.",
		`(reachable-bytes p "l" "*" b)`),
	{
		Name: "before", Kind: ControlRelation,
		Args:     []Arg{{Name: "a", Kind: ArgEvent, Events: anyEvent}, {Name: "b", Kind: ArgEvent, Events: anyEvent}},
		Doc:      "a ends before b begins.",
		Example:  `(before g1 g2)`,
		Temporal: []Edge{{ends(0), begins(1)}},
		Stored:   &Storage{Derived: []string{"end"}},
	},
	{
		Name: RelContains, Kind: ControlRelation,
		Args:     []Arg{{Name: "a", Kind: ArgEvent, Events: intervals}, {Name: "b", Kind: ArgEvent, Events: anyEvent}},
		Doc:      "b happens while a runs: a begins before b begins and b ends before a ends.",
		Example:  `(contains f p)`,
		Temporal: nests, // it spans goroutines: no static approximation
		Stored:   &Storage{Derived: []string{"end"}},
	},
	{
		Name: "calls", Kind: ControlRelation,
		Args:     []Arg{{Name: "a", Kind: ArgEvent, Events: fnExec}, {Name: "b", Kind: ArgEvent, Events: fnExec}},
		Doc:      "a calls b directly.",
		Example:  `(calls f g)`,
		Temporal: nests,
		Static: "EXISTS (SELECT 1 FROM calls c JOIN call_targets t ON t.call_id = c.id " +
			"WHERE c.caller_id = {1}.id AND t.callee_id = {2}.id AND c.via <> 'go')",
		Lexical: true,
		Stored:  &Storage{Pair: [2]string{"caller", "callee"}},
	},
	{
		Name: RelCallsStar, Kind: ControlRelation,
		Args:     []Arg{{Name: "a", Kind: ArgEvent, Events: fnExec}, {Name: "b", Kind: ArgEvent, Events: fnExec}},
		Doc:      "a calls b directly or through other calls on the same goroutine.",
		Example:  `(calls* f g)`,
		Temporal: nests,
		// Reachability from the candidates of a only, rather than the
		// calls_star_static view, which closes the whole call graph.
		Static: "{2}.id IN (WITH RECURSIVE reach(id) AS (" +
			"SELECT t.callee_id FROM calls c JOIN call_targets t ON t.call_id = c.id WHERE c.caller_id = {1}.id AND c.via <> 'go' " +
			"UNION SELECT t.callee_id FROM calls c JOIN callback_targets t ON t.call_id = c.id WHERE c.caller_id = {1}.id AND c.via <> 'go' " +
			"UNION SELECT -s.set_id FROM calls c JOIN callback_sets s ON s.call_id = c.id WHERE c.caller_id = {1}.id AND c.via <> 'go' " +
			callsStarClosure + ") SELECT id FROM reach)",
		Stored: &Storage{Derived: []string{"end", AttrGoroutine}, Closure: callsStarClosure},
	},
	{
		Name: "spawns", Kind: ControlRelation,
		Args:     []Arg{{Name: "a", Kind: ArgEvent, Events: fnExec}, {Name: "b", Kind: ArgEvent, Events: []string{TypeFunctionExecution, TypeGoroutine}}},
		Doc:      "a executes the go statement that starts b on a new goroutine: b is the goroutine, or the first execution on it.",
		Example:  `(spawns f w)`,
		Temporal: []Edge{{begins(0), begins(1)}},
		Static:   "EXISTS (SELECT 1 FROM spawns_static s WHERE s.def_id = {1}.id AND s.callee_def_id = {2}.id)",
		Lexical:  true,
		Stored:   &Storage{Pair: [2]string{"parent", "child"}, Go: true},
	},
	{
		Name: RelSameGoroutine, Kind: ControlRelation,
		Args:    []Arg{{Name: "a", Kind: ArgEvent, Events: anyEvent}, {Name: "b", Kind: ArgEvent, Events: anyEvent}},
		Doc:     "a and b run on the same goroutine.",
		Example: `(same-goroutine f g)`,
		Stored:  &Storage{Derived: []string{AttrGoroutine}},
	},
	equality,
	comparison("/=", "a differs from b.", &Comparison{Go: "!=", SQL: "<>", NullSQL: "IS NOT"}),
	comparison("<", "a is less than b.", &Comparison{Go: "<", SQL: "<"}),
	comparison("<=", "a is less than or equal to b.", &Comparison{Go: "<=", SQL: "<="}),
	comparison(">", "a is greater than b.", &Comparison{Go: ">", SQL: ">"}),
	comparison(">=", "a is greater than or equal to b.", &Comparison{Go: ">=", SQL: ">="}),
}

// typeTest is the row of an event type that others define: (name v)
// holds for every event v of the type.
func typeTest(name string, kind Kind, v, doc, definition string) *Primitive {
	events := fnExec
	if kind == PointEvent {
		events = point
	}
	return &Primitive{
		Name: name, Kind: kind,
		Args:       []Arg{{Name: v, Kind: ArgEvent, Events: events}},
		Doc:        doc,
		Example:    "(" + name + " " + v + ")",
		Definition: definition,
	}
}

// AggregateRelationOf is the row of aggregate question q used as a
// relation in formulas: one value argument per input position of its
// activity, then the aggregate's number.
func AggregateRelationOf(q *Question) *Primitive {
	p := &Primitive{Name: q.Name, Kind: AggregateRelation, Aggregated: q,
		Doc: "the answer of the aggregate " + q.Name + " (seed A.3): its group keys, then its " + q.Aggregate.Op}
	example := []string{q.Name}
	for i, in := range q.Aggregate.Inputs {
		if in {
			p.Args = append(p.Args, Arg{Name: q.Head[i], Kind: ArgValue, Value: ValAny})
			example = append(example, q.Head[i])
		}
	}
	result := ValAny
	if q.Aggregate.Op == "count" {
		result = ValInt
	}
	p.Args = append(p.Args, Arg{Name: q.Aggregate.Op, Kind: ArgValue, Value: result})
	p.Example = "(" + strings.Join(append(example, "n"), " ") + ")"
	return p
}

// WalkKey identifies a heap walk: the Go expression it walks from and
// its membership type, as one line (the runtime's notes of an
// incomplete walk name it so, and plan.json's walks).
func WalkKey(expr, member string) string {
	return strconv.Quote(expr) + " " + strconv.Quote(member)
}

// heapWalk is the row of an attribute whose value is a heap walk of
// kind walk from the value of a Go expression, limited by a type.
func heapWalk(name, walk, doc, example string) *Primitive {
	return &Primitive{
		Name: name, Kind: Attribute,
		Args: []Arg{
			{Name: "p", Kind: ArgEvent, Events: walkPoints},
			{Name: "expr", Kind: ArgGoExpr},
			{Name: "type", Kind: ArgTypeName},
			{Name: "n", Kind: ArgValue, Value: ValInt},
		},
		Doc:      doc,
		Example:  example,
		Recorded: &Recording{Capture: "datacond", Tested: true, Walk: walk},
	}
}

func attribute(name string, of []string, vt ValueType, doc, example string, recorded *Recording) *Primitive {
	return &Primitive{
		Name: name, Kind: Attribute,
		Args:     []Arg{{Name: "x", Kind: ArgEvent, Events: of}, {Name: "v", Kind: ArgValue, Value: vt}},
		Doc:      doc,
		Example:  example,
		Recorded: recorded,
	}
}

// eventNamed names the event argument of row p v, as its doc does.
func eventNamed(v string, p *Primitive) *Primitive {
	p.Args[0].Name = v
	return p
}

func comparison(op, doc string, c *Comparison) *Primitive {
	return &Primitive{
		Name: op, Kind: ValueRelation,
		Args:     []Arg{{Name: "a", Kind: ArgValue, Value: ValAny}, {Name: "b", Kind: ArgValue, Value: ValAny}},
		Doc:      doc,
		Example:  "(" + op + " a b)",
		Compares: c,
	}
}

// equality is the row of =, which the stages also use for the equalities
// they make (Equality).
var equality = comparison("=", "a equals b (values, or the same event).", &Comparison{Go: "==", SQL: "=", NullSQL: "IS", Binds: true})

// Equality returns the row of =, for a stage that makes an equality of
// its own (a value held in a caller equal to the callee's).
func Equality() *Primitive { return equality }

// Lookup returns the primitive named name (case-insensitive), or nil.
func Lookup(name string) *Primitive {
	name = strings.ToLower(name)
	for _, p := range vocabulary {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Vocabulary returns the primitives, in the order of the table.
func Vocabulary() []*Primitive {
	return append([]*Primitive(nil), vocabulary...)
}

// IsOrdering reports whether the comparison op orders its arguments, as
// opposed to = and /=, which also apply to events.
func IsOrdering(op string) bool {
	switch op {
	case "<", "<=", ">", ">=":
		return true
	}
	return false
}

// Aggregate operators (seed appendix A.3).
var aggregateOps = []string{"count", "sum", "average", "min", "max"}

// IsAggregateOp reports whether name (case-insensitive) is an aggregate
// operator.
func IsAggregateOp(name string) bool {
	name = strings.ToLower(name)
	for _, op := range aggregateOps {
		if op == name {
			return true
		}
	}
	return false
}

// primitiveNames lists the names of the vocabulary, sorted, for hints.
func primitiveNames() []string {
	var names []string
	for _, p := range vocabulary {
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}
