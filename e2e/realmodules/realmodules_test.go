package realmodules

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"pmm.dev/pmm/internal/sourcedeps"
)

// A module to check: a real open-source module, pinned.
type module struct {
	Path, Version string
	// TestFlags are passed to every go test of the module, instrumented
	// or not (the same -run for both, so that the counts compare).
	TestFlags []string
	// Why is why TestFlags leave tests out.
	Why string
	// Packages are the patterns of the packages whose tests run; all of
	// the module's packages are instrumented and covered. Default ./...
	Packages []string
	// Files are written into the copy of the module before anything
	// runs, instrumented or not (path from the module root: contents):
	// test files that turn off a coin the module tosses once per
	// process, by the module's own switch, where no seed fixes it.
	// Deterministic says why.
	Files map[string]string
	// Deterministic is why Files are added.
	Deterministic string
}

func (m module) packages() []string {
	if len(m.Packages) == 0 {
		return []string{"./..."}
	}
	return m.Packages
}

// modules are the modules of the full check (PMM_REAL_MODULES=1).
// Between them: generics, closures, methods on value and pointer
// receivers, embedded interfaces, reflection, goroutines and channels,
// panics and recover, defer, init functions, variadic calls, middleware
// over net/http, a module at go 1.2 (docs/EVALUATION-MODULES.md).
var modules = []module{
	{
		Path: "github.com/google/go-cmp", Version: "v0.7.0",
		Packages:  []string{"./cmp", "./cmp/cmpopts", "./cmp/internal/diff", "./cmp/internal/function", "./cmp/internal/value"},
		TestFlags: []string{"-skip", "^TestDiff$/.*/NonDeterministic"},
		Why:       "the NonDeterministic* cases of TestDiff use options that answer rand.Intn(2) == 0 until cmp notices",
		Files: map[string]string{
			"cmp/internal/diff/zz_deterministic_test.go":  goCmpDeterministic("diff"),
			"cmp/internal/value/zz_deterministic_test.go": goCmpDeterministic("value_test"),
		},
		Deterministic: "internal/diff's Difference starts its search forward or backward by randBool, a coin tossed once per process " +
			"and seeded by the time, unless flags.Deterministic is set; the number of calls of (*path).append and (*point).add follows it " +
			"(./cmp/internal/value's TestSortKeys: 73 or 146). The test binaries of ./cmp and ./cmp/cmpopts set the flag in an init; " +
			"those of ./cmp/internal/diff and ./cmp/internal/value do not, and the check adds that init to them",
	},
	{
		Path: "github.com/BurntSushi/toml", Version: "v1.4.0",
		TestFlags: []string{"-skip", "^(TestUnmarshalTypeError|TestMarhsalError)$"},
		Why: "unifyStruct ranges over the decoded table, a Go map, and returns at the first key whose value fails: " +
			"the two tests decode four keys of which one fails, so how many of the others are decoded first (UnmarshalText, unify, " +
			"unifyString, indirect, isUnifiable, Key.add) follows the map's iteration order, random per run " +
			"(a small map's iteration starts at a random slot: the failing key comes first about one run in eight; " +
			"(*MetaData).unifyText ran 24 or 23 times per run of the package, TestUnmarshalTypeError alone 2 or 1)",
	},
	xsync,
	{Path: "github.com/google/btree", Version: "v1.1.3"},
	{
		Path: "github.com/hashicorp/golang-lru/v2", Version: "v2.0.7",
		TestFlags: []string{"-skip", "^(Test2Q_RandomOps|TestLRUWithPurge|TestLoadingExpired|ExampleLRU)$"},
		Why: "Test2Q_RandomOps draws 400,000 numbers from crypto/rand, which no seed fixes; the others make expirable caches " +
			"whose reaper goroutine (one per cache, never stopped) wakes on a ticker and removes what has expired by the wall clock: " +
			"how often it runs, and what it removes before the test or the process ends, depend on timing " +
			"(TestLoadingExpired also calls Get in a loop until the entry expires), which instrumentation changes",
	},
	{Path: "github.com/sourcegraph/conc", Version: "v0.3.0"},
	{
		Path: "github.com/go-chi/chi/v5", Version: "v5.5.0",
		TestFlags: []string{"-skip", "^(TestRecoverer|TestRecovererNoColor|TestCompressor|TestCompressorDefaultTextTypes|TestCompressorWildcards)$"},
		Why: "NOT a legitimate exclusion, a limitation of pmm left to fix: the Recoverer middleware prints debug.Stack() and parses it line by line, " +
			"and pmm's wrapper of a call site of a function outside the module (next.ServeHTTP, net/http's HandlerFunc.ServeHTTP) is two more frames " +
			"(pmm__callN and pmm__recordN) in that trace per middleware layer: TestRecoverer and TestRecovererNoColor decorate 74 lines where the " +
			"uninstrumented tests decorate 46 (decorateLine, decorateFuncCallLine, decorateSourceLine, cW). The Compressor tests are legitimate: " +
			"the encoders are pooled in a sync.Pool, whose New runs when a garbage collection has emptied the pool, and instrumentation moves " +
			"the collections (encoderGzip 13 calls against 12)",
	},
	{
		Path: "github.com/emirpasic/gods", Version: "v1.18.1",
		TestFlags: []string{"-skip", "^(TestAVLTreeSerialization|TestBTreeSerialization|TestRedBlackTreeSerialization|TestMapSerialization)$"},
		Why: "FromJSON of the trees and maps unmarshals into a Go map and puts its entries in map iteration order, random per run: " +
			"the shape of the tree, and so the calls of put, putFix, rotate and the rest, follow that order " +
			"(avltree's put ran 311 or 312 times in six coverage runs of ./trees/avltree alone)",
	},
	{Path: "github.com/rivo/uniseg", Version: "v0.4.7"},
	{Path: "github.com/dustin/go-humanize", Version: "v1.0.1"},
}

// goCmpDeterministic is a test file of go-cmp's package pkg that sets
// flags.Deterministic, as the test binaries of ./cmp and ./cmp/cmpopts
// do: Difference then always starts its search forward.
func goCmpDeterministic(pkg string) string {
	return "package " + pkg + `

// Added by pmm's e2e/realmodules: one search direction in every run.

import "github.com/google/go-cmp/cmp/internal/flags"

func init() { flags.Deterministic = true }
`
}

// xsync is golang.org/x/sync: goroutines, channels, panics, Goexit.
var xsync = module{
	Path: "golang.org/x/sync", Version: "v0.10.0",
	TestFlags: []string{"-skip", "^(TestPanicDoChan|TestPanicDoSharedByDoChan|TestPanicDo|TestDoDupSuppress|TestGoexitDo|TestAllocCancelDoesntStarve|TestWeightedAcquireCanceled)$"},
	Why: "TestPanicDoChan and TestPanicDoSharedByDoChan re-run the test binary in a child process that crashes on purpose " +
		"(an unrecovered panic in another goroutine): coverage counts nothing of a crashed process, " +
		"pmm counts what ended in it before the crash; the others count calls that depend on goroutine timing " +
		"(how many of n concurrent Do calls join the one in flight, in TestDoDupSuppress and TestGoexitDo; for sem.TryAcquire(1) { runtime.Gosched() } loops), " +
		"which instrumentation changes",
}

// smoke is the fast check that runs by default: x/sync without -race
// and without the long randomized tests of syncmap, leaving out, as the
// full check does, the tests whose counts depend on goroutine timing: run
// by default, the check must give the same answer every time.
var smoke = module{
	Path: xsync.Path, Version: xsync.Version, TestFlags: xsync.TestFlags, Why: xsync.Why,
	Packages: []string{"./errgroup", "./semaphore", "./singleflight"},
}

// questions instruments every function of the module: the executions of
// every function, counted per function.
const questions = `; Every function of the module, counted per function.
(defevent exec :definition ((x n) s.t. (function-execution x n)))
(defquestion calls-per-function :definition (count exec (output input)))
`

// pmmBin is the pmm command, built once by TestMain.
var pmmBin string

var (
	sourcesOnce sync.Once
	sourcesErr  error
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("realmodules: skipped under -short (fetches real modules, instruments them and runs their tests)")
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "pmm-realmodules-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pmmBin = filepath.Join(dir, "pmm")
	if runtime.GOOS == "windows" {
		pmmBin += ".exe"
	}
	build := exec.Command("go", "build", "-o", pmmBin, "pmm.dev/pmm/cmd/pmm")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if other := os.Getenv("PMM_BENCH_PMM"); other != "" {
		// Another pmm (one built from an earlier commit), for a
		// benchmark's figures before a change.
		pmmBin = other
	} else if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building pmm:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestSmoke checks one small module without -race; it runs by default.
func TestSmoke(t *testing.T) {
	if os.Getenv("PMM_REAL_MODULES") != "" {
		t.Skip("PMM_REAL_MODULES is set: TestModules checks this module")
	}
	check(t, smoke, false)
}

// TestModules checks every module, with and without -race. It takes
// several minutes: run it with PMM_REAL_MODULES=1.
func TestModules(t *testing.T) {
	if os.Getenv("PMM_REAL_MODULES") == "" {
		t.Skip("slow: set PMM_REAL_MODULES=1 to check pmm on real modules (go test ./e2e/realmodules -run . -v -timeout 60m)")
	}
	for _, m := range modules {
		t.Run(m.Path, func(t *testing.T) { check(t, m, true) })
	}
}

// check fetches m, counts the first blocks of its functions with Go's
// coverage twice, instruments it for questions, runs its tests
// instrumented (and with -race when race is set), and compares.
func check(t *testing.T, m module, race bool) {
	dir := fetch(t, m)
	timing := func(what string, start time.Time) {
		t.Logf("%s@%s: %s: %.1fs", m.Path, m.Version, what, time.Since(start).Seconds())
	}

	if m.Why != "" {
		t.Logf("%s@%s: go test %s %s: %s", m.Path, m.Version, strings.Join(m.TestFlags, " "), strings.Join(m.packages(), " "), m.Why)
	}
	if len(m.Files) > 0 {
		t.Logf("%s@%s: added to its tests: %s: %s", m.Path, m.Version, strings.Join(sortedKeys(m.Files), ", "), m.Deterministic)
	}

	start := time.Now()
	if err := os.WriteFile(filepath.Join(dir, "q.pmm"), []byte(questions), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := pmm(dir, "instrument", "--tests", "./...", "q.pmm")
	if err != nil {
		t.Fatalf("pmm instrument: %v\n%s%s", err, out, errOut)
	}
	timing("pmm instrument", start)
	checkSkips(t, errOut)

	funcs := functions(t, dir, modulePath(t, dir))
	t.Logf("%s@%s: %d functions outside test files", m.Path, m.Version, len(funcs))

	runs := []bool{false}
	if race {
		runs = append(runs, true)
	}
	for _, r := range runs {
		args := append(append(append([]string{"test"}, m.packages()...), "--"), m.TestFlags...)
		what := "pmm test"
		if r {
			args = append(args, "-race")
			what += " -race"
		}
		// One run per database: the answer view then reads only its tuples.
		if err := os.Remove(filepath.Join(dir, ".pmm", "pmm.db")); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		start = time.Now()
		out, errOut, err := pmm(dir, args...)
		if err != nil {
			t.Errorf("%s: %v (the module's tests fail instrumented)\n%s%s", what, err, tail(out, 60), tail(errOut, 60))
			continue
		}
		timing(what, start)
		if i := strings.LastIndex(errOut, "pmm: run "); i >= 0 {
			t.Logf("%s@%s: %s", m.Path, m.Version, strings.TrimSpace(strings.SplitN(errOut[i:], "\n", 2)[0]))
		}
		start = time.Now()
		got := answer(t, dir)
		timing("SELECT * FROM calls_per_function", start)
		cov := covered(t, m, dir, r)
		recheck := func() map[blockPos]int64 { return coverage(t, dir, coverFlags(m, r), m.packages()) }
		compare(t, m, what, funcs, cov, got, recheck)
	}
}

// covered is the independent count: the tests run twice uninstrumented
// with atomic coverage, with -race when race is set (scheduling differs
// under the race detector, and with it the counts of tests that loop
// until another goroutine gets to run). Functions whose counts differ
// between the two runs are nondeterministic and left out of the
// comparison. The module's tests must pass uninstrumented for the
// comparison to mean anything: coverage fails the check when they do not.
func covered(t *testing.T, m module, dir string, race bool) [2]map[blockPos]int64 {
	t.Helper()
	what := "go test -covermode=atomic"
	if race {
		what += " -race"
	}
	var cov [2]map[blockPos]int64
	for i := range cov {
		start := time.Now()
		cov[i] = coverage(t, dir, coverFlags(m, race), m.packages())
		t.Logf("%s@%s: %s (run %d): %.1fs", m.Path, m.Version, what, i+1, time.Since(start).Seconds())
	}
	return cov
}

// coverFlags are the go test flags of m's coverage runs.
func coverFlags(m module, race bool) []string {
	flags := append([]string(nil), m.TestFlags...)
	if race {
		flags = append(flags, "-race")
	}
	return flags
}

// fetch downloads m through the module proxy and copies it into a
// writable temporary directory, without vendor directories.
func fetch(t testing.TB, m module) string {
	t.Helper()
	// Every test and benchmark fetches a module first: a cached result
	// must be of pmm's sources as they are (internal/sourcedeps; go test
	// records the files a test reads from m.Run on, not TestMain's build).
	sourcesOnce.Do(func() { sourcesErr = sourcedeps.Read("../..") })
	if sourcesErr != nil {
		t.Fatal(sourcesErr)
	}
	cmd := exec.Command("go", "mod", "download", "-json", m.Path+"@"+m.Version)
	cmd.Env = goEnv()
	data, err := cmd.Output()
	var info struct{ Dir, Error string }
	_ = json.Unmarshal(data, &info)
	if err != nil || info.Dir == "" {
		t.Skipf("cannot fetch %s@%s through the module proxy (unreachable?): %v %s", m.Path, m.Version, err, info.Error)
	}
	dir := filepath.Join(t.TempDir(), "m")
	err = filepath.WalkDir(info.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(info.Dir, path)
		if d.IsDir() && d.Name() == "vendor" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range m.Files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dl := exec.Command("go", "mod", "download")
	dl.Dir, dl.Env = dir, goEnv()
	if out, err := dl.CombinedOutput(); err != nil {
		t.Skipf("cannot download the dependencies of %s through the module proxy: %v\n%s", m.Path, err, out)
	}
	return dir
}

// goEnv is the environment of the go commands: the module's own go.mod
// and go.sum, whatever the caller's GOFLAGS and workspace; and the
// global source of math/rand seeded with 1, as before Go 1.20, so that
// tests drawing from it (rand.Perm in github.com/google/btree) draw the
// same numbers in every run.
func goEnv() []string {
	return append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off", "GODEBUG=randautoseed=0")
}

func modulePath(t *testing.T, dir string) string {
	cmd := exec.Command("go", "list", "-m")
	cmd.Dir, cmd.Env = dir, goEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// blockPos is the start of a coverage block: file (as the coverage
// profile names it: import path of the package / file name), line, col.
type blockPos struct {
	File      string
	Line, Col int
}

// coverage runs the tests with atomic coverage of every package of the
// module and returns the counts of the blocks, summed over the test
// binaries (go test concatenates their profiles).
func coverage(t *testing.T, dir string, flags, pkgs []string) map[blockPos]int64 {
	t.Helper()
	prof := filepath.Join(t.TempDir(), "cover.out")
	args := append([]string{"test", "-count=1", "-covermode=atomic", "-coverpkg=./...", "-coverprofile=" + prof}, flags...)
	cmd := exec.Command("go", append(args, pkgs...)...)
	cmd.Dir, cmd.Env = dir, goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the module's tests fail uninstrumented: go test -cover: %v\n%s", err, tail(string(out), 40))
	}
	f, err := os.Open(prof)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[blockPos]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "mode:") {
			continue
		}
		// name.go:line.col,line.col numstmt count
		colon := strings.LastIndex(line, ":")
		fields := strings.Fields(line[colon+1:])
		if colon < 0 || len(fields) != 3 {
			t.Fatalf("bad coverage line %q", line)
		}
		startPos, _, _ := strings.Cut(fields[0], ",")
		l, c, _ := strings.Cut(startPos, ".")
		ln, err1 := strconv.Atoi(l)
		cn, err2 := strconv.Atoi(c)
		n, err3 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatalf("bad coverage line %q", line)
		}
		counts[blockPos{line[:colon], ln, cn}] += n
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return counts
}

// function is a function of the module outside test files, as
// static.db names it, with the start of its body's first coverage block.
type function struct {
	Name  string
	Body  blockPos
	Label bool // its body begins with a labeled statement
}

// functions returns the functions of the module outside test files:
// their names come from .pmm/static.db (the names pmm records), the
// opening brace of their bodies from parsing their files here.
func functions(t *testing.T, dir, modPath string) []function {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "static.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT DISTINCT name, file, line, col FROM functions
		WHERE in_module = 1 AND defined = 1 AND coalesce(file, '') <> '' AND file NOT LIKE '%_test.go'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type start struct {
		file      string
		line, col int
	}
	byStart := map[start][]string{}
	files := map[string]bool{}
	for rows.Next() {
		var s start
		var name string
		if err := rows.Scan(&name, &s.file, &s.line, &s.col); err != nil {
			t.Fatal(err)
		}
		byStart[s] = append(byStart[s], name)
		files[s.file] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var out []function
	fset := token.NewFileSet()
	for file := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, file), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		profName := pathJoin(modPath, filepath.ToSlash(file))
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			switch n := n.(type) {
			case *ast.FuncDecl:
				body = n.Body
			case *ast.FuncLit:
				body = n.Body
			default:
				return true
			}
			if body == nil {
				return true
			}
			p := fset.Position(n.Pos())
			names := byStart[start{file, p.Line, p.Column}]
			if len(names) == 0 {
				return true
			}
			lb := fset.Position(body.Lbrace)
			label := false
			if len(body.List) > 0 {
				_, label = body.List[0].(*ast.LabeledStmt)
			}
			for _, name := range names {
				out = append(out, function{Name: name, Body: blockPos{profName, lb.Line, lb.Column}, Label: label})
			}
			delete(byStart, start{file, p.Line, p.Column})
			return true
		})
	}
	for s, names := range byStart {
		t.Errorf("static.db has %v at %s:%d:%d, where there is no function", names, s.file, s.line, s.col)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func pathJoin(mod, file string) string {
	dir, base := filepath.ToSlash(filepath.Dir(file)), filepath.Base(file)
	if dir == "." {
		return mod + "/" + base
	}
	return mod + "/" + dir + "/" + base
}

// answer returns the counts of the last run, from the answer view.
func answer(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT n, count FROM calls_per_function WHERE run = (SELECT max(id) FROM runs)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		got[name] += n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// compare checks pmm's count of every function against the coverage
// count of the first block of its body, where that count is stable
// (judge).
func compare(t *testing.T, m module, what string, funcs []function, cov [2]map[blockPos]int64, got map[string]int64, recheck func() map[blockPos]int64) {
	t.Helper()
	v := judge(funcs, cov, got, recheck)
	if v.rechecks > 0 {
		t.Logf("%s@%s: %s: %d functions counted differently by pmm: %d more coverage runs made before reporting them", m.Path, m.Version, what, len(v.rechecked)+len(v.mismatches), v.rechecks)
	}
	t.Logf("%s@%s: %s: %d functions compared (%d executed), %d match exactly; left out: %d with counts that differ between coverage runs (%d of them found by the runs after a mismatch), %d not in the coverage profile, %d whose body begins with a label",
		m.Path, m.Version, what, v.compared, v.executed, v.matched, v.unstable, len(v.rechecked), v.uncovered, v.labeled)
	for _, s := range v.rechecked {
		t.Logf("%s@%s: %s: left out, nondeterministic (the first two coverage runs agreed by chance): %s", m.Path, m.Version, what, s)
	}
	for _, s := range v.mismatches {
		t.Errorf("%s: %s", what, s)
	}
	if v.compared == 0 || v.executed == 0 {
		t.Errorf("%s: nothing compared", what)
	}
}

// recheckRuns is how many more coverage runs a mismatch calls for.
const recheckRuns = 4

// A verdict is what judge makes of pmm's counts.
type verdict struct {
	compared, executed, matched  int
	unstable, uncovered, labeled int
	rechecks                     int      // coverage runs made after a mismatch
	rechecked                    []string // left out by those runs
	mismatches                   []string // the check fails with these
}

// judge compares pmm's counts got with the coverage runs cov, where
// the function's count is the same in both.
//
// Two coverage runs that agree do not make a count deterministic: a coin
// tossed once per process (go-cmp's search direction before its check
// was made deterministic) lands the same way in both half the time, and
// pmm's run, another process, may toss the other side. So a mismatch is
// not reported as such before recheck, which makes one more coverage
// run, has been called recheckRuns times (once for all mismatches): a
// function whose count differs in one of these runs is nondeterministic
// and left out as the others are, in rechecked with its counts (a coin
// to find and turn off, see module.Files). The mismatches whose
// coverage count was the same in all the runs fail the check.
func judge(funcs []function, cov [2]map[blockPos]int64, got map[string]int64, recheck func() map[blockPos]int64) verdict {
	var v verdict
	var differ []function
	for _, f := range funcs {
		c0, ok0 := cov[0][f.Body]
		c1, ok1 := cov[1][f.Body]
		switch {
		case !ok0 || !ok1:
			// Not in the profile: a file the build excludes here.
			v.uncovered++
			continue
		case f.Label:
			// A backward goto to the body's first statement re-runs
			// the first block without a new call.
			v.labeled++
			continue
		case c0 != c1:
			v.unstable++
			continue
		}
		v.compared++
		if c0 > 0 {
			v.executed++
		}
		if got[f.Name] == c0 {
			v.matched++
			continue
		}
		differ = append(differ, f)
	}
	var more []map[blockPos]int64
	if len(differ) > 0 {
		for range recheckRuns {
			more = append(more, recheck())
		}
		v.rechecks = len(more)
	}
	for _, f := range differ {
		counts := []int64{cov[0][f.Body], cov[1][f.Body]}
		stable := true
		for _, c := range more {
			counts = append(counts, c[f.Body])
			stable = stable && c[f.Body] == counts[0]
		}
		if !stable {
			v.compared--
			if counts[0] > 0 {
				v.executed--
			}
			v.unstable++
			v.rechecked = append(v.rechecked, fmt.Sprintf("%s: pmm counts %d executions, %d coverage runs %v (%s:%d:%d)", f.Name, got[f.Name], len(counts), counts, f.Body.File, f.Body.Line, f.Body.Col))
			continue
		}
		v.mismatches = append(v.mismatches, fmt.Sprintf("%s: pmm counts %d executions, coverage %d in %d runs (%s:%d:%d)", f.Name, got[f.Name], counts[0], len(counts), f.Body.File, f.Body.Line, f.Body.Col))
	}
	sort.Strings(v.rechecked)
	sort.Strings(v.mismatches)
	return v
}

// checkSkips reports the sites pmm instrument did not instrument. Call
// sites of functions outside the module are not what the check is about
// (their counts are not compared) and are only logged; a definition site
// of the module's own functions must never be skipped.
func checkSkips(t *testing.T, errOut string) {
	t.Helper()
	var calls int
	for _, line := range strings.Split(errOut, "\n") {
		if !strings.Contains(line, "not instrumented") {
			continue
		}
		if strings.Contains(line, ": call of ") {
			calls++
			t.Logf("legitimate skip (call site of a function outside the module): %s", line)
			continue
		}
		t.Errorf("%s", line)
	}
	t.Logf("%d call sites of functions outside the module not instrumented", calls)
}

func pmm(dir string, args ...string) (string, string, error) {
	cmd := exec.Command(pmmBin, args...)
	cmd.Dir, cmd.Env = dir, goEnv()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{"..."}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n") + "\n"
}
