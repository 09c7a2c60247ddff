package static

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// build builds the database of a testdata module into a temporary file.
func build(t *testing.T, dir string, cfg Config) (*Result, *sql.DB) {
	t.Helper()
	cfg.Dir = dir
	if cfg.Output == "" {
		cfg.Output = filepath.Join(t.TempDir(), "static.db")
	}
	res, err := Build(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Build(%s): %v", dir, err)
	}
	db, err := sql.Open("sqlite", res.Path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return res, db
}

// rows runs query and returns each row as its columns joined by " ".
func rows(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rs, err := db.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, v := range vals {
			parts = append(parts, fmt.Sprint(v))
		}
		out = append(out, strings.Join(parts, " "))
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestFigure41(t *testing.T) {
	_, db := build(t, "../testdata/fig41", Config{})
	got := rows(t, db, `
		SELECT d.name, c.callee FROM calls_static s
		JOIN functions d ON d.id = s.def_id JOIN calls c ON c.id = s.call_id
		WHERE d.name IN ('main.BOTH', 'main.IR')`)
	want := []string{"main.BOTH main.BAR", "main.BOTH main.FOO", "main.IR main.BAR"}
	if !slices.Equal(got, want) {
		t.Errorf("calls_static = %q, want %q", got, want)
	}
	defs := rows(t, db, `SELECT name FROM functions WHERE in_module AND defined`)
	if want := []string{"main.BAR", "main.BOTH", "main.FOO", "main.IR", "main.main"}; !slices.Equal(defs, want) {
		t.Errorf("definitions = %q, want %q", defs, want)
	}
}

// targetsQuery lists the resolved callees of the calls in a definition
// with the given method or call kind.
const targetsQuery = `
	SELECT t.callee_name FROM calls c
	JOIN functions d ON d.id = c.caller_id JOIN call_targets t ON t.call_id = c.id
	WHERE d.name = ? AND c.kind = ?`

func TestProgram(t *testing.T) {
	_, vta := build(t, "../testdata/static/prog", Config{})
	_, cha := build(t, "../testdata/static/prog", Config{CallGraph: CHA})
	tests := []struct {
		name  string
		db    *sql.DB
		query string
		args  []any
		want  []string
	}{
		{"interface call, VTA: only the types that flow in", vta, targetsQuery,
			[]any{"example.com/prog/shapes.Total", "interface"},
			[]string{"example.com/prog/shapes.(*Rect).Area", "example.com/prog/shapes.Square.Area"}},
		{"interface call, CHA: every implementation", cha, targetsQuery,
			[]any{"example.com/prog/shapes.Total", "interface"},
			[]string{"example.com/prog/shapes.(*Rect).Area", "example.com/prog/shapes.Hexagon.Area", "example.com/prog/shapes.Square.Area"}},
		{"interface call records the abstract method", vta,
			`SELECT method, external FROM calls WHERE kind = 'interface'`, nil,
			[]string{"example.com/prog/shapes.Shape.Area 0"}},
		{"function value call", vta, targetsQuery, []any{"main.Apply", "funcvalue"}, []string{"main.Double"}},
		{"function value call in a generic function", vta, targetsQuery, []any{"main.Map[...]", "funcvalue"}, []string{"main.main.func1"}},
		{"calls* through a chain and a method", vta,
			`SELECT e.name FROM calls_star_static r
			 JOIN functions a ON a.id = r.caller_def_id JOIN functions e ON e.id = r.callee_def_id
			 WHERE a.name = 'main.Chain1'`, nil,
			[]string{"example.com/prog/trace.Here", "fmt.Printf", "main.(*Counter).Add", "main.Chain2", "main.Chain3", "main.Leaf",
				"runtime.(*Func).Name", "runtime.Caller", "runtime.FuncForPC",
				"strings.Repeat", "sync.(*Mutex).Lock", "sync.(*Mutex).Unlock"}},
		{"external calls", vta,
			`SELECT c.callee, c.external, f.in_module, f.defined, f.kind FROM calls c JOIN functions f ON f.id = c.callee_id
			 WHERE c.callee IN ('strings.Repeat', 'sync.(*Mutex).Lock')`, nil,
			[]string{"strings.Repeat 1 0 0 func", "strings.Repeat 1 0 0 func", "sync.(*Mutex).Lock 1 0 0 method"}},
		{"defer", vta, `SELECT callee, kind FROM calls WHERE via = 'defer'`, nil,
			[]string{"sync.(*Mutex).Unlock static"}},
		{"go statement", vta,
			`SELECT d.name, s.callee_name FROM spawns_static s JOIN functions d ON d.id = s.def_id`, nil,
			[]string{"main.Spawn main.worker"}},
		{"closure containment", vta,
			`SELECT o.name, i.name, k.depth FROM contains_static k
			 JOIN functions o ON o.id = k.outer_id JOIN functions i ON i.id = k.inner_id
			 WHERE o.name = 'main.Closures'`, nil,
			[]string{"main.Closures main.Closures.func1 1", "main.Closures main.Closures.func1.1 2",
				"main.Closures main.Closures.func2 1", "main.Closures main.Closures.func3 1"}},
		{"calls inside closures belong to the closure and, through calls_within, to the function", vta,
			`SELECT count(*) FROM calls_within w JOIN functions d ON d.id = w.def_id JOIN calls c ON c.id = w.call_id
			 WHERE d.name = 'main.Closures' AND c.callee = 'example.com/prog/trace.Here'`, nil,
			[]string{"5"}},
		{"generic functions and methods", vta,
			`SELECT name, match_name, kind, generic FROM functions WHERE generic AND kind != 'closure'`, nil,
			[]string{"main.(*Box[...]).Get main.(*Box).Get method 1", "main.Map[...] main.Map func 1"}},
		{"range-over-func: the iterator call is implicit, the body belongs to the function", vta,
			`SELECT c.kind, t.callee_name FROM calls c JOIN functions d ON d.id = c.caller_id
			 JOIN call_targets t ON t.call_id = c.id
			 WHERE d.name = 'main.Closures' AND c.kind = 'implicit'`, nil,
			[]string{"implicit main.Seq.func1"}},
		{"the yield call reaches the loop body's function", vta, targetsQuery,
			[]any{"main.Seq.func1", "funcvalue"}, []string{"main.Closures"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rows(t, tt.db, tt.query, tt.args...); !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestUnreached checks that the definitions no code of the program
// reaches are marked so (a method of a type the program never uses, and
// the closure in it), and that the dynamic calls in them are the ones the
// call graph leaves without a callee: VTA, which sees only reached code,
// resolves the live call and not theirs.
func TestUnreached(t *testing.T) {
	_, db := build(t, "../testdata/static/unreached", Config{})
	reached := rows(t, db, `SELECT name, reached FROM functions WHERE in_module AND defined`)
	want := []string{"main.apply 1", "main.double 1", "main.handler.serve 0", "main.handler.serve.func1 0", "main.main 1"}
	if !slices.Equal(reached, want) {
		t.Errorf("reached = %q, want %q", reached, want)
	}
	if got := rows(t, db, `SELECT reached FROM functions WHERE name = 'fmt.Println'`); !slices.Equal(got, []string{"<nil>"}) {
		t.Errorf("reached of fmt.Println = %q, want NULL: only the module's definitions are known", got)
	}
	unresolved := rows(t, db, `
		SELECT f.name FROM calls c JOIN functions f ON f.id = c.caller_id
		WHERE c.kind <> 'static' AND NOT EXISTS (SELECT 1 FROM call_targets t WHERE t.call_id = c.id)`)
	if want := []string{"main.handler.serve", "main.handler.serve.func1"}; !slices.Equal(unresolved, want) {
		t.Errorf("dynamic calls without a callee in %q, want %q", unresolved, want)
	}
	if got := rows(t, db, targetsQuery, "main.apply", "funcvalue"); !slices.Equal(got, []string{"main.double"}) {
		t.Errorf("targets of f(a) in apply = %q, want [main.double]", got)
	}
}

// TestRuntimeNames runs the test program, whose functions print their
// runtime.FuncForPC names, and checks that the innermost definition in
// static.db around each printing line has that name.
func TestRuntimeNames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program")
	}
	dir, err := filepath.Abs("../testdata/static/prog")
	if err != nil {
		t.Fatal(err)
	}
	_, db := build(t, dir, Config{})
	// Inlining renames the closures of inlined functions; the names
	// static.db records are those of the functions as compiled on their own.
	cmd := exec.Command("go", "run", "-gcflags=all=-l", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, out)
	}
	seen := 0
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			t.Fatalf("bad line %q", sc.Text())
		}
		rel, _ := filepath.Rel(dir, f[1])
		line, _ := strconv.Atoi(f[2])
		var name string
		err := db.QueryRow(`SELECT name FROM functions WHERE file = ? AND line <= ? AND end_line >= ?
			ORDER BY line DESC, col DESC LIMIT 1`, filepath.ToSlash(rel), line, line).Scan(&name)
		if err != nil {
			t.Errorf("%s:%d: no definition around the line (runtime name %s): %v", rel, line, f[0], err)
			continue
		}
		if name != f[0] {
			t.Errorf("%s:%d: static.db names the function %s, the runtime %s", rel, line, name, f[0])
		}
		seen++
	}
	if seen < 25 {
		t.Errorf("only %d functions printed their names:\n%s", seen, out)
	}
}

func TestTypeErrorWritesNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "static.db")
	_, err := Build(context.Background(), Config{Dir: "../testdata/static/broken", Output: out})
	var pe *PackageErrors
	if !errors.As(err, &pe) {
		t.Fatalf("Build = %v, want *PackageErrors", err)
	}
	for _, want := range []string{"main.go:4:17: ", "main.go:5:2: undefined: undefined"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("database written despite errors: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("files left behind: %v", entries)
	}
}

func TestReuse(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/fig41")); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Dir: dir, Version: "test"}
	steps := []struct {
		name   string
		change func() error
		reused bool
	}{
		{"first build", nil, false},
		{"nothing changed", nil, true},
		{"a Go file changed", func() error { return appendTo(filepath.Join(dir, "main.go"), "\nfunc Extra() {}\n") }, false},
		{"nothing changed again", nil, true},
		{"a Go file added", func() error {
			return os.WriteFile(filepath.Join(dir, "more.go"), []byte("package main\n\nfunc More() { IR(1) }\n"), 0o644)
		}, false},
		{"build tags changed", func() error { cfg.Tags = []string{"extra"}; return nil }, false},
		{"go.mod changed", func() error { return appendTo(filepath.Join(dir, "go.mod"), "\n// comment\n") }, false},
	}
	for _, step := range steps {
		if step.change != nil {
			if err := step.change(); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Build(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if res.Reused != step.reused {
			t.Errorf("%s: Reused = %v, want %v", step.name, res.Reused, step.reused)
		}
		if res.Functions == 0 || res.Calls == 0 {
			t.Errorf("%s: counts %d functions, %d calls", step.name, res.Functions, res.Calls)
		}
	}
	ignore, err := os.ReadFile(filepath.Join(dir, ".pmm", ".gitignore"))
	if err != nil || string(ignore) != "*\n" {
		t.Errorf(".pmm/.gitignore = %q, %v", ignore, err)
	}
	// The added function is in the rebuilt database.
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "static.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := rows(t, db, `SELECT name FROM functions WHERE name IN ('main.More', 'main.Extra')`); len(got) != 2 {
		t.Errorf("rebuilt database has %q, want main.Extra and main.More", got)
	}
}

func appendTo(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func TestStableIDs(t *testing.T) {
	_, a := build(t, "../testdata/static/prog", Config{})
	_, b := build(t, "../testdata/static/prog", Config{})
	for _, q := range []string{
		`SELECT id, name, file, line, col FROM functions`,
		`SELECT id, caller_id, file, line, col, kind FROM calls`,
		`SELECT call_id, callee_id FROM call_targets`,
	} {
		if x, y := rows(t, a, q), rows(t, b, q); !slices.Equal(x, y) {
			t.Errorf("%s differs between two builds", q)
		}
	}
}

func TestRuntimeNameEscaping(t *testing.T) {
	for path, want := range map[string]string{
		"gopkg.in/yaml.v3":      "gopkg.in/yaml%2ev3",
		"example.com/m/pkg":     "example.com/m/pkg",
		"example.com/a.b/c.d/e": "example.com/a.b/c.d/e",
		"strings":               "strings",
	} {
		if got := pathToPrefix(path); got != want {
			t.Errorf("pathToPrefix(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestTests(t *testing.T) {
	_, db := build(t, "../testdata/static/prog", Config{Tests: true})
	if dups := rows(t, db, `SELECT name FROM functions WHERE defined GROUP BY name HAVING count(*) > 1`); len(dups) > 0 {
		t.Errorf("definitions recorded twice: %q", dups)
	}
	want := []string{"example.com/prog/shapes.TestTotal shapes/shapes_test.go"}
	if got := rows(t, db, `SELECT name, file FROM functions WHERE name LIKE '%.TestTotal'`); !slices.Equal(got, want) {
		t.Errorf("test function: got %q, want %q", got, want)
	}
	_, plain := build(t, "../testdata/static/prog", Config{})
	if got := rows(t, plain, `SELECT name FROM functions WHERE name LIKE '%.TestTotal'`); len(got) != 0 {
		t.Errorf("without Tests, test functions are recorded: %q", got)
	}
}

// checkRows compares the rows of query (sorted, as rows returns them)
// with want.
func checkRows(t *testing.T, db *sql.DB, what, query string, want []string) {
	t.Helper()
	if got := rows(t, db, query); !slices.Equal(got, want) {
		t.Errorf("%s:\n%s\nwant:\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRegions(t *testing.T) {
	_, db := build(t, "../testdata/static/regions", Config{})
	// rows sorts: the id (source order) leads.
	checkRows(t, db, "regions", `SELECT r.id, f.name, r.label, r.kind, r.loop, r.file, r.line, r.col, r.end_line, r.end_col
		FROM regions r JOIN functions f ON f.id = r.function_id`, []string{
		"1 main.run outer for 1 main.go 8 1 20 3",
		"2 main.run each range 1 main.go 10 2 19 4",
		"3 main.run kind switch 0 main.go 21 1 25 3",
		"4 main.run wait select 0 main.go 26 1 31 3",
		"5 main.run.func1 types typeswitch 0 main.go 33 2 37 4",
		"6 main.run block block 0 main.go 40 1 45 3",
	})
}

// TestLoopDepth checks calls.loop_depth: the loops of the caller's body
// that run the call once per iteration (a for's condition and post
// statement, a loop's body; not a for's init nor a range expression),
// counted within one function literal.
func TestLoopDepth(t *testing.T) {
	_, db := build(t, "../testdata/static/loops", Config{})
	checkRows(t, db, "calls", `SELECT f.name, c.line, c.col, c.callee, c.via, c.loop_depth
		FROM calls c JOIN functions f ON f.id = c.caller_id`, []string{
		"main.main 12 7 main.f call 0",
		"main.main 13 11 main.f call 0",
		"main.main 13 17 main.g call 1",
		"main.main 13 28 main.f call 1",
		"main.main 14 8 main.f call 1",
		"main.main 15 21 main.h call 1",
		"main.main 16 9 main.f call 2",
		"main.main 17 4 main.main.func1 call 2",
		"main.main 22 8 main.f defer 0",
		"main.main 24 6 main.f go 1",
		"main.main.func1 18 10 main.f call 0",
	})
}

// TestUnresolvedInterfaceCalls checks calls.external of interface calls
// the call graph has no callee for: 1 when no method of the module has
// the called method's name and signature (none of its functions can
// run), NULL when one has (the call may run it, even through a type that
// is no such interface itself but embeds one: F's Read is R's).
func TestUnresolvedInterfaceCalls(t *testing.T) {
	_, db := build(t, "../testdata/static/ifacecalls", Config{})
	checkRows(t, db, "interface calls", `SELECT c.line, c.method, coalesce(c.external, 'NULL') FROM calls c WHERE c.kind = 'interface'`,
		[]string{"39 reflect.Type.Kind 1", "40 reflect.Type.Name NULL", "42 reflect.Type.MethodByName 1", "44 io/fs.File.Read NULL"})
}

// TestHiddenCallers checks functions.hidden_callers on testdata's
// hidden program: 1 for a method, a function named by //go:linkname,
// one whose value is stored, an instance of a generic function used as
// a value and a closure; 0 for functions only calls of the calls table
// call: main.main, the function holding a range-over-func loop and the
// iterator it ranges over by name (an implicit call) among them. And meta.whole_module: true when the
// patterns hold every package of the module, false without sub.
func TestHiddenCallers(t *testing.T) {
	_, db := build(t, "../testdata/static/hidden", Config{})
	got := rows(t, db, `SELECT name, hidden_callers FROM functions WHERE in_module AND defined AND kind <> 'init'`)
	want := []string{
		"example.com/hidden/sub.Called 0", "example.com/hidden/sub.Seq 0",
		"main.T.M 1", "main.generic[...] 1", "main.linked 1", "main.main 0", "main.main.func1 1",
		"main.ranger 0", "main.static 0", "main.taken 1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("hidden_callers = %q, want %q", got, want)
	}
	if got := rows(t, db, `SELECT hidden_callers FROM functions WHERE name = 'fmt.Println' OR NOT in_module`); slices.ContainsFunc(got, func(v string) bool { return v != "<nil>" }) {
		t.Errorf("hidden_callers outside the module = %q, want NULL", got)
	}
	for _, c := range []struct {
		patterns []string
		whole    string
	}{{nil, "true"}, {[]string{"."}, "false"}} {
		_, db := build(t, "../testdata/static/hidden", Config{Patterns: c.patterns})
		if got := rows(t, db, `SELECT value FROM meta WHERE key = 'whole_module'`); !slices.Equal(got, []string{c.whole}) {
			t.Errorf("patterns %q: whole_module = %q, want %s", c.patterns, got, c.whole)
		}
	}
}

// TestTextMethods checks text_methods on testdata/textmethods: which
// methods fmt prints the module's types by, and which of them are free
// of effects (why is NULL): a stringer-style enumeration in another
// package, an error formatting its fields, a String writing a
// strings.Builder of its own and one printing the enumeration; not a
// method counting its calls, one taking a lock, one calling the method
// of an interface and one sending on a channel.
func TestTextMethods(t *testing.T) {
	for _, tests := range []bool{false, true} {
		_, db := build(t, "../testdata/textmethods", Config{Tests: tests})
		checkTextMethods(t, db)
	}
	if got := TextKeys("example.com/m", "main", "T", true); !slices.Equal(got, []string{"*example.com/m.T", "*main.T"}) {
		t.Errorf("TextKeys of package main's *T = %q", got)
	}
}

// checkTextMethods checks the rows of testdata/textmethods' text_methods
// (with its test variants or without: the same rows).
func checkTextMethods(t *testing.T, db *sql.DB) {
	t.Helper()
	checkRows(t, db, "text methods", `SELECT pkg_name || '.' || type || CASE WHEN pointer THEN '*' ELSE '' END, method, coalesce(why, 'NULL') FROM text_methods`, []string{
		"kinds.Kind String NULL",
		"kinds.Kind* String NULL",
		"main.Counted Error stores to memory it does not own",
		"main.Counted* Error stores to memory it does not own",
		"main.Guarded* String calls (*sync.Mutex).Lock",
		"main.Joined String passes fmt a slice of values it does not know",
		"main.Joined* String passes fmt a slice of values it does not know",
		"main.Labelled String NULL",
		"main.Labelled* String NULL",
		"main.Logged String operates on a channel",
		"main.Logged* String operates on a channel",
		"main.ParseError* Error NULL",
		"main.Point String NULL",
		"main.Point* String NULL",
		"main.Wrapped Error calls the method Error of an interface",
		"main.Wrapped* Error calls the method Error of an interface",
	})
}
