package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"pmm.dev/pmm/rt/load"
	"pmm.dev/pmm/schema"
)

func runCommand() *command {
	return &command{
		name:    "run",
		summary: "build an instrumented program, run it, record the answers",
		usage:   "[--tags T] PACKAGE [-- ARGS]",
		detail: `
Run builds PACKAGE with the overlay of the last pmm instrument, runs it
with ARGS (standard input, output and error are the program's), and loads
what it recorded into .pmm/pmm.db, tagged with a new run. The answers are
SQL views named after the questions: see pmm answer.

The program can stop and start recording itself (Monitor-Begin/End):
builds with pmm have the build tag pmm, so a file with //go:build pmm can
import the runtime, MODULE/internal/_pmmrt, and call its Begin and End,
beside a //go:build !pmm file with no-ops (see docs/RUNTIME.md).
PMM_RECORD=off in the environment starts the program with recording off.

The exit status is the program's when it fails (1 when a signal killed it).

Example:

	pmm run . -- -input data.txt
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			tags := fs.String("tags", "", "comma-separated build `tags`")
			return func(e *env, args []string) int {
				pkgs, progArgs := splitDashDash(args)
				if len(pkgs) != 1 {
					fmt.Fprintln(e.stderr, "pmm run: give one package to run\nUsage: pmm run [--tags T] PACKAGE [-- ARGS]")
					return exitUsage
				}
				p, code := readProject(e, "run")
				if p == nil {
					return code
				}
				bin := filepath.Join(pmmDir(p.Root), "bin", "prog")
				if runtime.GOOS == "windows" {
					bin += ".exe"
				}
				build := []string{"build", "-overlay", p.Overlay, "-tags", buildTags(*tags), "-o", bin}
				if err := goCommand(e, append(build, pkgs[0])...); err != nil {
					fmt.Fprintf(e.stderr, "pmm run: building %s: %v\n", pkgs[0], err)
					return exitFailure
				}
				cmd := exec.Command(bin, progArgs...)
				return runAndLoad(e, p, cmd, "run "+strings.Join(args, " "), true)
			}
		},
	}
}

func testCommand() *command {
	return &command{
		name:    "test",
		summary: "run a module's tests instrumented, record the answers",
		usage:   "[PATTERNS] [-- GOTESTFLAGS]",
		detail: `
Test runs go test on PATTERNS (default ./...) with the overlay of the last
pmm instrument and -count=1 (a cached result records nothing), passing
GOTESTFLAGS to go test, and loads what the test binaries recorded into
.pmm/pmm.db, tagged with a new run. Instrument with --tests to have sites
in test files.

Example:

	pmm instrument --tests ./... questions.pmm
	pmm test ./... -- -run TestCache -race
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			return func(e *env, args []string) int {
				patterns, flags := splitDashDash(args)
				if len(patterns) == 0 {
					patterns = []string{"./..."}
				}
				p, code := readProject(e, "test")
				if p == nil {
					return code
				}
				// vet cannot enter the runtime's directory, which only the overlay holds;
				// the user's code is vetted by their own go test.
				goArgs := append([]string{"test", "-overlay", p.Overlay, "-tags", buildTags(""), "-count=1", "-vet=off"}, flags...)
				cmd := exec.Command("go", append(goArgs, patterns...)...)
				p.Incomplete = append(p.Incomplete, p.Untested...)
				return runAndLoad(e, p, cmd, "test "+strings.Join(args, " "), false)
			}
		},
	}
}

// buildTags adds the tag pmm, which every instrumented build has, to the
// user's tags: files with //go:build pmm may call the runtime.
func buildTags(user string) string {
	if user == "" {
		return "pmm"
	}
	return user + ",pmm"
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

// runAndLoad runs cmd with the runtime pointed at .pmm, then loads what it
// recorded as a new run. program says cmd is the program itself, whose
// failure means it ended with executions still running (go test fails
// when a test does, after the tests ended).
func runAndLoad(e *env, p *project, cmd *exec.Cmd, command string, program bool) int {
	dir := pmmDir(p.Root)
	logs := filepath.Join(dir, "logs")
	cmd.Dir = e.dir
	cmd.Stdin = os.Stdin
	cmd.Stdout = e.stdout
	cmd.Stderr = e.stderr
	cmd.Env = append(os.Environ(), "PMM_DIR="+dir)
	start := time.Now()
	runErr := cmd.Run()
	status := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(runErr, &exitErr):
		status = exitErr.ExitCode()
	case runErr != nil:
		fmt.Fprintf(e.stderr, "pmm: %v\n", runErr)
		return exitFailure
	}
	run := load.Run{Command: command, GoVersion: runtime.Version(), Start: start, End: time.Now(), ExitStatus: status}
	if status < 0 || status != 0 && program {
		// An execution is recorded when it ends: a panic ends those on
		// its stack, but not those of other goroutines, nor os.Exit or a
		// signal any.
		for _, q := range p.Questions {
			run.Incomplete = append(run.Incomplete, load.Incomplete{Question: q,
				Reason: fmt.Sprintf("the program ended with exit status %d: executions still running then (in other goroutines than a panic's, or calling os.Exit) are not recorded", status)})
		}
	}
	stats, err := loadRun(p, logs, run)
	if err != nil {
		fmt.Fprintf(e.stderr, "pmm: loading the recorded tuples: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(e.stderr, "pmm: run %d: %d tuples recorded in %s; see pmm answer\n", stats.Run, stats.Tuples, filepath.Join(dir, "pmm.db"))
	if status != 0 {
		fmt.Fprintf(e.stderr, "pmm: exit status %d\n", status)
		if status < 0 { // killed by a signal
			return exitFailure
		}
		return status
	}
	return exitOK
}

// loadStats says what a load did.
type loadStats struct {
	Run    int64
	Tuples int64
}

// loadRun loads the logs into pmm.db, then makes sure the answer views and
// the sites table are there.
func loadRun(p *project, logs string, run load.Run) (*loadStats, error) {
	dbPath := filepath.Join(pmmDir(p.Root), "pmm.db")
	var tables []load.Table
	for _, t := range p.Tables {
		lt := load.Table{ID: t.ID, Name: t.Name}
		for _, c := range t.Columns {
			lt.Columns = append(lt.Columns, load.Column{Name: c.Name, Type: c.Type, ID: c.Event})
		}
		tables = append(tables, lt)
	}
	run.Questions = p.Questions
	for _, r := range p.Incomplete {
		run.Incomplete = append(run.Incomplete, load.Incomplete{Question: r.Question, Reason: incompleteText(r), Position: r.Position})
	}
	counts, err := load.ReadCounters(logs)
	if err != nil {
		return nil, err
	}
	st, err := load.Load(dbPath, logs, tables, run)
	if err != nil {
		return nil, err
	}
	if err := load.StoreCounters(dbPath, st.Run, counts); err != nil {
		return nil, err
	}
	if err := writeAnswerSchema(p, dbPath); err != nil {
		return nil, err
	}
	stats := &loadStats{Run: st.Run}
	for _, n := range st.Tuples {
		stats.Tuples += n
	}
	return stats, nil
}

// writeAnswerSchema (re)creates the views and fills pmm_sites.
func writeAnswerSchema(p *project, dbPath string) error {
	db, err := sql.Open("sqlite", dbPath)
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
	for _, s := range p.Sites {
		if _, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO "+schema.SitesTable+" (site, function, kind, file, line, col) VALUES (?, ?, ?, ?, ?, ?)",
			s.Site, s.Function, s.Kind, s.File, s.Line, s.Col); err != nil {
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

// viewName returns the name of the view a CREATE VIEW statement creates.
func viewName(stmt string) (string, bool) {
	f := strings.Fields(stmt)
	if len(f) >= 3 && strings.EqualFold(f[0], "CREATE") && strings.EqualFold(f[1], "VIEW") {
		return f[2], true
	}
	return "", false
}
