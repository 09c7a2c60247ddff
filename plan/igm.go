package plan

// Capture is a value a site takes when the event it records happens.
type Capture string

// The captures. Each has its meaning (captureMeanings, below) and its
// Go, its state field and its place among the six template parameters
// (package instrument, captureCodes).
const (
	CapID        Capture = "id"       // a new event id, taken when the event begins (it orders begins)
	CapSite      Capture = "site"     // the site's number (pmm_sites)
	CapEnd       Capture = "end"      // a new sequence number, taken when the event ends
	CapGoroutine Capture = "g"        // the goroutine id
	CapDuration  Capture = "d"        // the clock at the end minus the clock at the begin
	CapBegin     Capture = "t0"       // the clock at the begin
	CapFinish    Capture = "t1"       // the clock at the end
	CapParams    Capture = "params"   // all parameters, as a list
	CapParam     Capture = "param"    // parameter N
	CapResults   Capture = "results"  // all results, as a list
	CapResult    Capture = "result"   // result N
	CapReceiver  Capture = "recv"     // the receiver
	CapPanicked  Capture = "panicked" // whether the execution ended by panicking
	CapCaller    Capture = "caller"   // the id of the enclosing recorded execution (call sites)
	CapDataCond  Capture = "datacond" // the value of a Go expression at the begin or end point
	CapConst     Capture = "const"    // a constant field: N, or the expression text
	CapFunction  Capture = "function" // the name of the function the site records, as pmm_sites has it
)

// Captures returns all the captures, for the tests that check that every
// table of them covers each.
func Captures() []Capture {
	return []Capture{CapID, CapSite, CapEnd, CapGoroutine, CapDuration, CapBegin, CapFinish, CapParams, CapParam,
		CapResults, CapResult, CapReceiver, CapPanicked, CapCaller, CapDataCond, CapConst, CapFunction}
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
}

// igmRow is one row of the instrumentation generation mapping (seed
// 4.3.2, IGM): for a stored relation of the schema, the tuple a site
// emits for an event, in terms of what the site captures. The six template
// parameters follow from the captures (package instrument).
type igmRow struct {
	fields func(need need) []Field
	// callee: the tuple is emitted at the site of the second event of a
	// relation, with the first event's id in CapCaller (seed Table 4.1).
	callee bool
}

// need is one stored relation a site must fill for one question.
type need struct {
	prim string // the schema's Table.Prim
	n    int    // parameter, return-value: the position
	expr string // data-condition: the Go expression
	end  int    // time: 0 for the begin point, 1 for the end point
}

func id(f ...Field) []Field { return append([]Field{{Cap: CapID}}, f...) }

// igm maps each stored relation of the schema (schema.Table.Prim) to what
// its sites emit. Adding a primitive is adding a row here.
var igm = map[string]igmRow{
	"exec":          {fields: func(need) []Field { return id(Field{Cap: CapSite}) }},
	"end":           {fields: func(need) []Field { return id(Field{Cap: CapEnd}) }},
	"goroutine":     {fields: func(need) []Field { return id(Field{Cap: CapGoroutine}) }},
	"duration":      {fields: func(need) []Field { return id(Field{Cap: CapDuration}) }},
	"parameters":    {fields: func(need) []Field { return id(Field{Cap: CapParams}) }},
	"return-values": {fields: func(need) []Field { return id(Field{Cap: CapResults}) }},
	"receiver":      {fields: func(need) []Field { return id(Field{Cap: CapReceiver}) }},
	"panicked":      {fields: func(need) []Field { return id(Field{Cap: CapPanicked}) }},
	"parameter": {fields: func(n need) []Field {
		return id(Field{Cap: CapConst, N: n.n}, Field{Cap: CapParam, N: n.n})
	}},
	"return-value": {fields: func(n need) []Field {
		return id(Field{Cap: CapConst, N: n.n}, Field{Cap: CapResult, N: n.n})
	}},
	"time": {fields: func(n need) []Field {
		clock := CapBegin
		if n.end == 1 {
			clock = CapFinish
		}
		return id(Field{Cap: CapConst, N: n.end}, Field{Cap: clock})
	}},
	"data-condition": {fields: func(n need) []Field {
		return id(Field{Cap: CapConst, N: n.end}, Field{Cap: CapConst, Expr: n.expr}, Field{Cap: CapDataCond, Expr: n.expr, N: n.end})
	}},
	"calls":  {callee: true, fields: func(need) []Field { return []Field{{Cap: CapCaller}, {Cap: CapID}} }},
	"spawns": {callee: true, fields: func(need) []Field { return []Field{{Cap: CapCaller}, {Cap: CapID}} }},
}

// attributeTables maps the attributes and relations of the vocabulary to
// the stored relation that holds them; relations derived from ids, end
// sequence numbers and goroutines need those.
var attributeTables = map[string][]string{
	"parameters":     {"parameters"},
	"parameter":      {"parameter"},
	"return-values":  {"return-values"},
	"return-value":   {"return-value"},
	"duration":       {"duration"},
	"goroutine":      {"goroutine"},
	"receiver":       {"receiver"},
	"panicked":       {"panicked"},
	"time":           {"time"},
	"data-condition": {"data-condition"},
	"calls":          {"calls"},
	"spawns":         {"spawns"},
	"before":         {"end"},
	"contains":       {"end"},
	"calls*":         {"end", "goroutine"},
	"same-goroutine": {"goroutine"},
}
