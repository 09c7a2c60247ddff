package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/spec"
)

// pprofHint is what an error says to do with an answer that is no
// profile.
const pprofHint = "hint: a profile is an answer whose rows are executions (one execution variable in the head, with its duration or not), " +
	"or a count, or a sum of durations, grouped by a function name (function-name x f), an execution or a calling context (calling-context x c); " +
	"print other answers with -format table, csv or json"

// notAProfile is the error of an answer that is no profile: bad input,
// with a hint.
type notAProfile struct{ error }

func (e notAProfile) Error() string { return e.error.Error() + "\n" + pprofHint }

// profileShape is how an answer becomes a profile: which column names
// the sample's function, which is its value, which are labels.
type profileShape struct {
	leaf      int  // the column of the sample's execution or function name
	leafExec  bool // leaf holds an execution's id (else a function's name)
	leafPath  bool // leaf holds a calling context, the functions of the sample's stack
	value     int  // the column of the value (a duration, the aggregate's number), -1 for none
	valueType profile.ValueType
	labels    []int // the other columns, as labels
	kinds     []string
}

// profileShapeOf decides whether the answer of question name, whose
// columns after run have the kinds of shape, is a profile, and how.
func profileShapeOf(name string, header []string, shape plan.AnswerShape) (*profileShape, error) {
	ps := &profileShape{leaf: -1, value: -1, kinds: shape.Columns}
	var execs, funcs, durations, contexts []int
	for i, k := range shape.Columns {
		switch k {
		case plan.ColumnContext:
			contexts = append(contexts, i)
		case plan.ColumnExecution:
			execs = append(execs, i)
		case plan.ColumnFunction:
			funcs = append(funcs, i)
		case plan.ColumnDuration:
			durations = append(durations, i)
		}
	}
	names := func(cols []int) string {
		var s []string
		for _, c := range cols {
			s = append(s, header[c])
		}
		return strings.Join(s, ", ")
	}
	switch shape.Aggregate {
	case "":
		// A row is a tuple of a set: only an execution in it makes each
		// row one execution, counted once.
		switch {
		case len(execs) == 0:
			return nil, fmt.Errorf("%s has no execution in its answer: its rows are distinct values, not executions (two executions with equal values are one row)", name)
		case len(execs) > 1:
			return nil, fmt.Errorf("%s has %d executions in each row (%s): a sample is one execution; ask for the one to profile (the question's recorded callers are its calling context)", name, len(execs), names(execs))
		case len(durations) > 1:
			return nil, fmt.Errorf("%s has %d durations in each row (%s): a sample has one", name, len(durations), names(durations))
		}
		ps.leaf, ps.leafExec = execs[0], true
		if len(durations) == 1 {
			ps.value = durations[0]
			ps.valueType = profile.ValueType{Type: "duration", Unit: "nanoseconds"}
		}
	case "count", "sum":
		last := len(shape.Columns) - 1
		if shape.Aggregate == "sum" && shape.Columns[last] != plan.ColumnDuration {
			return nil, fmt.Errorf("%s sums values that are not durations: a profile's values are counts or nanoseconds", name)
		}
		switch keys := slices.DeleteFunc(slices.Clone(execs), func(c int) bool { return c == last }); {
		case len(keys) == 1:
			ps.leaf, ps.leafExec = keys[0], true
		case len(keys) == 0 && len(contexts) == 1:
			ps.leaf, ps.leafPath = contexts[0], true
		case len(keys) == 0 && len(funcs) == 1:
			ps.leaf = funcs[0]
		case len(keys) > 1:
			return nil, fmt.Errorf("%s is grouped by %d executions (%s): a sample is one", name, len(keys), names(keys))
		case len(funcs) > 1:
			return nil, fmt.Errorf("%s is grouped by %d function names (%s): a sample has one", name, len(funcs), names(funcs))
		default:
			return nil, fmt.Errorf("%s is not grouped by a function name or an execution", name)
		}
		ps.value = last
		ps.valueType = profile.ValueType{Type: "count", Unit: "count"}
		if shape.Aggregate == "sum" {
			ps.valueType = profile.ValueType{Type: "duration", Unit: "nanoseconds"}
		}
	default:
		// pprof adds the values of the samples of a function, and of its
		// callees to a caller: an average, a minimum or a maximum added up
		// is no answer.
		return nil, fmt.Errorf("%s is %s aggregate: pprof adds a profile's values, and %ss do not add up (a count or a sum of durations does)", name, article(shape.Aggregate), shape.Aggregate)
	}
	for i := range shape.Columns {
		if i != ps.leaf && i != ps.value {
			ps.labels = append(ps.labels, i)
		}
	}
	return ps, nil
}

// article is "an" before a vowel, "a" otherwise, with the word.
func article(word string) string {
	if strings.ContainsRune("aeiou", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}

// execKey is an execution of a run.
type execKey struct{ run, id int64 }

// profileSites are the rows of pmm_sites, and where each function
// begins (its definition site, when one is recorded).
type profileSites struct {
	function map[int64]string
	isCall   map[int64]bool // recorded at a call site (in its caller's body)
	line     map[int64]int64
	file     map[string]string // by function: its file
	start    map[string]int64  // by function: its first line
}

func readProfileSites(ctx context.Context, db *sql.DB) (*profileSites, error) {
	s := &profileSites{function: map[int64]string{}, isCall: map[int64]bool{}, line: map[int64]int64{},
		file: map[string]string{}, start: map[string]int64{}}
	rows, err := db.QueryContext(ctx, "SELECT site, function, kind, coalesce(file, ''), coalesce(line, 0) FROM pmm_sites")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var site, line int64
		var fn, kind, file string
		if err := rows.Scan(&site, &fn, &kind, &file, &line); err != nil {
			return nil, err
		}
		s.function[site], s.isCall[site], s.line[site] = fn, kind == "call", line
		if kind == "definition" {
			s.file[fn], s.start[fn] = file, line
		}
	}
	return s, rows.Err()
}

// callingContext is the question's recorded executions, by run and id:
// each one's site and the recorded execution it was called from.
type callingContext struct {
	site   map[execKey]int64
	parent map[execKey]int64
}

// readCallingContext reads the executions a question recorded (its
// tables, by kind), in run or every run: an execution's caller is the one
// its stored relation of direct calls names, or else, when the question
// records what nesting on one goroutine needs (as calls* does), the
// innermost recorded execution that contains it on its goroutine: on one
// goroutine executions nest like a stack. Both relations are found by
// their rows of the vocabulary, not by name.
func readCallingContext(ctx context.Context, db *sql.DB, tables map[string]string, run int64, all bool) (*callingContext, error) {
	var pair [2]string // the columns of the caller and the callee
	var callsTable, goroutineTable, endTable string
	for _, p := range spec.Vocabulary() {
		st := p.Stored
		switch {
		case p.Kind != spec.ControlRelation || st == nil:
		case st.Pair[0] != "" && !st.Go && tables[p.Name] != "":
			callsTable, pair = tables[p.Name], st.Pair // calls: a plain call starts the callee
		case slices.Contains(st.Derived, spec.AttrGoroutine) && len(st.Derived) == 2:
			other := st.Derived[0]
			if other == spec.AttrGoroutine {
				other = st.Derived[1]
			}
			if tables[spec.AttrGoroutine] != "" && tables[other] != "" {
				goroutineTable, endTable = tables[spec.AttrGoroutine], tables[other]
			}
		}
	}
	table := func(kind string) string { return tables[kind] }
	cc := &callingContext{site: map[execKey]int64{}, parent: map[execKey]int64{}}
	where, args := "", []any(nil)
	if !all {
		where, args = " WHERE e.run = ?", []any{run}
	}
	query := func(q string, scan func(rows *sql.Rows) error) error {
		rows, err := db.QueryContext(ctx, q+where, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	exec := table("exec")
	if exec == "" {
		return cc, nil
	}
	err := query(`SELECT run, id, site FROM "`+exec+`" AS e`, func(rows *sql.Rows) error {
		var k execKey
		var site int64
		err := rows.Scan(&k.run, &k.id, &site)
		cc.site[k] = site
		return err
	})
	if err != nil {
		return nil, err
	}
	if g, end := goroutineTable, endTable; g != "" && end != "" {
		// Sorted by goroutine and begin, an execution's innermost
		// container is the last one still open on the goroutine's stack.
		type open struct{ id, end int64 }
		var stack []open
		var lastRun, lastG int64 = -1, -1
		rows, err := db.QueryContext(ctx, `SELECT e.run, e.id, g.g, n.seq FROM "`+exec+`" AS e JOIN "`+g+`" AS g ON g.run = e.run AND g.id = e.id JOIN "`+end+`" AS n ON n.run = e.run AND n.id = e.id`+where+` ORDER BY e.run, g.g, e.id`, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		for rows.Next() {
			var k execKey
			var gid, seq int64
			if err := rows.Scan(&k.run, &k.id, &gid, &seq); err != nil {
				return nil, err
			}
			if k.run != lastRun || gid != lastG {
				stack, lastRun, lastG = stack[:0], k.run, gid
			}
			for len(stack) > 0 && stack[len(stack)-1].end < k.id {
				stack = stack[:len(stack)-1]
			}
			if n := len(stack); n > 0 && stack[n-1].end > seq {
				cc.parent[k] = stack[n-1].id
			}
			stack = append(stack, open{k.id, seq})
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if callsTable != "" {
		err := query(`SELECT e.run, e."`+pair[0]+`", e."`+pair[1]+`" FROM "`+callsTable+`" AS e`, func(rows *sql.Rows) error {
			var k execKey
			var caller int64
			err := rows.Scan(&k.run, &caller, &k.id)
			cc.parent[k] = caller
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return cc, nil
}

// profileBuilder adds samples to a profile, one location per function
// and line, one sample per stack and labels.
type profileBuilder struct {
	p         *profile.Profile
	functions map[string]*profile.Function
	locations map[string]*profile.Location
	samples   map[string]*profile.Sample
	sites     *profileSites
}

func (b *profileBuilder) location(fn string, line int64) *profile.Location {
	key := fn + "\x00" + strconv.FormatInt(line, 10)
	if l := b.locations[key]; l != nil {
		return l
	}
	f := b.functions[fn]
	if f == nil {
		f = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: fn, SystemName: fn,
			Filename: b.sites.file[fn], StartLine: b.sites.start[fn]}
		b.functions[fn] = f
		b.p.Function = append(b.p.Function, f)
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Line: []profile.Line{{Function: f, Line: line}}}
	b.locations[key] = l
	b.p.Location = append(b.p.Location, l)
	return l
}

// stack is the locations of execution k and the recorded executions it
// was called from, innermost first. A caller's line is that of the call
// when the callee was recorded at its call site, else the caller's first.
func (b *profileBuilder) stack(cc *callingContext, k execKey) []*profile.Location {
	var locs []*profile.Location
	seen := map[int64]bool{}
	line := int64(-1)
	for {
		site, ok := cc.site[k]
		if !ok || seen[k.id] {
			break
		}
		seen[k.id] = true
		fn := b.sites.function[site]
		if line < 0 {
			line = b.sites.start[fn]
		}
		locs = append(locs, b.location(fn, line))
		line = -1
		if b.sites.isCall[site] {
			line = b.sites.line[site]
		}
		parent, ok := cc.parent[k]
		if !ok {
			break
		}
		k.id = parent
	}
	return locs
}

// add adds value to the sample of the stack and labels.
func (b *profileBuilder) add(locs []*profile.Location, labels map[string][]string, num map[string][]int64, units map[string][]string, values []int64) {
	var key strings.Builder
	for _, l := range locs {
		fmt.Fprintf(&key, "%d,", l.ID)
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		fmt.Fprintf(&key, "|%q=%q", k, labels[k])
	}
	for _, k := range slices.Sorted(maps.Keys(num)) {
		fmt.Fprintf(&key, "|%q#%v", k, num[k])
	}
	if s := b.samples[key.String()]; s != nil {
		for i, v := range values {
			s.Value[i] += v
		}
		return
	}
	s := &profile.Sample{Location: locs, Value: slices.Clone(values), Label: labels, NumLabel: num, NumUnit: units}
	b.samples[key.String()] = s
	b.p.Sample = append(b.p.Sample, s)
}

// writeProfile writes the answer of question name, whose columns are
// header (run first when allRuns) and rows, as a profile.proto to w:
// each execution a sample (a group, for a count or a sum), under the
// recorded executions it was called from.
func writeProfile(ctx context.Context, w io.Writer, db *sql.DB, p *plan.Project, name string, header []string, rows rowIter, run int64, allRuns bool, notes []incompleteNote) error {
	shape, ok := p.Shapes[name]
	if !ok {
		return fmt.Errorf("%s: .pmm/plan.json does not say what the answer's columns hold: run pmm instrument again", name)
	}
	offset := len(header) - len(shape.Columns) // 1 when run is a column
	if offset < 0 || offset > 1 {
		return fmt.Errorf("%s: the answer has %d columns, plan.json says %d: run pmm instrument again", name, len(header), len(shape.Columns))
	}
	ps, err := profileShapeOf(name, header[offset:], shape)
	if err != nil {
		return notAProfile{err}
	}
	sites, err := readProfileSites(ctx, db)
	if err != nil {
		return err
	}
	cc := &callingContext{}
	if ps.leafExec {
		tables := map[string]string{} // by kind
		for _, t := range p.Tables {
			if t.Question == name {
				tables[t.Prim] = t.Name
			}
		}
		if cc, err = readCallingContext(ctx, db, tables, run, allRuns); err != nil {
			return err
		}
	}
	prof := &profile.Profile{}
	if shape.Aggregate == "" {
		prof.SampleType = append(prof.SampleType, &profile.ValueType{Type: "executions", Unit: "count"})
	}
	if ps.value >= 0 {
		prof.SampleType = append(prof.SampleType, &ps.valueType)
	}
	prof.DefaultSampleType = prof.SampleType[len(prof.SampleType)-1].Type
	what := fmt.Sprintf("run %d", run)
	if allRuns {
		what = "every run"
	}
	prof.Comments = append(prof.Comments, fmt.Sprintf("pmm answer %s, %s", name, what))
	prof.Comments = append(prof.Comments, noteLabels(notes, allRuns)...)
	if !allRuns {
		var start, end string
		if err := db.QueryRowContext(ctx, "SELECT coalesce(start, ''), coalesce(end, '') FROM runs WHERE id = ?", run).Scan(&start, &end); err == nil {
			t0, err0 := time.Parse(time.RFC3339Nano, start)
			t1, err1 := time.Parse(time.RFC3339Nano, end)
			if err0 == nil {
				prof.TimeNanos = t0.UnixNano()
			}
			if err0 == nil && err1 == nil {
				prof.DurationNanos = t1.Sub(t0).Nanoseconds()
			}
		}
	}
	b := &profileBuilder{p: prof, functions: map[string]*profile.Function{}, locations: map[string]*profile.Location{},
		samples: map[string]*profile.Sample{}, sites: sites}
	seen := map[execKey]bool{}
	values := make([]int64, len(prof.SampleType))
	for rows.Next() {
		row := rows.Row()
		k := execKey{run: run}
		if offset == 1 {
			k.run, _ = row[0].(int64)
		}
		row = row[offset:]
		var locs []*profile.Location
		if ps.leafExec {
			id, ok := row[ps.leaf].(int64)
			if !ok || seen[execKey{k.run, id}] && shape.Aggregate == "" {
				continue // a row of an execution counted already
			}
			k.id = id
			seen[k] = true
			locs = b.stack(cc, k)
		} else if path, ok := row[ps.leaf].(string); ok && ps.leafPath {
			// A calling context, root first; a sample's stack is leaf first.
			fns := strings.Split(path, ";")
			for i := len(fns) - 1; i >= 0; i-- {
				locs = append(locs, b.location(fns[i], sites.start[fns[i]]))
			}
		} else if fn, ok := row[ps.leaf].(string); ok {
			locs = []*profile.Location{b.location(fn, sites.start[fn])}
		}
		if len(locs) == 0 {
			return fmt.Errorf("%s: no function for %v (%s)", name, row[ps.leaf], header[offset+ps.leaf])
		}
		values = values[:0]
		if shape.Aggregate == "" {
			values = append(values, 1)
		}
		if ps.value >= 0 {
			v, err := profileValue(row[ps.value])
			if err != nil {
				return fmt.Errorf("%s: %s: %w", name, header[offset+ps.value], err)
			}
			values = append(values, v)
		}
		var labels, units map[string][]string
		var nums map[string][]int64
		for _, c := range ps.labels {
			key := header[offset+c]
			switch v := row[c].(type) {
			case nil:
			case int64:
				if nums == nil {
					nums, units = map[string][]int64{}, map[string][]string{}
				}
				nums[key] = []int64{v}
				if u := kindUnit(ps.kinds[c]); u == unitNanoseconds {
					units[key] = []string{"nanoseconds"}
				}
			default:
				if labels == nil {
					labels = map[string][]string{}
				}
				labels[key] = []string{cellText(v)}
			}
		}
		if allRuns {
			if nums == nil {
				nums, units = map[string][]int64{}, map[string][]string{}
			}
			nums["run"] = []int64{k.run}
		}
		b.add(locs, labels, nums, units, values)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := prof.CheckValid(); err != nil {
		return fmt.Errorf("%s: pmm made an invalid profile: %w", name, err)
	}
	return prof.Write(w)
}

// profileValue is a sample's value: an integer, or a number SQLite
// computed (a sum) that is one.
func profileValue(v any) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case float64:
		if v == float64(int64(v)) {
			return int64(v), nil
		}
	}
	return 0, fmt.Errorf("%v is not an integer", v)
}
