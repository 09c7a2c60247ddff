package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// analysisFlags are the flags of the commands that build the static
// database: which packages, with which build settings and call graph.
type analysisFlags struct {
	tests     *bool
	tags      *string
	algorithm *string
	dbPath    *string
	escape    *bool
}

func defineAnalysisFlags(fs *flag.FlagSet) *analysisFlags {
	return &analysisFlags{
		tests:     fs.Bool("tests", false, "include test files and test packages"),
		tags:      fs.String("tags", "", "comma-separated build `tags`"),
		algorithm: fs.String("callgraph", static.VTA, "call-graph `algorithm`: vta, cha or static"),
		dbPath:    fs.String("db", "", "static database `file` (default .pmm/static.db at the module root)"),
		escape:    fs.Bool("escape", false, "run the compiler's escape analysis (a go build) to fill the heap columns of the allocations table"),
	}
}

// escapeFor turns on the escape analysis when a question of prog has an
// allocation event: allocations are recorded where it puts them on the
// heap (docs/MEMORY.md).
func (a *analysisFlags) escapeFor(prog *spec.Program) {
	for _, q := range prog.Questions {
		if slices.Contains(q.Primitives(), spec.TypeAllocation) {
			escape := true
			a.escape = &escape
			return
		}
	}
}

// build builds or reuses the static database of patterns. On failure it
// reports the error as cmd and returns the exit code.
func (a *analysisFlags) build(ctx context.Context, e *env, cmd string, patterns []string) (*static.Result, int) {
	switch *a.algorithm {
	case static.VTA, static.CHA, static.Static:
	default:
		fmt.Fprintf(e.stderr, "pmm %s: unknown -callgraph %q (want vta, cha or static)\n", cmd, *a.algorithm)
		return nil, exitUsage
	}
	if root, code := moduleRoot(e, cmd); root == "" {
		return nil, code
	}
	cfg := static.Config{
		Dir: e.dir, Patterns: patterns, Tests: *a.tests, CallGraph: *a.algorithm,
		Output: *a.dbPath, Version: version, Escape: *a.escape,
	}
	if *a.tags != "" {
		cfg.Tags = strings.Split(*a.tags, ",")
	}
	if cfg.Output != "" && !filepath.IsAbs(cfg.Output) {
		cfg.Output = filepath.Join(e.dir, cfg.Output)
	}
	res, err := static.Build(ctx, cfg)
	if err != nil {
		fmt.Fprintf(e.stderr, "pmm %s: %v\n", cmd, err)
		var pe *static.PackageErrors
		if errors.As(err, &pe) {
			return nil, exitUsage
		}
		return nil, exitFailure
	}
	return res, exitOK
}

// open builds or reuses the static database of patterns and opens it
// read-only; the caller closes it. On failure it reports the error as cmd
// and returns the exit code.
func (a *analysisFlags) open(ctx context.Context, e *env, cmd string, patterns []string) (*static.Result, *sql.DB, int) {
	res, code := a.build(ctx, e, cmd, patterns)
	if res == nil {
		return nil, nil, code
	}
	db, err := openStatic(res.Path)
	if err != nil {
		fmt.Fprintf(e.stderr, "pmm %s: %v\n", cmd, err)
		return nil, nil, exitFailure
	}
	return res, db, exitOK
}

// openStatic opens a static database read-only. In EXCLUSIVE locking
// mode a connection takes its shared lock at its first read and keeps
// it, where it took and released it (fcntl calls, and a read of the
// header to learn whether its cache still holds) around every query:
// selection asks thousands (about 0.03 s of CPU on expr,
// docs/PERFORMANCE.md). A static database is never written in place
// (static.Write renames a new one over it), so no writer waits on that
// lock.
func openStatic(path string) (*sql.DB, error) {
	return sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=locking_mode(EXCLUSIVE)")
}

// splitQuestions separates the .pmm files of args from the package
// patterns.
func splitQuestions(args []string) (patterns, files []string) {
	for _, a := range args {
		if strings.HasSuffix(a, ".pmm") {
			files = append(files, a)
		} else {
			patterns = append(patterns, a)
		}
	}
	return patterns, files
}

// compileQuestions reads and compiles question files, reporting errors as
// cmd; ok is false when the command must stop with code.
func compileQuestions(e *env, cmd string, files []string) (prog *spec.Program, code int) {
	if len(files) == 0 {
		fmt.Fprintf(e.stderr, "pmm %s: no question files (FILE.pmm) given\n", cmd)
		return nil, exitUsage
	}
	srcs, err := spec.ReadFiles(resolve(e, files)...)
	if err != nil {
		fmt.Fprintf(e.stderr, "pmm %s: %v\n", cmd, err)
		return nil, exitUsage
	}
	prog, err = spec.Compile(srcs...)
	if err != nil {
		reportSpecErrors(e, err)
		return nil, exitUsage
	}
	return prog, exitOK
}
