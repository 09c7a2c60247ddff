package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/rt/load"
	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/spec"
)

func runCommand() *command {
	return &command{
		name:    "run",
		summary: "build an instrumented program, run it, record the answers",
		usage:   "[-tags T] [-exact-outside] PACKAGE [-- ARGS]",
		detail: `
Run builds PACKAGE (a main package; for a library's tests, pmm test)
with the overlay of the last pmm instrument, runs it with ARGS (standard input, output and error are the program's), and loads
what it recorded into .pmm/pmm.db, tagged with a new run. The answers are
SQL views named after the questions: see pmm answer.

The program can stop and start recording itself: builds with pmm have
the build tag pmm, so a file with //go:build pmm can import the runtime,
MODULE/internal/_pmmrt, and call its Begin and End, beside a
//go:build !pmm file with no-ops (docs/RUNTIME.md in pmm's repository
says more).
PMM_RECORD=off in the environment starts the program with recording off.

Where an answer leaves out what code outside the module (the standard
library, dependencies) allocates inside its executions, the program
writes the runtime's heap profile when main returns, and pmm stores what
it says of those allocations in pmm_outside_calls and
pmm_outside_functions (pmm answer shows them). By default the figures
are the runtime's sampling (one sample per 512 KiB on average, scaled:
"sampled (estimate)"); -exact-outside runs the program with
GODEBUG=memprofilerate=1, every allocation profiled ("exact but for
tiny objects combined (a lower bound)"; "exact" under -race), at a cost
of 10-80x where the program allocates. A program that ends by os.Exit,
a panic or a signal writes no profile: the answers say so.

The build has the tags of pmm instrument -tags (and pmm); -tags, if
given, must be the same: files that other tags select would run
uninstrumented.

The exit status is the program's, as a shell gives it: 128+n when signal
n killed it (the signal is kept in the runs table). While the program
runs, pmm passes SIGTERM and SIGHUP on to it, and SIGINT unless the
terminal sent it to the program too; pmm waits for the program, then
loads what it recorded. A second signal while pmm loads stops pmm; the
next pmm run loads the logs left behind as the run they belong to.
Runs made at the same time in one module each record and load their own.

Example:

	pmm run . -- -input data.txt
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			tags := fs.String("tags", "", "comma-separated build `tags`")
			exact := fs.Bool("exact-outside", false, exactOutsideUsage)
			return func(e *env, args []string) int {
				pkgs, progArgs := splitDashDash(args)
				if len(pkgs) != 1 {
					fmt.Fprintln(e.stderr, "pmm run: give one package to run\nUsage: pmm run [-tags T] [-exact-outside] PACKAGE [-- ARGS]")
					return exitUsage
				}
				p, code := readWritableProject(e, "run")
				if p == nil {
					return code
				}
				// A binary per process: runs made at the same time may have
				// built different versions.
				bin := filepath.Join(pmmDir(p.Root), "bin", "prog-"+strconv.Itoa(os.Getpid()))
				if runtime.GOOS == "windows" {
					bin += ".exe"
				}
				defer os.Remove(bin)
				runTags, err := sameTags(p, *tags, *tags != "")
				if err != nil {
					fmt.Fprintf(e.stderr, "pmm run: %v\n", err)
					return exitUsage
				}
				build := []string{"build", "-overlay", p.Overlay, "-tags", runTags, "-o", bin}
				if err := goCommand(e, append(build, pkgs[0])...); err != nil {
					fmt.Fprintf(e.stderr, "pmm run: building %s: %v\n", pkgs[0], err)
					return exitFailure
				}
				if isArchive(bin) {
					// go build -o writes a package archive for a package that is not main.
					fmt.Fprintf(e.stderr, "pmm run: %s is not a main package: there is no program to run\nhint: give the package of a command (package main), or run the package's tests with pmm test %s\n", pkgs[0], pkgs[0])
					return exitUsage
				}
				cmd := exec.Command(bin, progArgs...)
				if exactOutside(e, p, "run", *exact) {
					cmd.Env = []string{exactOutsideEnv()}
				}
				return runAndLoad(e, p, cmd, "run "+strings.Join(args, " "), true)
			}
		},
	}
}

func testCommand() *command {
	return &command{
		name:    "test",
		summary: "run a module's tests instrumented, record the answers",
		usage:   "[-exact-outside] [PATTERNS] [-- GOTESTFLAGS]",
		detail: `
Test runs go test on PATTERNS (default ./...) with the overlay of the last
pmm instrument and -count=1 (a cached result records nothing), passing
GOTESTFLAGS to go test, and loads what the test binaries recorded into
.pmm/pmm.db, tagged with a new run. Instrument with -tests to have sites
in test files.

Example:

	pmm instrument -tests ./... questions.pmm
	pmm test ./... -- -run TestCache -race

-exact-outside is pmm run's (pmm help run), given to the test binaries
only (through go test -exec); each test binary's heap profile is written
by package testing when its tests end (pmm's runtime adds
-test.memprofile to the binary's arguments; one the user gives wins,
and then the figures are missing).
`,
		flagsNote: `  The flags after -- are go test's (go help testflag), passed on to it;
  -tags, if given, must be the tags of pmm instrument -tags (see pmm help
  run). pmm test adds -count=1 and -vet=off.`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			exact := fs.Bool("exact-outside", false, exactOutsideUsage)
			return func(e *env, args []string) int {
				patterns, flags := splitDashDash(args)
				if len(patterns) == 0 {
					patterns = []string{"./..."}
				}
				p, code := readWritableProject(e, "test")
				if p == nil {
					return code
				}
				// vet cannot enter the runtime's directory, which only the overlay holds;
				// the user's code is vetted by their own go test.
				userTags, given, flags := takeFlag(flags, "tags")
				testTags, err := sameTags(p, userTags, given)
				if err != nil {
					fmt.Fprintf(e.stderr, "pmm test: %v\n", err)
					return exitUsage
				}
				if exactOutside(e, p, "test", *exact) {
					// Through -exec, the setting reaches the test binaries
					// only, not the compiler go test runs.
					userExec, _, rest := takeFlag(flags, "exec")
					flags = append(rest, "-exec", strings.TrimSpace("env "+exactOutsideEnv()+" "+userExec))
				}
				goArgs := append([]string{"test", "-overlay", p.Overlay, "-tags", testTags, "-count=1", "-vet=off"}, flags...)
				cmd := exec.Command("go", append(goArgs, patterns...)...)
				p.Incomplete = append(p.Incomplete, p.Untested...)
				return runAndLoad(e, p, cmd, "test "+strings.Join(args, " "), false)
			}
		},
	}
}

// sameTags returns the build tags of an instrumented build: the tags of
// the instrumentation and pmm, which every instrumented build has (files
// with //go:build pmm may call the runtime). Tags given (given) must be
// those of the instrumentation: with others, the files that only they
// select would run uninstrumented, or the overlay would replace files the
// build does not use.
func sameTags(p *plan.Project, user string, given bool) (string, error) {
	if given && !slices.Equal(tagList(user), p.Tags) {
		return "", fmt.Errorf("build tags %s, but the instrumentation was made with %s: files that one selects and the other does not would run uninstrumented; instrument with the same tags (pmm instrument -tags %q ...)",
			describeTags(tagList(user)), describeTags(p.Tags), strings.Join(tagList(user), ","))
	}
	return strings.Join(append(slices.Clone(p.Tags), "pmm"), ","), nil
}

// tagList returns the tags of a -tags value (comma- or space-separated),
// sorted, once each, without pmm's own.
func tagList(tags string) []string {
	var out []string
	for _, t := range strings.FieldsFunc(tags, func(r rune) bool { return r == ',' || r == ' ' }) {
		if t != "pmm" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

func describeTags(tags []string) string {
	if len(tags) == 0 {
		return "none"
	}
	return strings.Join(tags, ",")
}

// takeFlag removes the flag -NAME from go test flags, returning its
// value and whether it was there.
func takeFlag(flags []string, flag string) (value string, given bool, rest []string) {
	for i := 0; i < len(flags); i++ {
		name, v, hasValue := strings.Cut(strings.TrimPrefix(flags[i], "-"), "=")
		if name != "-"+flag && name != flag {
			rest = append(rest, flags[i])
			continue
		}
		given = true
		if hasValue {
			value = v
		} else if i+1 < len(flags) {
			i++
			value = flags[i]
		}
	}
	return value, given, rest
}

// splitDashDash splits args at "--".
func splitDashDash(args []string) (before, after []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

func goCommand(e *env, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Dir = e.dir
	cmd.Stdout = e.stderr
	cmd.Stderr = e.stderr
	return cmd.Run()
}

// runAndLoad runs cmd with the runtime recording into a run directory of
// its own, then loads what it recorded as a new run. While the program
// runs, pmm passes SIGTERM and SIGHUP on to it, and SIGINT unless the
// terminal sent it to the whole foreground process group (the program
// has it then: twice would stop a program that shuts down gracefully on
// the first); pmm itself waits, and loads what the program recorded.
// A signal while pmm loads stops pmm: the load is one transaction, so
// nothing is half loaded, and the next pmm run loads the logs as this
// run. The exit status is the program's: 128+n when signal n killed it.
// program says cmd is the program itself, whose failure means it ended
// with executions still running (go test fails when a test does, after
// the tests ended).
func runAndLoad(e *env, p *plan.Project, cmd *exec.Cmd, command string, program bool) int {
	recoverRuns(e, p)
	info := runInfo{Command: command, GoVersion: runtime.Version(), Start: time.Now()}
	rd, err := newRunDir(p.Root, info)
	if err != nil {
		fmt.Fprintf(e.stderr, "pmm: %v\n", err)
		return exitFailure
	}
	defer rd.unlock()
	cmd.Dir = e.dir
	cmd.Stdin = os.Stdin
	cmd.Stdout = e.stdout
	cmd.Stderr = e.stderr
	cmd.Env = append(append(os.Environ(), cmd.Env...), "PMM_DIR="+rd.path) // cmd.Env: the caller's additions

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, forwardedSignals...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		rd.remove()
		fmt.Fprintf(e.stderr, "pmm: %v\n", err)
		return exitFailure
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var runErr error
	signaled := false
	for running := true; running; {
		select {
		case sig := <-sigs:
			signaled = true
			if shouldForward(sig) {
				cmd.Process.Signal(sig) //nolint:errcheck // it may have exited already
			}
		case runErr = <-waited:
			running = false
		}
	}
	info.End = time.Now()
	var exitErr *exec.ExitError
	if errors.As(runErr, &exitErr) {
		info.ExitStatus, info.Signal = exitStatus(exitErr)
		signaled = signaled || info.Signal != ""
	}
	// A signal sent to the process group reaches pmm and the program at
	// once, but pmm may see it after it saw the program end: it belongs
	// to that end, not to the load. So the signals of the moment the
	// program ended are dropped, and only a later one stops the load.
	drainSignals(sigs, signaled)
	if exitErr == nil && runErr != nil {
		rd.remove()
		fmt.Fprintf(e.stderr, "pmm: %v\n", runErr)
		return exitFailure
	}
	info.Finished = true
	if info.Signal != "" || info.ExitStatus != 0 && program {
		// An execution is recorded when it ends: a panic ends those on
		// its stack, but not those of other goroutines, nor os.Exit or a
		// signal any.
		info.Incomplete = append(info.Incomplete, fmt.Sprintf("the program ended with exit status %d: executions still running then (in other goroutines than a panic's, or calling os.Exit) are not recorded", info.ExitStatus))
	}
	if err := rd.write(info); err != nil {
		fmt.Fprintf(e.stderr, "pmm: %v\n", err)
	}

	loaded := make(chan error, 1)
	var stats *loadStats
	pg, _ := startProgress(e, strings.Fields(command)[0])
	var inserted atomic.Int64
	pg.StepCounting("loading "+logsSize(rd.logs())+" of logs", func() string { return tuplesText(inserted.Load()) })
	go func() {
		var err error
		stats, err = rd.load(p, info, &inserted)
		loaded <- err
	}()
	select {
	case err = <-loaded:
		pg.Stop()
	case sig := <-sigs:
		pg.Stop()
		fmt.Fprintf(e.stderr, "pmm: %v while loading: nothing of this run is loaded; the next pmm run or pmm test loads it from %s\n", sig, rd.path)
		return signalStatus(sig)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "pmm: loading the recorded tuples: %v (the logs stay in %s for the next run)\n", err, rd.path)
		return exitFailure
	}
	fmt.Fprintf(e.stderr, "pmm: run %d: %d tuples recorded in %s; see pmm answer\n", stats.Run, stats.Tuples, filepath.Join(pmmDir(p.Root), "pmm.db"))
	if info.Signal != "" {
		fmt.Fprintf(e.stderr, "pmm: the program was killed by signal %s (exit status %d)\n", info.Signal, info.ExitStatus)
	} else if info.ExitStatus != 0 {
		fmt.Fprintf(e.stderr, "pmm: exit status %d\n", info.ExitStatus)
	}
	return info.ExitStatus
}

// drainSignals drops the signals pending on sigs; when the program's end
// came with a signal, also those that arrive in the next moment.
func drainSignals(sigs <-chan os.Signal, signaled bool) {
	for pending := true; pending; {
		select {
		case <-sigs:
		default:
			pending = false
		}
	}
	if !signaled {
		return
	}
	grace := time.After(500 * time.Millisecond)
	for {
		select {
		case <-sigs:
		case <-grace:
			return
		}
	}
}

// exitStatus is the status a shell gives a program that ended with err:
// its exit code, or 128+n and the signal's name when signal n killed it.
func exitStatus(err *exec.ExitError) (int, string) {
	if ws, ok := err.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), ws.Signal().String()
	}
	return err.ExitCode(), ""
}

// signalStatus is the shell's status for a process stopped by sig.
func signalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitFailure
}

// loadStats says what a load did.
type loadStats struct {
	Run    int64
	Tuples int64
}

// loadRun loads the logs into pmm.db, then makes sure the answer views and
// the sites table are there.
func loadRun(p *plan.Project, logs string, run load.Run) (*loadStats, error) {
	dbPath := filepath.Join(pmmDir(p.Root), "pmm.db")
	var tables []load.Table
	for _, t := range p.Tables {
		lt := load.Table{ID: t.ID, Name: t.Name, Key: t.Key}
		for _, c := range t.Columns {
			lt.Columns = append(lt.Columns, load.Column{Name: c.Name, Type: c.Type, ID: c.Event})
		}
		for _, x := range t.Indexes {
			lt.Indexes = append(lt.Indexes, load.Index{Name: x.Name, Columns: x.Columns})
		}
		for _, cp := range t.Copies {
			lt.Copies = append(lt.Copies, load.Copy{Name: cp.Name, Columns: cp.Columns, Replaces: cp.Replaces})
		}
		tables = append(tables, lt)
	}
	run.Questions, run.Walks = p.Questions, p.Walks
	outside, err := readOutside(p, logs)
	if err != nil {
		return nil, fmt.Errorf("allocations outside the module: %w", err)
	}
	for _, r := range p.Incomplete {
		reason := incompleteText(r)
		if r.Outside && outside != nil {
			reason += outside.note()
		}
		run.Incomplete = append(run.Incomplete, load.Incomplete{Question: r.Question, Reason: reason, Position: r.Position})
	}
	if outside != nil {
		run.Outside = &outside.rows
	}
	counts, err := load.ReadCounters(logs)
	if err != nil {
		return nil, err
	}
	run.Incomplete = append(run.Incomplete, unended(p, counts)...)
	st, err := load.Load(dbPath, logs, tables, run)
	if errors.Is(err, load.ErrLoaded) {
		// Loaded before, by a pmm that may have stopped before its
		// contexts were stored: store them now (storeContexts does a
		// run once).
		if err := storeContexts(p, dbPath, st.Run); err != nil {
			return nil, fmt.Errorf("calling contexts: %w", err)
		}
		return &loadStats{Run: st.Run}, err
	}
	if err != nil {
		return nil, err
	}
	if err := load.StoreCounters(dbPath, st.Run, counts); err != nil {
		return nil, err
	}
	if err := writeAnswerSchema(p, dbPath); err != nil {
		return nil, err
	}
	if err := storeContexts(p, dbPath, st.Run); err != nil {
		return nil, fmt.Errorf("calling contexts: %w", err)
	}
	stats := &loadStats{Run: st.Run}
	for _, n := range st.Tuples {
		stats.Tuples += n
	}
	return stats, nil
}

// unended returns the reasons why answers may miss executions that began
// and never ended (the process exited first): of each site whose answers
// wait for its executions' end, and that counted some still open.
func unended(p *plan.Project, counts *load.Counts) []load.Incomplete {
	var out []load.Incomplete
	for _, s := range p.Sites {
		n := counts.Unended[s.Site]
		if n <= 0 {
			continue
		}
		reason := fmt.Sprintf("%d executions of %s began and never ended (the process exited first): the answer, which waits for an execution's end to decide what it passed before, may miss them", n, s.Function)
		if s.Kind == string(spec.SiteAllocation) {
			// An allocation has no end: what it waits for is its
			// object's liveness, read when main returns.
			reason = fmt.Sprintf("the liveness of %d objects allocated at this site in %s was not read: pmm reads it when the program's main returns, "+
				"and the process ended otherwise (os.Exit, a panic, a signal; a test binary, whose main is go test's) or was built by a Go without weak pointers (before 1.24)", n, s.Function)
		}
		for _, q := range s.WaitEnd {
			out = append(out, load.Incomplete{Question: q, Position: fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col), Reason: reason})
		}
	}
	return out
}

// openAnswers opens pmm.db. It waits for a run being loaded to commit
// (runs made at the same time in one module load one after the other),
// and reads while one loads: the loader keeps pmm.db in WAL mode.
func openAnswers(dbPath string, readOnly bool) (*sql.DB, error) {
	dsn := "file:" + dbPath + "?_pragma=busy_timeout(600000)"
	if readOnly {
		dsn += "&mode=ro"
	} else {
		// A transaction that read first cannot wait for another writer
		// when it comes to write (SQLITE_BUSY at once): take the write
		// lock at its start.
		dsn += "&_txlock=immediate"
	}
	return sql.Open("sqlite", dsn)
}

// writeAnswerSchema (re)creates the views and fills pmm_sites.
func writeAnswerSchema(p *plan.Project, dbPath string) error {
	db, err := openAnswers(dbPath, false)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	for _, stmt := range p.Statements {
		if name, ok := viewName(stmt); ok {
			if _, err := tx.ExecContext(ctx, "DROP VIEW IF EXISTS "+name); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	// A database made by an older pmm lacks the columns that name the
	// parts of a body: region and blocking sites name theirs there.
	for _, col := range []string{"label", "operand"} {
		var has int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info('"+schema.SitesTable+"') WHERE name = ?", col).Scan(&has); err != nil {
			return err
		}
		if has == 0 {
			if _, err := tx.ExecContext(ctx, "ALTER TABLE "+schema.SitesTable+" ADD COLUMN "+col+" TEXT"); err != nil {
				return err
			}
		}
	}
	for _, s := range p.Sites {
		if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO "+schema.SitesTable+" (site, function, kind, file, line, col, label, operand) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			s.Site, s.Function, s.Kind, s.File, s.Line, s.Col, nullIfEmpty(s.Label), operandOf(s)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+schema.SiteVarsTable+" WHERE site = ?", s.Site); err != nil {
			return err
		}
		for _, qv := range s.Vars {
			q, v, _ := strings.Cut(qv, "/")
			if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO "+schema.SiteVarsTable+" (site, question, var) VALUES (?, ?, ?)", s.Site, q, v); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// operandOf is the operand of a blocking site (a select's is ""), or the
// type of an allocation site; NULL for the other sites.
func operandOf(s plan.ProjectSite) any {
	if s.Kind != string(spec.SiteBlocking) && s.Kind != string(spec.SiteAllocation) {
		return nil
	}
	return s.Operand
}

// nullIfEmpty is s, or SQL's NULL for "".
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// viewName returns the name of the view a CREATE VIEW statement creates.
func viewName(stmt string) (string, bool) {
	f := strings.Fields(stmt)
	if len(f) >= 3 && strings.EqualFold(f[0], "CREATE") && strings.EqualFold(f[1], "VIEW") {
		return f[2], true
	}
	return "", false
}

// isArchive reports whether file is a Go package archive, not a program.
func isArchive(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 8)
	_, err = io.ReadFull(f, magic)
	return err == nil && string(magic) == "!<arch>\n"
}
