package main

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/rt/load"
	"pmm.dev/pmm/rt/logfmt"
	"pmm.dev/pmm/schema"
)

// Allocations outside the module (docs/MEMORY.md): where an answer
// leaves out what code outside the module allocates inside its
// executions (plan.Incomplete.Outside), the runtime writes the process's
// heap profile (the allocs profile, after a collection) when main
// returns, or testing does when a test binary's tests end. Before the
// load, pmm reads each with github.com/google/pprof/profile and keeps
// the samples whose allocating frame is outside the module and whose
// stack holds a frame of it: by the module's call that made the call,
// and by every function of the module on the stack; the load stores
// them (load.Outside) and the answer's reason says where they are.

// What the figures of the heap profile are (the figures column).
const (
	// figuresExact: every allocation, at MemProfileRate 1 under -race
	// (which turns the tiny allocator's combining off).
	figuresExact = "exact"
	// figuresLowerBound: at MemProfileRate 1 without -race, a
	// pointer-free object under 16 bytes that fits in the tiny
	// allocator's current block is not sampled.
	figuresLowerBound = "exact but for tiny objects combined (a lower bound)"
	// figuresSampled: the runtime's sampling (one sample per
	// MemProfileRate bytes on average), scaled as the runtime scales it.
	figuresSampled = "sampled (estimate)"
)

// exactOutsideDebug is the GODEBUG setting of -exact-outside: the heap
// profile samples every allocation, from the process's start.
const exactOutsideDebug = "memprofilerate=1"

// outsideRun is what the heap profiles of a run say.
type outsideRun struct {
	rows      load.Outside
	figures   []string // the kinds of figures of the profiles read
	processes int      // the processes that recorded
	missing   int      // of those, the ones whose profile is missing or unreadable
	unread    []string // why profiles could not be read
}

// readOutside reads the heap profiles in logDir; nil when no answer of p
// asks for them.
func readOutside(p *plan.Project, logDir string) (*outsideRun, error) {
	if len(p.OutsideQuestions()) == 0 {
		return nil, nil
	}
	pids, err := load.ProcessIDs(logDir)
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(logDir, "*"+logfmt.AllocsProfileSuffix))
	if err != nil {
		return nil, err
	}
	o := &outsideRun{processes: len(pids)}
	cls := frameClasses{root: filepath.ToSlash(p.Root) + "/", module: p.Module + "/"}
	calls := map[load.OutsideCall]*load.OutsideCall{}
	funcs := map[load.OutsideFunction]*load.OutsideFunction{}
	read := map[int64]bool{}
	for _, path := range paths {
		pid, race, ok := logfmt.ParseAllocsProfileName(filepath.Base(path))
		if !ok {
			continue
		}
		o.rows.Files = append(o.rows.Files, path)
		prof, err := readProfile(path)
		if err != nil {
			o.unread = append(o.unread, fmt.Sprintf("%s: %v", filepath.Base(path), err))
			continue
		}
		read[pid] = true
		figures := figuresSampled
		if prof.Period == 1 {
			figures = figuresLowerBound
			if race {
				figures = figuresExact
			}
		}
		if !slices.Contains(o.figures, figures) {
			o.figures = append(o.figures, figures)
		}
		cls.add(prof, figures, calls, funcs)
	}
	for _, pid := range pids {
		if !read[pid] {
			o.missing++
		}
	}
	if len(pids) == 0 && len(read) == 0 {
		o.missing = 1 // the program recorded nothing, and wrote no profile
	}
	for _, c := range calls {
		o.rows.Calls = append(o.rows.Calls, *c)
	}
	slices.SortFunc(o.rows.Calls, func(a, b load.OutsideCall) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Function, b.Function),
			cmp.Compare(a.Callee, b.Callee), cmp.Compare(a.Figures, b.Figures))
	})
	for _, f := range funcs {
		o.rows.Functions = append(o.rows.Functions, *f)
	}
	slices.SortFunc(o.rows.Functions, func(a, b load.OutsideFunction) int {
		return cmp.Or(cmp.Compare(a.Function, b.Function), cmp.Compare(a.Figures, b.Figures))
	})
	return o, nil
}

// readProfile parses the profile at path.
func readProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return profile.Parse(f)
}

// frameClasses tells the module's frames from the others by their files:
// under the module's root (or its path, in a build with -trimpath), not
// vendored, and not pmm's (its runtime, its generated helpers).
type frameClasses struct{ root, module string }

// The classes of a frame.
const (
	frameOther     = iota // outside the module: the standard library, a dependency, the Go runtime
	frameModule           // the module's own code
	frameGenerated        // pmm's generated helpers in the module's packages (a call's wrapper)
	frameRuntime          // pmm's runtime
)

// class returns the class of a frame of function fn in file, and the
// file relative to the module's root.
func (fc frameClasses) class(fn, file string) (int, string) {
	file = filepath.ToSlash(file)
	rel, ok := strings.CutPrefix(file, fc.root)
	if !ok {
		rel, ok = strings.CutPrefix(file, fc.module)
	}
	switch {
	case !ok || strings.HasPrefix(rel, "vendor/"):
		return frameOther, file
	case strings.HasPrefix(rel, runtimeDir+"/"):
		return frameRuntime, rel
	case strings.Contains(fn, "pmm__") || strings.HasPrefix(filepath.Base(rel), "pmm_gen_"):
		return frameGenerated, rel
	}
	return frameModule, rel
}

// frame is one function of a sample's stack, inlined ones included.
type frame struct {
	fn, file string
	line     int64
	class    int
}

// add adds the samples of prof whose allocating frame is outside the
// module and whose stack holds a frame of it, to calls (by the
// module's frame nearest the allocation, the call it made, and the
// function it called) and funcs (by every function of the module on
// the stack, once per sample). What pmm's runtime allocates (a frame
// of it between the allocation and the module's frame: a log segment,
// the heap profile itself) is left out: the program would not make it;
// a call's generated wrapper between them is seen through.
func (fc frameClasses) add(prof *profile.Profile, figures string, calls map[load.OutsideCall]*load.OutsideCall, funcs map[load.OutsideFunction]*load.OutsideFunction) {
	objects, bytes := -1, -1
	for i, st := range prof.SampleType {
		switch st.Type {
		case "alloc_objects":
			objects = i
		case "alloc_space":
			bytes = i
		}
	}
	if objects < 0 || bytes < 0 {
		return
	}
	var stack []frame
	for _, s := range prof.Sample {
		n, b := s.Value[objects], s.Value[bytes]
		if n == 0 && b == 0 {
			continue
		}
		// The locations go from the allocation up, and a location's
		// lines from the innermost inlined function out.
		stack = stack[:0]
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				if l.Function == nil {
					continue
				}
				class, file := fc.class(l.Function.Name, l.Function.Filename)
				stack = append(stack, frame{fn: l.Function.Name, file: file, line: l.Line, class: class})
			}
		}
		// The runtime's packages that pprof does not hide, as it hides
		// runtime's: a map's groups and tables, which the module's map
		// sites record (instrument's mapgen.go).
		for len(stack) > 0 && strings.HasPrefix(stack[0].fn, "internal/runtime/") {
			stack = stack[1:]
		}
		if len(stack) == 0 || stack[0].class != frameOther {
			continue // the module's own allocation, or pmm's
		}
		caller := slices.IndexFunc(stack, func(f frame) bool { return f.class == frameModule || f.class == frameRuntime })
		if caller < 0 || stack[caller].class == frameRuntime {
			continue // no execution of the module made it, or pmm's runtime did
		}
		callee := caller - 1
		for callee > 0 && stack[callee].class == frameGenerated {
			callee--
		}
		ck := load.OutsideCall{Function: stack[caller].fn, File: stack[caller].file, Line: stack[caller].line, Callee: stack[callee].fn, Figures: figures}
		if calls[ck] == nil {
			c := ck
			calls[ck] = &c
		}
		calls[ck].Objects += n
		calls[ck].Bytes += b
		var seen []string
		for _, f := range stack[caller:] {
			if f.class != frameModule || slices.Contains(seen, f.fn) {
				continue
			}
			seen = append(seen, f.fn)
			fk := load.OutsideFunction{Function: f.fn, Figures: figures}
			if funcs[fk] == nil {
				f := fk
				funcs[fk] = &f
			}
			funcs[fk].Objects += n
			funcs[fk].Bytes += b
		}
	}
}

// note is what the reason of an answer that leaves out allocations
// outside the module adds: where the run's figures of them are, and
// what they are, or that they are missing.
func (o *outsideRun) note() string {
	tables := load.OutsideCallsTable + " (by the module's call) and " + load.OutsideFunctionsTable + " (by the module's functions on the stack)"
	why := "a process writes it when main returns, a test binary when its tests end, and not when it ends by os.Exit, a panic or a signal"
	var unread string
	if len(o.unread) > 0 {
		unread = " (unreadable: " + strings.Join(o.unread, "; ") + ")"
	}
	if len(o.figures) == 0 {
		return "; what it allocated is missing too: the run left no heap profile" + unread + " (" + why + ")"
	}
	s := "; what it allocated is in " + tables + ", from the run's heap profile, apart from this answer: figures " + strings.Join(o.figures, ", and ")
	if o.missing > 0 {
		s += fmt.Sprintf("; missing there: %d of the %d processes that recorded left no heap profile%s (%s)", o.missing, o.processes, unread, why)
	}
	return s
}

// exactOutsideUsage documents -exact-outside of pmm run and pmm test.
const exactOutsideUsage = "count allocations outside the module exactly: the program runs with GODEBUG=" + exactOutsideDebug +
	" (the heap profile samples every allocation; 10-80x slower where it allocates), not the runtime's sampling"

// exactOutside says whether a run with -exact-outside (exact) gives the
// program the exact heap profile: only where some answer leaves out
// allocations outside the module (else it says the option changes
// nothing).
func exactOutside(e *env, p *plan.Project, cmd string, exact bool) bool {
	if exact && len(p.OutsideQuestions()) == 0 {
		fmt.Fprintf(e.stderr, "pmm %s: -exact-outside: no answer leaves out allocations outside the module; running without it\n", cmd)
		return false
	}
	return exact
}

// exactOutsideEnv is the program's GODEBUG with the exact heap profile's
// setting added to the environment's.
func exactOutsideEnv() string {
	if d := os.Getenv("GODEBUG"); d != "" {
		return "GODEBUG=" + d + "," + exactOutsideDebug
	}
	return "GODEBUG=" + exactOutsideDebug
}

// outsideSection is a table of allocations outside the module as pmm
// answer shows it after the answers.
type outsideSection struct {
	Title string `json:"title"`
	query string
}

// outsideSections are the tables pmm answer shows after the answers of
// names, when one of them leaves out allocations outside the module and
// pmm.db has the tables (a database loaded by an older pmm has not).
func outsideSections(ctx context.Context, db *sql.DB, p *plan.Project, names []string) ([]outsideSection, error) {
	asked := false
	for _, q := range p.OutsideQuestions() {
		asked = asked || slices.ContainsFunc(names, func(n string) bool { return schema.SQLName(n) == schema.SQLName(q) })
	}
	if !asked {
		return nil, nil
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)",
		load.OutsideCallsTable, load.OutsideFunctionsTable).Scan(&n); err != nil || n < 2 {
		return nil, err
	}
	return []outsideSection{
		{"allocations outside the module, by the module's call (" + load.OutsideCallsTable + ")",
			"SELECT run, function, file || ':' || line AS call, callee, objects, bytes, figures FROM " + load.OutsideCallsTable},
		{"allocations outside the module, by the module's function on the stack (" + load.OutsideFunctionsTable + ")",
			"SELECT run, function, objects, bytes, figures FROM " + load.OutsideFunctionsTable},
	}, nil
}

// read returns the section's rows of run, or of every run (all: with
// the run column), the most bytes first.
func (s outsideSection) read(dbPath string, run int64, all bool) (header []string, rows rowIter, done func() error, err error) {
	query, args := s.query, []any{}
	if !all {
		query += " WHERE run = ?"
		args = append(args, run)
	}
	return queryRuns(dbPath, query+" ORDER BY run, bytes DESC, function", args, all)
}

// json returns the section's rows as pmm answer -format json shows them.
func (s outsideSection) json(dbPath string, run int64, all bool) (jsonSection, error) {
	js := jsonSection{Title: s.Title, Rows: []map[string]any{}}
	header, rows, done, err := s.read(dbPath, run, all)
	if err != nil {
		return js, err
	}
	defer done()
	for rows.Next() {
		m := map[string]any{}
		for i, v := range rows.Row() {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			m[header[i]] = v
		}
		js.Rows = append(js.Rows, m)
	}
	return js, rows.Err()
}
