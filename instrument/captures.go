package instrument

import (
	"strconv"

	"pmm.dev/pmm/plan"
)

// captureCode is how generated code holds and reads one capture; package
// plan says when it is known (plan.Field.AtEnd) and which captures the
// site takes for it (plan.Field.Takes).
type captureCode struct {
	// field is the state field that holds it: typ, taken by the runtime's
	// take at the begin or the end of the execution, or, for a value of
	// the program (value), typed as the site's code finds it, numbered
	// (parameter N is p1, p2, ...) or a list of those.
	field, typ, take string
	value            bool
	numbered, list   bool
	// int64 is its value as an int64 expression over the state s (the
	// runtime's fast paths take those), boolean a bool expression;
	// compensated is int64 at a site whose durations subtract pmm's
	// recording of the timed executions nested in them (Options.Nested).
	int64, boolean, compensated string
	// results says it is the execution's results, which one that
	// panicked does not have.
	results bool
}

// captureCodes are the captures' Go. The site number, a constant and the
// function's name are known when the site is generated (intField,
// encodeField); a data-condition has a state field per expression and
// point (dataCondValue).
var captureCodes = map[plan.Capture]captureCode{
	plan.CapID:        {field: "id", typ: "uint64", take: "NextID", int64: "int64(s.id)"},
	plan.CapBegin:     {field: "t0", typ: "int64", take: "Now", int64: "s.t0"},
	plan.CapGoroutine: {field: "g", typ: "int64", take: "GoID", int64: "s.g"},
	plan.CapFinish:    {field: "t1", typ: "int64", take: "Now", int64: "s.t1"},
	plan.CapEnd:       {field: "end", typ: "uint64", take: "NextID", int64: "int64(s.end)"},
	plan.CapCaller:    {field: "caller", typ: "uint64", int64: "int64(s.caller)"}, // set by the call's wrapper
	plan.CapIndex:     {field: "index", typ: "int64", int64: "s.index"},           // set by the iteration's code
	plan.CapCase:      {field: "scase", typ: "int64", int64: "s.scase"},           // set by the blocking operation's code
	plan.CapObject:    {field: "obj", typ: "int64", int64: "s.obj"},               // set by the blocking operation's code
	plan.CapBlocked:   {field: "waited", typ: "bool", boolean: "s.waited"},        // set by the blocking operation's code
	plan.CapElements:  {field: "elems", typ: "int64", int64: "s.elems"},           // set by the allocation's helper
	plan.CapBytes:     {field: "bytes", typ: "int64", int64: "s.bytes"},           // set by the allocation's helper
	plan.CapHeapBytes: {field: "heap", typ: "int64", int64: "s.heap"},             // set by the allocation's helper
	plan.CapDuration:  {int64: "s.t1 - s.t0", compensated: "s.t1 - s.t0 - s.comp"},
	plan.CapPanicked:  {boolean: "!s.ok"},
	plan.CapParam:     {field: "p", value: true, numbered: true},
	plan.CapParams:    {field: "p", value: true, list: true},
	plan.CapResult:    {field: "r", value: true, numbered: true, results: true},
	plan.CapResults:   {field: "r", value: true, list: true, results: true},
	plan.CapReceiver:  {field: "recv", value: true},
	plan.CapDataCond:  {},
	plan.CapSite:      {},
	plan.CapConst:     {},
	plan.CapFunction:  {},
	plan.CapCallLine:  {},
	plan.CapAccount:   {},              // read by the tuple's code (accountValue)
	plan.CapLive:      {field: "live"}, // the object, set by the allocation's helper for TrackLive (trackLive)
}

// takenCaptures are the captures whose state fields every kind of site
// takes the same way (common), in the order of their fields.
var takenCaptures = []plan.Capture{plan.CapID, plan.CapBegin, plan.CapGoroutine, plan.CapFinish, plan.CapEnd}

// valueField names the state field of value f of the program: a
// parameter, a result, the receiver.
func valueField(f plan.Field) string {
	c := captureCodes[f.Cap]
	if c.numbered {
		return c.field + strconv.Itoa(f.N)
	}
	return c.field
}

// readsResults reports whether some field is a result of the execution,
// which one that panicked does not have (docs/LANGUAGE.md, panicked).
func readsResults(fields []plan.Field) bool {
	for _, f := range fields {
		if captureCodes[f.Cap].results {
			return true
		}
	}
	return false
}

// atEnd reports whether some field is known only when the execution
// ends.
func atEnd(fields []plan.Field) bool {
	for _, f := range fields {
		if f.AtEnd() {
			return true
		}
	}
	return false
}

// int64Of is the int64 expression of capture c at the site ("" if it has
// none): the compensated one where the site subtracts the recording
// nested in its durations.
func (sg *siteGen) int64Of(c plan.Capture) string {
	cc := captureCodes[c]
	if cc.compensated != "" && sg.g != nil && sg.g.opt.Nested.Compensated(sg.s) {
		return cc.compensated
	}
	return cc.int64
}
