package schema

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/golden"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"pmm.dev/pmm/spec"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// trace is what the instrumented program recorded for one question: rows
// per stored relation kind, run first.
type trace map[string][][]any

// scenario is a program, a hand-made execution trace, and the rows each
// view must have for that trace, derived by hand.
type scenario struct {
	name   string
	pmm    string
	sites  map[int64]string // site → function
	traces map[string]trace // question name → what it recorded
	want   map[string][][]any
}

// Sites shared by the scenarios.
const (
	siteMain = iota + 1
	siteF
	siteG
	siteH
	siteFOO
	siteBAR
	siteBOTH
	siteWorker
	sitePool
	siteProduce
	siteConsume
	siteServe
	siteLog
	siteOther
	siteA
	siteB
	siteGet
	siteMax
	sitePut
)

var siteNames = map[int64]string{
	siteMain: "main.main", siteF: "main.F", siteG: "main.G", siteH: "main.H",
	siteFOO: "main.FOO", siteBAR: "main.BAR", siteBOTH: "main.BOTH",
	siteWorker: "main.worker", sitePool: "main.pool",
	siteProduce: "main.produce", siteConsume: "main.consume",
	siteServe: "main.Serve", siteLog: "main.log", siteOther: "main.other",
	siteA: "main.A", siteB: "main.B",
	siteGet: "example.com/m/cache.(*Cache).Get",
	siteMax: "main.Max[...]", sitePut: "main.(*Box[...]).Put",
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fig42Trace: run 1 has BOTH with p = 0 calling FOO and BAR (id 2), with
// p ≠ 0 calling both (ids 5 and 12: equal durations, different
// parameters), only FOO (8) or only BAR (10), and main, which calls FOO and
// BAR but has no parameter; run 2 has one BOTH calling both.
var fig42Trace = trace{
	"exec": {
		{1, 1, siteMain}, {1, 2, siteBOTH}, {1, 3, siteFOO}, {1, 4, siteBAR},
		{1, 5, siteBOTH}, {1, 6, siteFOO}, {1, 7, siteBAR},
		{1, 8, siteBOTH}, {1, 9, siteFOO},
		{1, 10, siteBOTH}, {1, 11, siteBAR},
		{1, 12, siteBOTH}, {1, 13, siteFOO}, {1, 14, siteBAR},
		{1, 15, siteFOO}, {1, 16, siteBAR},
		{2, 1, siteBOTH}, {2, 2, siteFOO}, {2, 3, siteBAR},
	},
	"calls": {
		{1, 1, 2}, {1, 2, 3}, {1, 2, 4}, {1, 1, 5}, {1, 5, 6}, {1, 5, 7},
		{1, 1, 8}, {1, 8, 9}, {1, 1, 10}, {1, 10, 11},
		{1, 1, 12}, {1, 12, 13}, {1, 12, 14}, {1, 1, 15}, {1, 1, 16},
		{2, 1, 2}, {2, 1, 3},
	},
	"parameter": {
		{1, 2, 1, 0}, {1, 5, 1, 7}, {1, 8, 1, 3}, {1, 10, 1, 4}, {1, 12, 1, 9}, {1, 12, 2, "a"},
		{2, 1, 1, 5},
	},
	"parameters": {
		{1, 2, "[0]"}, {1, 5, `[7 ""]`}, {1, 8, `[3 ""]`}, {1, 10, `[4 ""]`}, {1, 12, `[9 "a"]`},
		{2, 1, `[5 ""]`},
	},
	"duration": {
		{1, 1, 1000}, {1, 2, 100}, {1, 5, 200}, {1, 8, 50}, {1, 10, 60}, {1, 12, 200},
		{2, 1, 30},
	},
}

// cacheTrace: F 1 calls G 2 [1], G 4 [2], G 6 [1] (repeats 2), G 8 [1]
// (repeats 2 and 6); F 11 calls G 12 [2] (repeats nothing in this F),
// G 14 [3], G 16 [3] (repeats 14). Ends: one after the begin.
var cacheTrace = trace{
	"exec": {
		{1, 1, siteF}, {1, 2, siteG}, {1, 4, siteG}, {1, 6, siteG}, {1, 8, siteG},
		{1, 11, siteF}, {1, 12, siteG}, {1, 14, siteG}, {1, 16, siteG},
	},
	"end": {
		{1, 1, 10}, {1, 2, 3}, {1, 4, 5}, {1, 6, 7}, {1, 8, 9},
		{1, 11, 18}, {1, 12, 13}, {1, 14, 15}, {1, 16, 17},
	},
	"calls": {
		{1, 1, 2}, {1, 1, 4}, {1, 1, 6}, {1, 1, 8},
		{1, 11, 12}, {1, 11, 14}, {1, 11, 16},
	},
	"parameters": {
		{1, 2, "[1]"}, {1, 4, "[2]"}, {1, 6, "[1]"}, {1, 8, "[1]"},
		{1, 12, "[2]"}, {1, 14, "[3]"}, {1, 16, "[3]"},
	},
	"duration": {
		{1, 1, 500}, {1, 2, 40}, {1, 4, 41}, {1, 6, 40}, {1, 8, 40},
		{1, 11, 300}, {1, 12, 50}, {1, 14, 25}, {1, 16, 25},
	},
}

// nestingTrace: F 1 (goroutine 1, ends at 10) calls H 2 (ends 5), which
// calls G 3 (ends 4); G 6 runs on goroutine 2 while F runs (ends 7); G 11
// runs on goroutine 1 after F.
var nestingTrace = trace{
	"exec":      {{1, 1, siteF}, {1, 2, siteH}, {1, 3, siteG}, {1, 6, siteG}, {1, 11, siteG}},
	"end":       {{1, 1, 10}, {1, 2, 5}, {1, 3, 4}, {1, 6, 7}, {1, 11, 12}},
	"goroutine": {{1, 1, 1}, {1, 2, 1}, {1, 3, 1}, {1, 6, 2}, {1, 11, 1}},
	"time":      {{1, 3, 0, 30}, {1, 6, 0, 60}, {1, 11, 0, 110}},
}

// unendedTrace: F 20 and G 25 on goroutine 1 never end; G 21 runs
// inside F 20 there, G 23 on goroutine 2; F 30 on goroutine 3 calls
// G 31; G 41 begins after F 30 ended.
var unendedTrace = trace{
	"exec":      {{1, 20, siteF}, {1, 21, siteG}, {1, 23, siteG}, {1, 25, siteG}, {1, 30, siteF}, {1, 31, siteG}, {1, 41, siteG}},
	"end":       {{1, 21, 22}, {1, 23, 24}, {1, 30, 40}, {1, 31, 32}, {1, 41, 42}},
	"goroutine": {{1, 20, 1}, {1, 21, 1}, {1, 23, 2}, {1, 25, 1}, {1, 30, 3}, {1, 31, 3}, {1, 41, 2}},
}

// gapTrace: produce 1 (ends 3) overlaps consume 2; produce 5 (ends 6) ends
// before consume 7; consume 9 begins after both produces end.
var gapTrace = trace{
	"exec": {{1, 1, siteProduce}, {1, 2, siteConsume}, {1, 5, siteProduce}, {1, 7, siteConsume}, {1, 9, siteConsume}},
	"end":  {{1, 1, 3}, {1, 2, 4}, {1, 5, 6}, {1, 7, 8}, {1, 9, 10}},
	"time": {
		{1, 1, 0, 100}, {1, 1, 1, 300}, {1, 2, 0, 200}, {1, 2, 1, 400}, {1, 5, 0, 500},
		{1, 5, 1, 600}, {1, 7, 0, 700}, {1, 7, 1, 800}, {1, 9, 0, 900}, {1, 9, 1, 1000},
	},
}

// goroutineTrace: main 1 spawns workers 2 and 5, pool 4 spawns worker 3;
// F 6 and G 7 run on goroutine 7, G 8 on goroutine 8.
var goroutineTrace = trace{
	"exec": {
		{1, 1, siteMain}, {1, 2, siteWorker}, {1, 3, siteWorker}, {1, 4, sitePool}, {1, 5, siteWorker},
		{1, 6, siteF}, {1, 7, siteG}, {1, 8, siteG},
	},
	"spawns":    {{1, 1, 2}, {1, 4, 3}, {1, 1, 5}},
	"duration":  {{1, 2, 10}, {1, 3, 20}, {1, 5, 30}},
	"goroutine": {{1, 6, 7}, {1, 7, 7}, {1, 8, 8}},
}

// serveTrace: Serve 1 calls a fast log 2, Serve 3 a slow log 6, Serve 5
// calls nothing, Serve 7 calls other 8.
var serveTrace = trace{
	"exec":     {{1, 1, siteServe}, {1, 2, siteLog}, {1, 3, siteServe}, {1, 6, siteLog}, {1, 5, siteServe}, {1, 7, siteServe}, {1, 8, siteOther}},
	"calls":    {{1, 1, 2}, {1, 3, 6}, {1, 7, 8}},
	"duration": {{1, 2, 50}, {1, 6, 500}},
}

// orTrace: F 1 calls A, F 2 calls B, F 3 calls both, F 4 neither.
var orTrace = trace{
	"exec":  {{1, 1, siteF}, {1, 2, siteF}, {1, 3, siteF}, {1, 4, siteF}, {1, 5, siteA}, {1, 6, siteB}, {1, 7, siteA}, {1, 8, siteB}},
	"calls": {{1, 1, 5}, {1, 2, 6}, {1, 3, 7}, {1, 3, 8}},
}

// lookupTrace: in run 1, Get with key "a" takes 10, 30 and 10 (two equal
// durations), with key "b" 5; in run 2, key "b" takes 7.
var lookupTrace = trace{
	"exec":      {{1, 1, siteGet}, {1, 2, siteGet}, {1, 3, siteGet}, {1, 4, siteGet}, {2, 1, siteGet}},
	"parameter": {{1, 1, 1, "a"}, {1, 2, 1, "a"}, {1, 3, 1, "b"}, {1, 4, 1, "a"}, {2, 1, 1, "b"}},
	"duration":  {{1, 1, 10}, {1, 2, 30}, {1, 3, 5}, {1, 4, 10}, {2, 1, 7}},
}

// getsTrace is three executions of Get: with key a and b in run 1, with
// a in run 2 (where a was looked up once, per lookupTrace).
var getsTrace = trace{
	"exec":      {{1, 7, siteGet}, {1, 8, siteGet}, {2, 9, siteGet}},
	"parameter": {{1, 7, 1, "a"}, {1, 8, 1, "b"}, {2, 9, 1, "a"}},
}

func scenarios(t *testing.T) []scenario {
	return []scenario{
		{
			name:   "figure 4.2",
			pmm:    readFile(t, "../testdata/fig41/questions.pmm"),
			traces: map[string]trace{"monitor-fns-dura-params": fig42Trace},
			want: map[string][][]any{
				"monitor_fns_dura_params": {{1, 200, `[7 ""]`}, {1, 200, `[9 "a"]`}, {2, 30, `[5 ""]`}},
				"fns_call_foo_and_bar":    {{1, 5}, {1, 12}, {2, 1}},
			},
		},
		{
			name: "cache",
			pmm:  readFile(t, "../spec/testdata/ok/cache.pmm"),
			traces: map[string]trace{
				"cacheable-calls": cacheTrace, "cacheable-count": cacheTrace, "cacheable-time": cacheTrace,
			},
			want: map[string][][]any{
				"cacheable_calls": {{1, 6, 40}, {1, 8, 40}, {1, 16, 25}},
				"cacheable_count": {{1, 3}},
				"cacheable_time":  {{1, 105}},
				"repeated_call":   {{1, 6}, {1, 8}, {1, 16}},
			},
		},
		{
			name: "nesting",
			pmm: `
(defquestion calls-star :definition
  ((f g) s.t. (and (function-execution f "main.F") (function-execution g "main.G") (calls* f g))))
(defquestion in-time :definition
  ((f g) s.t. (and (function-execution f "main.F") (function-execution g "main.G") (contains f g))))
(defquestion after-f :definition
  ((f g) s.t. (and (function-execution f "main.F") (function-execution g "main.G") (before f g))))
(defquestion f-ends :definition
  ((p) s.t. (exists (f) (and (function-execution f "main.F") (end p f)))))
(defquestion starts-inside :definition
  ((f t) s.t. (exists (g p) (and (function-execution f "main.F") (function-execution g "main.G")
                                 (begin p g) (contains f p) (time p t)))))`,
			traces: map[string]trace{
				"calls-star": nestingTrace, "in-time": nestingTrace, "after-f": nestingTrace, "f-ends": nestingTrace, "starts-inside": nestingTrace,
			},
			want: map[string][][]any{
				"calls_star":    {{1, 1, 3}},
				"in_time":       {{1, 1, 3}, {1, 1, 6}},
				"after_f":       {{1, 1, 11}},
				"f_ends":        {{1, 2*1 + 1}}, // the end point of execution 1
				"starts_inside": {{1, 1, 30}, {1, 1, 60}},
			},
		},
		{
			// F 20 never ends: it contains what began after it and ended
			// (G 21 on its goroutine, G 23 and G 41 on another, G 31 inside F 30),
			// and calls* what began after it on its goroutine, G 25 that
			// never ended too; it is before nothing. g-first binds the
			// inner execution first, so the scope's run is G's row's,
			// which comes after F's end in the FROM list.
			name: "executions that never ended",
			pmm: `
(defquestion calls-star :definition
  ((f g) s.t. (and (function-execution f "main.F") (function-execution g "main.G") (calls* f g))))
(defquestion g-first :definition
  ((g f) s.t. (and (function-execution g "main.G") (function-execution f "main.F") (calls* f g))))
(defquestion in-time :definition
  ((f g) s.t. (and (function-execution f "main.F") (function-execution g "main.G") (contains f g))))
(defquestion after-f :definition
  ((f g) s.t. (and (function-execution f "main.F") (function-execution g "main.G") (before f g))))`,
			traces: map[string]trace{
				"calls-star": unendedTrace, "g-first": unendedTrace, "in-time": unendedTrace, "after-f": unendedTrace,
			},
			want: map[string][][]any{
				"calls_star": {{1, 20, 21}, {1, 20, 25}, {1, 30, 31}},
				"g_first":    {{1, 21, 20}, {1, 25, 20}, {1, 31, 30}},
				"in_time":    {{1, 20, 21}, {1, 20, 23}, {1, 20, 31}, {1, 20, 41}, {1, 30, 31}},
				"after_f":    {{1, 30, 41}},
			},
		},
		{
			name:   "before with points and time",
			pmm:    readFile(t, "../spec/testdata/ok/goroutines.pmm"),
			traces: map[string]trace{"gap": gapTrace, "worker-latency": goroutineTrace},
			want: map[string][][]any{
				"gap":            {{1, 300, 700}, {1, 300, 900}, {1, 600, 700}, {1, 600, 900}},
				"worker_latency": {{1, 2, 10}, {1, 5, 30}},
			},
		},
		{
			name: "spawns and same goroutine",
			pmm: `
(defquestion spawned :definition
  ((m w d) s.t. (and (function-execution m "main.main") (function-execution w "main.worker")
                     (spawns m w) (duration w d))))
(defquestion together :definition
  ((f g) s.t. (and (function-execution f "main.F") (function-execution g "main.G") (same-goroutine f g))))
(defquestion callees :definition
  ((x fn) s.t. (exists (m) (and (function-execution m "main.main") (function-execution x fn) (spawns m x)))))`,
			traces: map[string]trace{"spawned": goroutineTrace, "together": goroutineTrace, "callees": goroutineTrace},
			want: map[string][][]any{
				"spawned":  {{1, 1, 2, 10}, {1, 1, 5, 30}},
				"together": {{1, 6, 7}},
				"callees":  {{1, 2, "main.worker"}, {1, 5, "main.worker"}},
			},
		},
		{
			name: "negation",
			pmm: `
(defquestion no-log :definition
  ((f) s.t. (and (function-execution f "main.Serve")
                 (not (exists (g) (and (function-execution g "main.log") (calls f g)))))))
(defquestion only-slow-logs :definition
  ((f) s.t. (and (function-execution f "main.Serve")
                 (not (exists (g) (and (function-execution g "main.log") (calls f g)
                                       (not (exists (d) (and (duration g d) (> d 100))))))))))`,
			traces: map[string]trace{"no-log": serveTrace, "only-slow-logs": serveTrace},
			want: map[string][][]any{
				"no_log":         {{1, 5}, {1, 7}},
				"only_slow_logs": {{1, 3}, {1, 5}, {1, 7}},
			},
		},
		{
			name: "or",
			pmm: `
(defquestion a-or-b :definition
  ((f) s.t. (and (function-execution f "main.F")
                 (or (exists (g) (and (function-execution g "main.A") (calls f g)))
                     (exists (g) (and (function-execution g "main.B") (calls f g)))))))`,
			traces: map[string]trace{"a-or-b": orTrace},
			want:   map[string][][]any{"a_or_b": {{1, 1}, {1, 2}, {1, 3}}},
		},
		{
			name: "aggregates grouped by a parameter",
			pmm:  readFile(t, "../spec/testdata/ok/aggregate.pmm"),
			traces: map[string]trace{
				"lookups-per-key": lookupTrace, "mean-lookup-per-key": lookupTrace,
				"slowest-lookup": lookupTrace, "all-lookups": lookupTrace,
			},
			want: map[string][][]any{
				"lookups_per_key":     {{1, "a", 3}, {1, "b", 1}, {2, "b", 1}},
				"mean_lookup_per_key": {{1, "a", 50.0 / 3}, {1, "b", 5.0}, {2, "b", 7.0}},
				"slowest_lookup":      {{1, 30}, {2, 7}},
				"all_lookups":         {{1, 4}, {2, 1}},
				"lookup":              {{1, 1, "a", 10}, {1, 2, "a", 30}, {1, 3, "b", 5}, {1, 4, "a", 10}, {2, 1, "b", 7}},
				"lookup_time":         {{1, 1, 10}, {1, 2, 30}, {1, 3, 5}, {1, 4, 10}, {2, 1, 7}},
			},
		},
		{
			// An aggregate used as a relation: its view joined in the
			// same run, by value, negated too; the questions record only
			// their own events.
			name: "aggregates used as relations",
			pmm: readFile(t, "../spec/testdata/ok/aggregate.pmm") + `
(defquestion hot-keys :definition ((k n) s.t. (and (lookups-per-key k n) (> n 1))))
(defquestion hot-gets :definition
  ((x) s.t. (exists (k n) (and (function-execution x "example.com/m/cache.(*Cache).Get") (parameter x 1 k)
                               (lookups-per-key k n) (> n 2)))))
(defquestion cold-gets :definition
  ((x) s.t. (exists (k) (and (function-execution x "example.com/m/cache.(*Cache).Get") (parameter x 1 k)
                             (not (exists (n) (and (lookups-per-key k n) (> n 2))))))))`,
			traces: map[string]trace{
				"lookups-per-key": lookupTrace,
				"hot-gets":        getsTrace,
				"cold-gets":       getsTrace,
			},
			want: map[string][][]any{
				"hot_keys":  {{1, "a", 3}},
				"hot_gets":  {{1, 7}},
				"cold_gets": {{1, 8}, {2, 9}},
			},
		},
		{
			// A derived event's view is the union of its tuples over the
			// questions that use it; a head variable the event does not
			// declare ranges over all the executions the question recorded.
			name: "derived events",
			pmm: `
(defevent slow :definition
  ((x) s.t. (exists (d) (and (function-execution x "main.F") (duration x d) (> d 100)))))
(defevent long :definition
  ((x) s.t. (exists (d) (and (duration x d) (> d 100)))))
(defquestion slow-fs :definition ((x) s.t. (slow x)))
(defquestion slow-fs-durations :definition ((x d) s.t. (and (slow x) (duration x d))))
(defquestion long-fs :definition ((x) s.t. (and (function-execution x "main.F") (long x))))`,
			traces: map[string]trace{
				"slow-fs":           {"exec": {{1, 1, siteF}, {1, 2, siteF}}, "duration": {{1, 1, 200}, {1, 2, 50}}},
				"slow-fs-durations": {"exec": {{1, 3, siteF}}, "duration": {{1, 3, 300}}},
				"long-fs":           {"exec": {{1, 4, siteF}, {1, 5, siteG}}, "duration": {{1, 4, 400}, {1, 5, 500}}},
			},
			want: map[string][][]any{
				"slow":              {{1, 1}, {1, 3}},
				"slow_fs":           {{1, 1}},
				"slow_fs_durations": {{1, 3, 300}},
				"long":              {{1, 4}, {1, 5}},
				"long_fs":           {{1, 4}},
			},
		},
		{
			// pmm_sites holds pprof's names of generic functions and
			// methods of generic types; a question names them with or
			// without [...], and a name variable holds pprof's.
			name: "generic names",
			pmm: `
(defquestion maxes :definition ((x) s.t. (function-execution x "main.Max")))
(defquestion maxes-again :definition ((x) s.t. (function-execution x "main.Max[...]")))
(defquestion puts :definition ((x) s.t. (function-execution x "main.(*Box).Put")))
(defquestion puts-again :definition ((x) s.t. (function-execution x "main.(*Box[...]).Put")))
(defquestion names :definition ((x f) s.t. (function-execution x f)))`,
			traces: map[string]trace{
				"maxes":       {"exec": {{1, 1, siteMax}, {1, 2, siteF}}},
				"maxes-again": {"exec": {{1, 1, siteMax}, {1, 2, siteF}}},
				"puts":        {"exec": {{1, 3, sitePut}, {1, 4, siteMax}}},
				"puts-again":  {"exec": {{1, 3, sitePut}, {1, 4, siteMax}}},
				"names":       {"exec": {{1, 1, siteMax}, {1, 3, sitePut}}},
			},
			want: map[string][][]any{
				"maxes":       {{1, 1}},
				"maxes_again": {{1, 1}},
				"puts":        {{1, 3}},
				"puts_again":  {{1, 3}},
				"names":       {{1, 1, "main.Max[...]"}, {1, 3, "main.(*Box[...]).Put"}},
			},
		},
		{
			name: "literals and data conditions",
			pmm: `
(defquestion big-batches :definition
  ((x n) s.t. (and (function-execution x "main.F") (data-condition x "len(batch)" n) (>= n 100))))
(defquestion named-nil :definition
  ((x) s.t. (exists (v) (and (function-execution x "main.F") (parameter x 1 v) (= v nil)))))
(defquestion non-zero :definition
  ((x) s.t. (exists (v) (and (function-execution x "main.F") (parameter x 1 v) (/= v 0)))))
(defquestion quoted :definition
  ((x) s.t. (and (function-execution x "main.F") (parameter x 1 "it's") (panicked x true))))`,
			traces: map[string]trace{
				"big-batches": {"exec": {{1, 1, siteF}, {1, 2, siteF}},
					"data-condition": {{1, 1, 0, "len(batch)", 150}, {1, 2, 0, "len(batch)", 3}, {1, 2, 0, "cap(batch)", 500}}},
				"named-nil": {"exec": {{1, 1, siteF}, {1, 2, siteF}}, "parameter": {{1, 1, 1, nil}, {1, 2, 1, 0}}},
				"non-zero":  {"exec": {{1, 1, siteF}, {1, 2, siteF}, {1, 3, siteF}}, "parameter": {{1, 1, 1, nil}, {1, 2, 1, 0}, {1, 3, 1, 5}}},
				"quoted": {"exec": {{1, 1, siteF}, {1, 2, siteF}, {1, 3, siteF}},
					"parameter": {{1, 1, 1, "it's"}, {1, 2, 1, "it's"}, {1, 3, 1, "its"}},
					"panicked":  {{1, 1, 1}, {1, 2, 0}, {1, 3, 1}}},
			},
			want: map[string][][]any{
				"big_batches": {{1, 1, 150}},
				"named_nil":   {{1, 1}},
				"non_zero":    {{1, 3}}, // nil is not compared: as in SQL, it is unknown
				"quoted":      {{1, 1}},
			},
		},
	}
}

func TestViews(t *testing.T) {
	for _, sc := range scenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			s := generate(t, sc.pmm)
			db := openDB(t, s)
			for site, fn := range siteNames {
				exec(t, db, "INSERT INTO pmm_sites (site, function, kind) VALUES (?, ?, 'definition')", site, fn)
			}
			recordEverywhere(t, db, sc.pmm)
			for question, tr := range sc.traces {
				for kind, rows := range tr {
					table := s.Table(question, kind)
					if table == nil {
						continue // a trace shared by questions that use less of it
					}
					for _, row := range rows {
						marks := strings.TrimSuffix(strings.Repeat("?, ", len(row)), ", ")
						exec(t, db, "INSERT INTO "+table.Name+" VALUES ("+marks+")", row...)
					}
				}
			}
			fillCopies(t, db, s)
			for view, want := range sc.want {
				got := queryAll(t, db, "SELECT * FROM "+view)
				if !reflect.DeepEqual(sorted(got), sorted(normalize(want))) {
					sqlText := ""
					for _, v := range s.Views {
						if v.Name == view {
							sqlText = v.SQL
						}
					}
					t.Errorf("view %s:\n got %v\nwant %v\n%s", view, sorted(got), sorted(normalize(want)), sqlText)
				}
			}
		})
	}
}

// recordEverywhere says that every site of siteNames records every
// variable of every question of text.
func recordEverywhere(t *testing.T, db *sql.DB, text string) {
	t.Helper()
	prog, err := spec.Compile(spec.Source{Name: "test.pmm", Text: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range prog.Questions {
		vars := map[string]bool{}
		var walk func(c *spec.Conj)
		walk = func(c *spec.Conj) {
			c.EachAtom(func(a *spec.Atom) {
				for _, t := range a.Args {
					if t.Lit == nil {
						vars[t.Var] = true
					}
				}
			})
			for _, n := range c.Not {
				walk(n)
			}
		}
		for _, c := range q.Relation.Disjuncts {
			walk(c)
		}
		for site := range siteNames {
			for v := range vars {
				exec(t, db, "INSERT INTO "+SiteVarsTable+" (site, question, var) VALUES (?, ?, ?)", site, q.Name, v)
			}
		}
	}
}

// TestViewsOwnSites checks that an event variable ranges over the
// executions recorded for it: F's executions are recorded at its
// definition for f and at its call sites for g, each with its own id,
// and f must not range over the ids of g.
func TestViewsOwnSites(t *testing.T) {
	const siteCall = 100
	s := generate(t, `(defquestion no-zero-callee :definition
  ((f) s.t. (and (function-execution f "main.F")
                 (not (exists (g q) (and (function-execution g "main.F") (calls f g)
                                          (parameter g 1 q) (= q 0)))))))`)
	db := openDB(t, s)
	exec(t, db, "INSERT INTO pmm_sites (site, function, kind) VALUES (?, 'main.F', 'definition'), (?, 'main.F', 'call')", siteF, siteCall)
	exec(t, db, "INSERT INTO pmm_site_vars (site, question, var) VALUES (?, 'no-zero-callee', 'f'), (?, 'no-zero-callee', 'g')", siteF, siteCall)
	exec(t, db, "INSERT INTO no_zero_callee__exec VALUES (1, 1, ?), (1, 2, ?), (1, 3, ?), (1, 10, ?), (1, 11, ?)", siteF, siteF, siteF, siteCall, siteCall)
	exec(t, db, "INSERT INTO no_zero_callee__calls VALUES (1, 1, 10), (1, 2, 11)")
	exec(t, db, "INSERT INTO no_zero_callee__parameter VALUES (1, 10, 1, 0), (1, 11, 1, 1)")
	// 1 calls F(0); 2 calls F(1); 3 calls nothing; 10 and 11 are g's.
	if got := queryAll(t, db, "SELECT f FROM no_zero_callee ORDER BY f"); !reflect.DeepEqual(got, [][]any{{int64(2)}, {int64(3)}}) {
		t.Errorf("no-zero-callee = %v, want [[2] [3]]", got)
	}
}

func TestTables(t *testing.T) {
	s := generate(t, readFile(t, "../spec/testdata/ok/goroutines.pmm"))
	tests := []struct {
		question string
		want     []string
	}{
		{"worker-latency", []string{"worker_latency__exec", "worker_latency__duration", "worker_latency__spawns"}},
		{"nested-on-same-goroutine", []string{"nested_on_same_goroutine__exec", "nested_on_same_goroutine__end", "nested_on_same_goroutine__goroutine"}},
		{"gap", []string{"gap__exec", "gap__end", "gap__time"}},
		{"big-batches", []string{"big_batches__exec", "big_batches__data_condition"}},
	}
	for _, tt := range tests {
		var got []string
		for _, tb := range s.Tables {
			if tb.Question == tt.question {
				got = append(got, tb.Name)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("tables of %s = %v, want %v", tt.question, got, tt.want)
		}
	}
	for i, tb := range s.Tables {
		if tb.ID != uint16(i+1) {
			t.Errorf("table %s has ID %d, want %d", tb.Name, tb.ID, i+1)
		}
	}
	if tb := s.Table("gap", "time"); tb == nil || !reflect.DeepEqual(tb.Columns, []Column{
		{Name: "id", Type: "INTEGER", Event: true}, {Name: "point", Type: "INTEGER"}, {Name: "t", Type: "INTEGER"},
	}) {
		t.Errorf("gap time table = %+v", tb)
	}
	if tb := s.Table("gap", "duration"); tb != nil {
		t.Errorf("gap has a duration table it does not use: %+v", tb)
	}
}

func TestSQLName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"cacheable-calls", "cacheable_calls"},
		{"Monitor-FNS", "monitor_fns"},
		{"calls*", "calls_star"},
		{"order", "order_"},
		{"end", "end_"},
		{"2fast", "_2fast"},
		{"sqlite_master", "_sqlite_master"},
		{"a.b/c", "a_b_c"},
		{"", "_"},
	}
	for _, tt := range tests {
		if got := SQLName(tt.in); got != tt.want {
			t.Errorf("SQLName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNameClashes(t *testing.T) {
	const q = `((x) s.t. (function-execution x "main.F"))`
	tests := []struct{ pmm, want string }{
		{"(defquestion a-b :definition " + q + ")\n(defquestion a_b :definition " + q + ")", "the exec table of question a-b and the exec table of question a_b"},
		{"(defquestion p :definition " + q + ")\n(defquestion p--exec :definition " + q + ")", "the exec table of question p and question p--exec"},
		{"(defquestion pmm-sites :definition " + q + ")", "pmm's table of sites and question pmm-sites"},
		// The loader's tables: a question named runs made every load fail.
		{"(defquestion runs :definition " + q + ")", "pmm's table runs and question runs"},
		{"(defquestion pmm-incomplete :definition " + q + ")", "pmm's table pmm_incomplete and question pmm-incomplete"},
		{"(defquestion site-counts :definition " + q + ")", "pmm's table site_counts and question site-counts"},
	}
	for _, tt := range tests {
		prog, err := spec.Compile(spec.Source{Name: "clash.pmm", Text: []byte(tt.pmm)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Generate(prog)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Generate(%q) error = %v, want one naming %s", tt.pmm, err, tt.want)
		}
	}
}

// TestInexpressible: a derived event whose head point is declared only
// where it is used has no view of its own.
func TestInexpressible(t *testing.T) {
	prog, err := spec.Compile(spec.Source{Name: "late.pmm", Text: []byte(`
(defevent late :definition ((p t) s.t. (and (time p t) (> t 100))))
(defquestion late-f :definition
  ((t) s.t. (exists (x p) (and (function-execution x "main.F") (begin p x) (late p t)))))`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(prog); err == nil || !strings.Contains(err.Error(), "late over the tables of late-f") {
		t.Errorf("Generate error = %v, want one about late over the tables of late-f", err)
	}
}

// TestStatementsGolden keeps the SQL of Figure 4.2 readable in review.
func TestStatementsGolden(t *testing.T) {
	s := generate(t, readFile(t, "../testdata/fig41/questions.pmm"))
	got := strings.Join(s.Statements(), ";\n\n") + ";\n"
	golden.Check(t, filepath.Join("testdata", "fig42.sql"), got, *update)
	openDB(t, s) // and they run
}

func generate(t *testing.T, text string) *Schema {
	t.Helper()
	prog, err := spec.Compile(spec.Source{Name: "test.pmm", Text: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Generate(prog)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func openDB(t *testing.T, s *Schema) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, stmt := range s.Statements() {
		exec(t, db, stmt)
	}
	return db
}

// fillCopies fills the copies of the tables (Table.Copies) with their
// rows, as the loader does.
func fillCopies(t *testing.T, db *sql.DB, s *Schema) {
	t.Helper()
	for _, table := range s.Tables {
		for _, cp := range table.Copies {
			cols := "run, " + strings.Join(cp.Columns, ", ")
			exec(t, db, "INSERT OR IGNORE INTO "+cp.Name+" ("+cols+") SELECT "+cols+" FROM "+table.Name)
		}
	}
}

func exec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
}

func queryAll(t *testing.T, db *sql.DB, query string) [][]any {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%v\n%s", err, query)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, normalize([][]any{row})[0])
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// normalize gives values one Go type per SQLite type.
func normalize(rows [][]any) [][]any {
	var out [][]any
	for _, row := range rows {
		var r []any
		for _, v := range row {
			switch x := v.(type) {
			case int:
				v = int64(x)
			case []byte:
				v = string(x)
			}
			r = append(r, v)
		}
		out = append(out, r)
	}
	return out
}

func sorted(rows [][]any) [][]any {
	out := append([][]any(nil), rows...)
	sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
	return out
}

// TestViewsCells checks that an aggregate question's view combines the
// partial results kept at run time (its cells) with those of recorded
// tuples: a run of each kind gives its own answer.
func TestViewsCells(t *testing.T) {
	const questions = `(defquestion per-key :definition ((f k d) s.t. (and (function-execution f "main.F") (parameter f 1 k) (duration f d))))
(defquestion total :definition (sum per-key (output input output)))
(defquestion mean :definition (average per-key (output input output)))
(defquestion lowest :definition (min per-key (output input output)))
(defquestion n :definition (count per-key (output output output)))`
	s := generate(t, questions)
	db := openDB(t, s)
	exec(t, db, "INSERT INTO pmm_sites (site, function, kind) VALUES (?, 'main.F', 'definition')", siteF)
	recordEverywhere(t, db, questions)
	// Run 1 kept cells: key a has 2 executions of 10 and 20, key b one of 7.
	for _, q := range []string{"total", "mean", "lowest"} {
		exec(t, db, "INSERT INTO "+q+"__cells VALUES (1, 5, 'a'), (1, 6, 'b')")
	}
	exec(t, db, "INSERT INTO n__cells VALUES (1, 7)")
	exec(t, db, "INSERT INTO pmm_cells VALUES (1, 5, 2, 30, 10, 20), (1, 6, 1, 7, 7, 7), (1, 7, 3, 37, 7, 20)")
	// Run 2 recorded tuples: key a has executions of 4 and 6.
	for _, q := range []string{"total", "mean", "lowest", "n"} {
		exec(t, db, "INSERT INTO "+q+"__exec VALUES (2, 1, ?), (2, 2, ?)", siteF, siteF)
		exec(t, db, "INSERT INTO "+q+"__parameter VALUES (2, 1, 1, 'a'), (2, 2, 1, 'a')")
		exec(t, db, "INSERT INTO "+q+"__duration VALUES (2, 1, 4), (2, 2, 6)")
	}
	for q, want := range map[string][][]any{
		"total":  {{int64(1), "a", int64(30)}, {int64(1), "b", int64(7)}, {int64(2), "a", int64(10)}},
		"mean":   {{int64(1), "a", 15.0}, {int64(1), "b", 7.0}, {int64(2), "a", 5.0}},
		"lowest": {{int64(1), "a", int64(10)}, {int64(1), "b", int64(7)}, {int64(2), "a", int64(4)}},
		"n":      {{int64(1), int64(3)}, {int64(2), int64(2)}},
	} {
		if got := queryAll(t, db, "SELECT * FROM "+q+" ORDER BY 1, 2"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", q, got, want)
		}
	}
}

// TestViewsOneRowPerID checks the views without DISTINCT (distinctRows)
// where an execution is recorded under one id at a call site and at its
// definition, two rows of the id: the answers are sets all the same, and
// the views that read more of a site than the head says keep DISTINCT.
func TestViewsOneRowPerID(t *testing.T) {
	const (
		defF  = 1 // main.F's definition
		callF = 2 // a call site of main.F
		defG  = 3 // main.G's definition
		callH = 4 // a call site that names main.H, with ids of G's
	)
	questions := []struct {
		name, def string
		distinct  bool
		want      [][]any
	}{
		{"all", "((x fn d) s.t. (and (function-execution x fn) (duration x d)))", false,
			[][]any{{1, "main.F", 5}, {1, "main.F", 6}, {2, "main.G", 7}, {2, "main.H", 7}, {3, "main.F", 8}}},
		{"no-name", "((x d) s.t. (exists (fn) (and (function-execution x fn) (duration x d))))", false,
			[][]any{{1, 5}, {1, 6}, {2, 7}, {3, 8}}},
		{"named", `((x d) s.t. (and (function-execution x "main.F") (duration x d)))`, false,
			[][]any{{1, 5}, {1, 6}, {3, 8}}},
		{"name-in-negation", `((x d) s.t. (exists (fn) (and (function-execution x fn) (duration x d) (not (function-execution x "main.G")))))`, true,
			[][]any{{1, 5}, {1, 6}, {2, 7}, {3, 8}}},
		{"name-not-in-head", `((x) s.t. (exists (fn d) (and (function-execution x fn) (duration x d) (= fn "main.H"))))`, true,
			[][]any{{2}}},
		{"existential", "((x) s.t. (exists (fn d) (and (function-execution x fn) (duration x d))))", true,
			[][]any{{1}, {2}, {3}}},
		{"pair", `((x y) s.t. (exists (fn) (and (function-execution x "main.F") (function-execution y fn) (calls x y))))`, false,
			[][]any{{1, 2}, {3, 2}}},
	}
	var text strings.Builder
	for _, q := range questions {
		fmt.Fprintf(&text, "(defquestion %s :definition\n  %s)\n", q.name, q.def)
	}
	s := generate(t, text.String())
	db := openDB(t, s)
	exec(t, db, "INSERT INTO pmm_sites (site, function, kind) VALUES (?, 'main.F', 'definition'), (?, 'main.F', 'call'), (?, 'main.G', 'definition'), (?, 'main.H', 'call')",
		defF, callF, defG, callH)
	for _, q := range questions {
		for _, site := range []int{defF, callF, defG, callH} {
			for _, v := range []string{"x", "y"} {
				exec(t, db, "INSERT INTO pmm_site_vars (site, question, var) VALUES (?, ?, ?)", site, q.name, v)
			}
		}
		exec(t, db, "INSERT INTO "+s.Table(q.name, "exec").Name+" VALUES (1, 1, ?), (1, 1, ?), (1, 2, ?), (1, 2, ?), (1, 3, ?)", defF, callF, defG, callH, defF)
		if d := s.Table(q.name, "duration"); d != nil {
			exec(t, db, "INSERT INTO "+d.Name+" VALUES (1, 1, 5), (1, 1, 6), (1, 2, 7), (1, 3, 8)")
		}
		if c := s.Table(q.name, "calls"); c != nil {
			exec(t, db, "INSERT INTO "+c.Name+" VALUES (1, 1, 2), (1, 3, 2)")
		}
	}
	for _, q := range questions {
		view := SQLName(q.name)
		for _, v := range s.Views {
			if v.Name == view && strings.HasPrefix(v.SQL, "SELECT DISTINCT") != q.distinct {
				t.Errorf("%s: DISTINCT %v, want %v:\n%s", q.name, !q.distinct, q.distinct, v.SQL)
			}
		}
		var want [][]any
		for _, row := range q.want {
			want = append(want, append([]any{1}, row...))
		}
		if got := queryAll(t, db, "SELECT * FROM "+view); !reflect.DeepEqual(sorted(got), sorted(normalize(want))) {
			t.Errorf("%s = %v, want %v", q.name, sorted(got), sorted(normalize(want)))
		}
	}
}
