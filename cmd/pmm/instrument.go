package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"pmm.dev/pmm/instrument"
	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/rewrite"
	"pmm.dev/pmm/rt"
	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/sites"
	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// The modes of instrumentation (seed 6.1).
const (
	modeStraightforward = "straightforward"
	modeStatic          = "static"
	modeRuntime         = "runtime"
	modeCombined        = "combined"
)

// instrumentMode says which of the two ways of recording less a mode uses.
type instrumentMode struct {
	name        string
	approximate bool // static approximation
	filters     bool // run-time filters
	twin        bool // instrument.Options.Twin
}

// modeNamed returns the mode called name.
func modeNamed(name string) (instrumentMode, bool) {
	switch name {
	case modeStraightforward:
		return instrumentMode{name: name}, true
	case modeStatic:
		return instrumentMode{name: name, approximate: true}, true
	case modeRuntime:
		return instrumentMode{name: name, filters: true}, true
	case modeCombined:
		return instrumentMode{name: name, approximate: true, filters: true}, true
	}
	return instrumentMode{}, false
}

// runtimeDir is where the runtime package goes in the user's module, as
// the overlay adds it; its import path is the module path followed by it.
// The directory exists only in the overlay: its name begins with "_" so
// that ./... does not match it (go test ./... would list a package the
// user does not have, and go vet, which go test runs, cannot chdir to it).
const runtimeDir = "internal/_pmmrt"

func pmmDir(root string) string { return filepath.Join(root, ".pmm") }

// writablePMMDir makes sure that pmm can write .pmm at the module root:
// pmm keeps all it makes there and writes nothing else in the module, so
// a read-only module needs only that directory writable.
func writablePMMDir(root string) error {
	dir := pmmDir(root)
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		var f *os.File
		if f, err = os.CreateTemp(dir, "writable-"); err == nil {
			f.Close()
			return os.Remove(f.Name())
		}
	}
	return fmt.Errorf("%v\n\thint: pmm writes only in %s, which must be writable (make it so, or mount a writable directory there); it never writes the module's own files", err, dir)
}

// moduleRoot returns the root of the module pmm works in, the one that
// holds its directory. Without one, it reports it as cmd, with a hint
// when the directory is in a go.work workspace (pmm works on one module
// of it), and returns exitUsage, the same for every command.
func moduleRoot(e *env, cmd string) (string, int) {
	root, err := static.ModuleRoot(e.dir)
	if err == nil {
		return root, exitOK
	}
	fmt.Fprintf(e.stderr, "pmm %s: %v\n", cmd, err)
	if work, uses := workspaceModules(e.dir); work != "" {
		dir := "DIR"
		if len(uses) > 0 {
			dir = uses[0]
		}
		fmt.Fprintf(e.stderr, "\thint: %s is a workspace; pmm works on one module: cd into one of its modules (%s), or run pmm -C %s %s ...\n",
			work, strings.Join(uses, ", "), dir, cmd)
	}
	return "", exitUsage
}

// toolchainVersion is the version of the Go toolchain that builds the
// module in dir (go env GOVERSION, which follows its toolchain line and
// GOTOOLCHAIN), or "" if the go command does not say.
func toolchainVersion(dir string) string {
	cmd := exec.Command("go", "env", "GOVERSION")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// workspaceModules returns the go.work that governs dir, if any, and the
// directories of its modules as it lists them.
func workspaceModules(dir string) (string, []string) {
	cmd := exec.Command("go", "env", "GOWORK")
	cmd.Dir = dir
	out, err := cmd.Output()
	work := strings.TrimSpace(string(out))
	if err != nil || work == "" || work == "off" {
		return "", nil
	}
	cmd = exec.Command("go", "work", "edit", "-json")
	cmd.Dir = dir
	out, err = cmd.Output()
	var file struct{ Use []struct{ DiskPath string } }
	if err != nil || json.Unmarshal(out, &file) != nil {
		return work, nil
	}
	var uses []string
	for _, u := range file.Use {
		uses = append(uses, u.DiskPath)
	}
	return work, uses
}

func readProject(e *env, cmd string) (*plan.Project, int) {
	root, code := moduleRoot(e, cmd)
	if root == "" {
		return nil, code
	}
	p, err := plan.ReadProject(filepath.Join(pmmDir(root), "plan.json"))
	var notRead *fs.PathError
	switch {
	case errors.As(err, &notRead):
		fmt.Fprintf(e.stderr, "pmm %s: no instrumentation in %s: run pmm instrument first\n", cmd, root)
		return nil, exitUsage
	case err != nil:
		fmt.Fprintf(e.stderr, "pmm %s: %v\n", cmd, err)
		return nil, exitFailure
	}
	return p, exitOK
}

// readWritableProject is readProject for the commands that write into
// .pmm (pmm run, pmm test): .pmm must be writable.
func readWritableProject(e *env, cmd string) (*plan.Project, int) {
	p, code := readProject(e, cmd)
	if p == nil {
		return nil, code
	}
	if err := writablePMMDir(p.Root); err != nil {
		fmt.Fprintf(e.stderr, "pmm %s: %v\n", cmd, err)
		return nil, exitFailure
	}
	if len(p.Hot) > 0 {
		fmt.Fprintf(e.stderr, "pmm %s: warning: every execution of %s that may run often is recorded (pmm instrument said which): "+
			"a long run may record millions of tuples\n", cmd, plural(len(p.Hot), "function"))
	}
	return p, exitOK
}

func instrumentCommand() *command {
	return &command{
		name:    "instrument",
		summary: "instrument a module for questions (writes only .pmm/)",
		usage:   "[-mode M] [-tests] [-tags T] [-callgraph vta|cha|static] [PATTERNS] QUESTIONS.pmm...",
		detail: `
Instrument checks the questions, builds the static database of the packages
matching PATTERNS (default ./...), selects the sites that can matter (see
pmm explain), and writes instrumented copies of the files that hold them to
.pmm/overlay/, with the typed helpers of each file beside it, the runtime
package, and .pmm/overlay.json. Your files, go.mod and go.sum are never
written.

Then build and run with pmm run or pmm test, or by hand:

	go build -overlay .pmm/overlay.json ./...

The instrumented sources are ordinary Go you can read; /*line*/ comments
keep the positions of errors and stack traces those of your files.

A question that can have no answer in the program, because an event of
it matches no function (a misspelt name: pmm says which name you may
have meant), stops pmm instrument with exit status 2 before it writes
anything; -allow-empty instruments anyway. Static approximation finds
such events: in mode straightforward, which does without it, they are
not looked for.

Where pmm cannot record a question's events exactly (a site it cannot
instrument, a call that may run several functions it cannot tell apart,
...), it warns, says how many answers may be incomplete, and pmm answer
prints why under each of them (see pmm help answer).

When nothing changed since the last pmm instrument in the module (its
sources, go.mod and go.sum, the questions, the flags and pmm itself),
it reuses .pmm/ as it is, says so, and prints what it printed then.
When something changed, it writes only the files of .pmm/overlay whose
content changes (after a change of the questions, the files whose sites
changed, and their helpers).

When a site records every execution of a function that may run often
(called in a loop, by static.db's calls.loop_depth, or recursive) as
tuples, with no run-time test to drop some, pmm instrument warns, and
pmm run and pmm test say so again before the run: such a run may record
millions of tuples. An aggregate keeps cells instead.

In the default mode, combined, the sites also test at run time what they
can: an execution's own values, its caller's, equal values of two calls
in one execution of their caller, calls* and contains through a
goroutine-local context, negated callees; data waits in the state of the
outermost execution until it is known to be needed; and an aggregate
whose relation run time decides is kept in cells, not tuples. The answers
are the same in every mode; -mode straightforward records every event,
the baseline to compare with (pmm stats).

Example:

	pmm instrument ./... questions.pmm
	pmm run . -- -n 100
	pmm answer
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			analysis := defineAnalysisFlags(fs)
			allowEmpty := fs.Bool("allow-empty", false, "instrument even when a question can have no answer in the program (an event of it matches no function)")
			mode := fs.String("mode", modeCombined, "`mode`: straightforward (every site, every event), static (static approximation), runtime (run-time filters) or combined (both)")
			twin := fs.Bool("twin", false, "keep defers out of instrumented functions: a site that is off costs about a nanosecond less, but while recording such a function has a second frame (F.func1) in stack traces and for runtime.Callers")
			return func(e *env, args []string) int {
				m, ok := modeNamed(*mode)
				if !ok {
					fmt.Fprintf(e.stderr, "pmm instrument: unknown -mode %q (want straightforward, static, runtime or combined)\n", *mode)
					return exitUsage
				}
				m.twin = *twin
				patterns, files := splitQuestions(args)
				p, code := instrumentModule(context.Background(), e, patterns, files, analysis, m, *allowEmpty)
				if p == nil {
					return code
				}
				for _, s := range p.Skipped {
					fmt.Fprintf(e.stderr, "pmm instrument: warning: %s\n", s)
				}
				var placed []placedReason
				for _, r := range p.Incomplete {
					if !r.Skip { // the skipped sites are above
						placed = append(placed, placedReason{fmt.Sprintf("question %s may be incomplete: %s", r.Question, incompleteText(r)), r.Position})
					}
				}
				for _, l := range placedReasons(placed) {
					fmt.Fprintf(e.stderr, "pmm instrument: warning: %s\n", l)
				}
				if w := hotWarning(p.Hot); w != "" {
					fmt.Fprintf(e.stderr, "pmm instrument: warning: %s\n", w)
				}
				fmt.Fprintf(e.stdout, "instrumented %d sites for %s\n", len(p.Sites), plural(len(p.Questions), "question"))
				for _, d := range p.RunTime {
					fmt.Fprintf(e.stdout, "  %s: %s\n", d.Question, d.What)
				}
				if n := incompleteQuestions(p.Incomplete); n > 0 {
					fmt.Fprintf(e.stdout, "%d of %d answers may be incomplete (pmm answer says why)\n", n, len(p.Questions))
				}
				rel, _ := filepath.Rel(e.dir, p.Overlay)
				fmt.Fprintf(e.stdout, "build with: go build -overlay %s ./...   or: pmm run PACKAGE, pmm test PATTERNS\n", rel)
				return exitOK
			}
		},
	}
}

// instrumentModule is pmm instrument: pmm's stages in order, each
// reading only what those before it made (docs/ARCHITECTURE.md),
//
//	compile → static db → select → plan → generate → rewrite → plan.json
//
// plan.json is the contract with the commands after it: pmm run and pmm
// test go on with run → load (runAndLoad), and pmm answer ends the line
// (the views of pmm.db). Errors are reported on e.stderr; the project
// is nil when the command must stop with the exit code. A question that
// can have no answer in the program stops it, before anything is
// written, unless allowEmpty.
func instrumentModule(ctx context.Context, e *env, patterns, files []string, analysis *analysisFlags, mode instrumentMode, allowEmpty bool) (*plan.Project, int) {
	fail := func(err error) (*plan.Project, int) {
		fmt.Fprintf(e.stderr, "pmm instrument: %v\n", err)
		return nil, exitFailure
	}
	// On a terminal, the step it is at, once it takes over a second.
	pg, e := startProgress(e, "instrument")
	defer pg.Stop()
	pg.Step("checking the questions")
	prog, code := compileQuestions(e, "instrument", files)
	if prog == nil {
		return nil, code
	}
	root, code := moduleRoot(e, "instrument")
	if root == "" {
		return nil, code
	}
	if err := writablePMMDir(root); err != nil {
		return fail(err)
	}
	// The executable's hash (0.025 s of CPU for a 37 MB pmm) while the
	// module is analysed or its fingerprint checked and the sites
	// selected, on a core those leave idle.
	exeHash := make(chan hashResult, 1)
	go func() {
		h, err := executableHash()
		exeHash <- hashResult{h, err}
	}()
	pg.Step("analysing the packages")
	analysis.escapeFor(prog)
	res, code := analysis.build(ctx, e, "instrument", patterns)
	if res == nil {
		return nil, code
	}
	pg.Step("selecting the sites")
	sel, err := selectSites(ctx, e, res.Path, prog, mode)
	if err != nil {
		return fail(err)
	}
	if empty := unanswerable(sel); len(empty) > 0 && !allowEmpty {
		which := "question " + empty[0] + " can have no answer in this program: an event of it matches"
		if len(empty) > 1 {
			which = "questions " + strings.Join(empty, ", ") + " can have no answer in this program: an event of each matches"
		}
		fmt.Fprintf(e.stderr, "pmm instrument: %s no function (the warnings above say which); nothing was instrumented\n\thint: fix the question, or instrument anyway with -allow-empty\n", which)
		return nil, exitUsage
	}
	exe := <-exeHash
	if exe.err != nil {
		return fail(exe.err)
	}
	key, err := instrumentKey(res.Fingerprint, resolve(e, files), mode, exe.hash)
	if err != nil {
		return fail(err)
	}
	if pr := unchangedProject(pmmDir(res.Root), key); pr != nil {
		fmt.Fprintf(e.stdout, "nothing changed since the last pmm instrument: .pmm/ is reused as it is\n")
		return pr, exitOK
	}
	sch, err := schema.Generate(prog)
	if err != nil {
		return fail(err)
	}
	p, err := plan.Build(prog, sel, sch, plan.Options{Filters: mode.filters})
	if err != nil {
		return fail(err)
	}
	pg.Step("loading the packages of " + plural(len(p.Sites), "site"))
	// The nested clocks, from static.db, while the go command lists the
	// packages to load.
	var nested *plan.NestedClocks
	nestedErr := make(chan error, 1)
	go func() {
		var err error
		nested, err = nestedClocks(res.Path, p)
		nestedErr <- err
	}()
	pkgs, err := loadSitePackages(ctx, res.Root, p, analysis)
	if err := <-nestedErr; err != nil {
		return fail(err)
	}
	if err != nil {
		return fail(err)
	}
	acc, err := accounts(res.Path, res.Root, p, pkgs)
	if err != nil {
		return fail(err)
	}
	texts, err := textTypes(ctx, res.Path)
	if err != nil {
		return fail(err)
	}
	pg.Step("generating the code of " + plural(len(pkgs), "package"))
	opts := instrument.Options{Twin: mode.twin, Nested: nested, Quiet: acc.quiet, Known: acc.known}
	if slices.ContainsFunc(p.Sites, func(s *plan.Site) bool {
		return s.Kind == spec.SiteAllocation && slices.Contains([]string{"make-chan", "make-map", "map-literal", "map-assign"}, s.Label)
	}) {
		opts.GoVersion = toolchainVersion(res.Root) // a channel's and a map's objects depend on it
	}
	p, gen, err := generate(p, pkgs, res.Root, res.ModulePath+"/"+runtimeDir, opts)
	if err != nil {
		return fail(err)
	}
	pg.Step("writing the overlay")
	out := pmmDir(res.Root)
	written, err := rewrite.Write(rewrite.Config{
		Root: res.Root, OutDir: filepath.Join(out, "overlay"), Code: gen,
		Runtime: rt.Sources(rt.Config{
			ImportPath: res.ModulePath + "/" + runtimeDir, Dir: out, Sites: p.NumSiteIDs(), Bases: gen.SiteBases,
			Outside: len(p.OutsideQuestions()) > 0, Module: res.ModulePath, TextTypes: texts,
		}),
		RuntimeDir: runtimeDir, Version: exe.hash,
	})
	if err != nil {
		return fail(err)
	}
	pr := p.Project(prog, sch, gen.Skipped, gen.Inexact)
	pr.Incomplete = append(pr.Incomplete, nested.Notes()...)
	for i := range pr.Sites {
		for _, qi := range gen.WaitEnd[pr.Sites[i].Site] {
			pr.Sites[i].WaitEnd = append(pr.Sites[i].WaitEnd, prog.Questions[qi].Name)
		}
	}
	pr.Root, pr.Module, pr.Overlay, pr.Tags = res.Root, res.ModulePath, written.Overlay, tagList(*analysis.tags)
	pr.Shapes = answerShapes(prog)
	pr.Units = answerUnits(pr.Shapes)
	if !*analysis.tests {
		pr.Untested = append(untestedCalls(sel), untestedAccounts(sel, p, acc.untested)...)
	}
	if pr.Hot, err = hotFunctions(res.Path, pr); err != nil {
		return fail(err)
	}
	pr.Key = key
	if err := pr.Write(filepath.Join(out, "plan.json")); err != nil {
		return fail(err)
	}
	return pr, exitOK
}

// inSpan is the SQL condition of a call of static.db's calls table made
// by function ? within the span ? (file, line, line, col, end line, end
// line, end col), not by a go statement.
const inSpan = "c.caller_id = ? AND c.via <> 'go' AND c.file = ? " +
	"AND (c.line > ? OR c.line = ? AND c.col >= ?) AND (c.end_line < ? OR c.end_line = ? AND c.end_col <= ?)"

// int64s runs query, whose rows are one integer each, and returns them.
func int64s(db *sql.DB, query string, args ...any) ([]int64, error) {
	rows, err := db.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// openCallGraph opens the static database at dbPath and reads its call
// graph; the caller closes the database.
func openCallGraph(dbPath string) (*sql.DB, *static.CallGraph, error) {
	db, err := openStatic(dbPath)
	if err != nil {
		return nil, nil, err
	}
	g, err := static.ReadCallGraph(db)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, g, nil
}

// nestedClocks finds the durations of p that instrumented executions
// nested inside them would inflate (plan.NestedClocks), from the call
// graph of the static database at dbPath, as the vocabulary's transitive
// calls relation decides it statically (same goroutine: static.CallGraph).
func nestedClocks(dbPath string, p *plan.Plan) (*plan.NestedClocks, error) {
	db, g, err := openCallGraph(dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	// The targets of the calls within a span of a body (a callback set
	// by its negated id, as the graph has it).
	within := "SELECT t.callee_id FROM calls c JOIN call_targets t ON t.call_id = c.id WHERE " + inSpan +
		" UNION SELECT t.callee_id FROM calls c JOIN callback_targets t ON t.call_id = c.id WHERE " + inSpan +
		" UNION SELECT -s.set_id FROM calls c JOIN callback_sets s ON s.call_id = c.id WHERE " + inSpan
	memo := map[int64][]int64{}
	return p.NestedClocks(func(caller int64, span *static.Span) ([]int64, error) {
		if span != nil {
			w := span
			args := []any{caller, w.File, w.Line, w.Line, w.Col, w.EndLine, w.EndLine, w.EndCol}
			targets, err := int64s(db, within, append(append(append([]any(nil), args...), args...), args...)...)
			if err != nil {
				return nil, err
			}
			return g.ReachFrom(targets), nil
		}
		callees, ok := memo[caller]
		if !ok {
			callees = g.Reach(caller)
			memo[caller] = callees
		}
		return callees, nil
	})
}

// selectSites selects the sites that can matter to the questions of
// prog in the static database at dbPath (all of them, without static
// approximation), and warns of what the selection says.
func selectSites(ctx context.Context, e *env, dbPath string, prog *spec.Program, mode instrumentMode) (*sites.Selection, error) {
	db, err := openStatic(dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	sel, err := sites.SelectWith(ctx, db, prog, sites.Options{Approximate: mode.approximate})
	if err != nil {
		return nil, err
	}
	for _, q := range sel.Questions {
		for _, w := range q.Warnings {
			fmt.Fprintf(e.stderr, "pmm instrument: warning: question %s: %s\n", q.Name, w)
		}
	}
	return sel, nil
}

// unanswerable returns the questions of sel that can have no answer:
// each conjunction of theirs has an event no function can be (and no
// call the call graph did not resolve might reach one). A negated part
// that matches nothing does not make its question empty.
func unanswerable(sel *sites.Selection) []string {
	var out []string
	for _, q := range sel.Questions {
		empty := len(q.Disjuncts) > 0
		for _, d := range q.Disjuncts {
			empty = empty && slices.ContainsFunc(d.Vars, func(v *sites.Var) bool { return len(v.Functions) == 0 && len(v.Gaps) == 0 })
		}
		if empty {
			out = append(out, q.Name)
		}
	}
	return out
}

// generate generates the code of plan p, leaving to the answer the
// tests decided at run time that some site cannot take part in: the
// plan it returns, p without those tests, is the one the code is of.
func generate(p *plan.Plan, pkgs []*packages.Package, root, rtPath string, opt instrument.Options) (*plan.Plan, *instrument.Code, error) {
	for {
		code, err := instrument.Generate(p, pkgs, root, rtPath, opt)
		if err != nil || len(code.Off) == 0 {
			return p, code, err
		}
		p = p.Without(code.Off...)
	}
}

// untestedCalls returns why the answers of pmm test may be incomplete
// when test files are not instrumented: the events recorded at call sites
// (other than a callee's, whose caller a relation names) miss the calls
// in test files.
func untestedCalls(sel *sites.Selection) []plan.Incomplete {
	var out []plan.Incomplete
	for _, q := range sel.Questions {
		var vars []string
		eachSite(q, func(v *sites.Var, s *sites.Site) {
			if s.Kind == spec.SiteCall && !v.Lexical && !s.Impossible && !slices.Contains(vars, v.Name) {
				vars = append(vars, v.Name)
			}
		})
		if len(vars) > 0 {
			sort.Strings(vars)
			out = append(out, plan.Incomplete{Question: q.Name, Vars: vars,
				Reason: "recorded at call sites, and pmm instrument ran without -tests: the calls in test files are not recorded"})
		}
	}
	return out
}

// eachSite calls f with every site of every variable of q, in its
// disjuncts and their negated parts.
func eachSite(q *sites.Question, f func(v *sites.Var, s *sites.Site)) {
	var walk func(d *sites.Disjunct)
	walk = func(d *sites.Disjunct) {
		for _, v := range d.Vars {
			for i := range v.Sites {
				f(v, &v.Sites[i])
			}
		}
		for _, n := range d.Negated {
			walk(n)
		}
	}
	for _, d := range q.Disjuncts {
		walk(d)
	}
}

// untestedAccounts returns why the answers of pmm test may be
// incomplete when test files are not analysed and the account of the
// allocations in some functions (untested, by id) is known from their
// callers (accountFacts.known): a test may call them too.
func untestedAccounts(sel *sites.Selection, p *plan.Plan, untested map[int64]string) []plan.Incomplete {
	if len(untested) == 0 {
		return nil
	}
	reading := map[string]bool{} // the questions reading the account at such a site
	for _, s := range p.Sites {
		if _, ok := untested[s.FuncID]; !ok {
			continue
		}
		for _, t := range s.Targets {
			for _, e := range t.Emits {
				if slices.ContainsFunc(e.Fields, func(f plan.Field) bool { return f.Cap == plan.CapAccount }) {
					reading[e.Question] = true
				}
			}
			for _, ac := range t.Cells {
				if slices.ContainsFunc(ac.Group, func(k plan.CellKey) bool { return k.Account != "" }) {
					reading[ac.Question] = true
				}
			}
		}
	}
	var out []plan.Incomplete
	for _, q := range sel.Questions {
		if !reading[q.Name] {
			continue
		}
		var vars, funcs []string
		eachSite(q, func(v *sites.Var, s *sites.Site) {
			name, ok := untested[s.FuncID]
			if s.Kind != spec.SiteAllocation || !ok {
				return
			}
			if !slices.Contains(vars, v.Name) {
				vars = append(vars, v.Name)
			}
			if !slices.Contains(funcs, name) {
				funcs = append(funcs, name)
			}
		})
		if len(vars) > 0 {
			sort.Strings(vars)
			sort.Strings(funcs)
			out = append(out, plan.Incomplete{Question: q.Name, Vars: vars,
				Reason: "the memory account of the allocations in " + strings.Join(funcs, ", ") + " is that of their callers in the code pmm analysed, and pmm instrument ran without -tests: a test that calls them is not seen (instrument with -tests)"})
		}
	}
	return out
}

// incompleteText is a reason as pmm_incomplete holds it: the events it
// affects and why.
func incompleteText(r plan.Incomplete) string {
	events := "event "
	if len(r.Vars) > 1 {
		events = "events "
	}
	return events + strings.Join(r.Vars, ", ") + ": " + r.Reason
}

// withPosition appends the position of a reason, if it has one.
func withPosition(reason, position string) string {
	if position == "" {
		return reason
	}
	return reason + " (" + position + ")"
}

// placedReason is a reason and the position it was met at ("" for none).
type placedReason struct{ reason, position string }

// placedReasons are the lines that say rs: one per reason, in the order
// they come, with the positions it was met at (the first three, then how
// many more). A reason met at forty call sites, such as a dynamic call
// the call graph did not resolve, is one line, not forty; pmm_incomplete
// and pmm answer -format json keep every position.
func placedReasons(rs []placedReason) []string {
	var order []string
	at := map[string][]string{}
	for _, r := range rs {
		if _, ok := at[r.reason]; !ok {
			order = append(order, r.reason)
			at[r.reason] = nil
		}
		if r.position != "" {
			at[r.reason] = append(at[r.reason], r.position)
		}
	}
	lines := make([]string, 0, len(order))
	for _, reason := range order {
		ps := at[reason]
		where := strings.Join(ps, ", ")
		if len(ps) > 3 {
			where = fmt.Sprintf("%s and %d more", strings.Join(ps[:3], ", "), len(ps)-3)
		}
		lines = append(lines, withPosition(reason, where))
	}
	return lines
}

// incompleteQuestions counts the questions some reason affects.
func incompleteQuestions(rs []plan.Incomplete) int {
	seen := map[string]bool{}
	for _, r := range rs {
		seen[r.Question] = true
	}
	return len(seen)
}

// loadSitePackages loads, with syntax and types, the packages that hold
// the plan's sites.
func loadSitePackages(ctx context.Context, root string, p *plan.Plan, analysis *analysisFlags) ([]*packages.Package, error) {
	dirs := map[string]bool{}
	tests := *analysis.tests
	for _, s := range p.Sites {
		if filepath.IsAbs(s.File) {
			continue // code that cgo generated, in the build cache: not rewritten
		}
		dirs["./"+filepath.ToSlash(filepath.Dir(s.File))] = true
		if strings.HasSuffix(s.File, "_test.go") {
			tests = true
		}
	}
	if len(dirs) == 0 {
		return nil, nil
	}
	for _, s := range p.Sites {
		if s.Kind == spec.SiteCall && s.Dynamic() {
			// The dynamic types of an interface call that run its
			// targets (instrument's dispatchTypes) may be declared in
			// any package of the module, in a function too, or promote
			// a target from an embedded field: the generator looks at
			// every package's syntax.
			dirs["./..."] = true
			break
		}
	}
	if len(p.Accounts()) > 0 {
		// The functions of accounted packages enter their account
		// (instrument's accountEntries): which packages those are, the
		// generator decides from every package of the module.
		dirs["./..."] = true
	}
	var patterns []string
	for d := range dirs {
		patterns = append(patterns, d)
	}
	sort.Strings(patterns)
	cfg := &packages.Config{
		Context: ctx, Dir: root, Tests: tests,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedTypesSizes,
	}
	if *analysis.tags != "" {
		cfg.BuildFlags = []string{"-tags=" + *analysis.tags}
	}
	pkgs, err := static.LoadPackages(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("loading the packages to instrument:\n\t%s", strings.Join(errs, "\n\t"))
	}
	if err := retypeCgo(pkgs); err != nil {
		return nil, err
	}
	return pkgs, nil
}

// textTypes reads from the static database at path the module's types
// whose text methods the runtime may call (static.TextTypes).
func textTypes(ctx context.Context, path string) ([]string, error) {
	db, err := openStatic(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return static.TextTypes(ctx, db)
}
