package load

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, to read pmm.db
	"pmm.dev/pmm/rt/logfmt"
	"pmm.dev/pmm/rt/pmmrt"
)

// A test binary started with childEnv set is a child process that records
// childRecords tuples and exits (TestTwoProcesses).
const (
	childEnv     = "PMM_LOAD_TEST_CHILD"
	childRecords = 1000
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		for i := 0; i < childRecords; i++ {
			pmmrt.Emit2(1, int64(pmmrt.NextID()), int64(i))
			pmmrt.EmitPoint(2, 3, i, int64(2*i)) // an implied id
		}
		os.Exit(0) // nothing flushed, nothing closed: the records are in the files
	}
	if req := os.Getenv(loadChildEnv); req != "" {
		loadChild(req) // BenchmarkAnswer's loads
	}
	if db, logs, ok := strings.Cut(os.Getenv(concurrentLoadEnv), string(os.PathListSeparator)); ok {
		// TestConcurrentLoadsOfANewDatabase's loads, one per process.
		if _, err := Load(db, logs, concurrentTables, Run{Command: "test", GoVersion: "go1.26", Start: time.Unix(0, 0), End: time.Unix(1, 5)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// record runs emit with the process's log in a new directory, closes the
// log and returns the directory (the one pmm.db and logs/ go in).
func record(t testing.TB, emit func()) string {
	t.Helper()
	pmmrt.Close()
	dir := t.TempDir()
	os.Setenv("PMM_DIR", dir)
	defer os.Unsetenv("PMM_DIR")
	emit()
	pmmrt.Close()
	return dir
}

func load(t testing.TB, dir string, tables []Table) *Stats {
	t.Helper()
	stats, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(dir, "logs"), tables, Run{Command: "test", GoVersion: "go1.26", Start: time.Unix(0, 0), End: time.Unix(1, 5)})
	if err != nil {
		t.Fatal(err)
	}
	return stats
}

func open(t testing.TB, dir string) *sql.DB {
	db, err := sql.Open("sqlite", filepath.Join(dir, "pmm.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// rows returns the result of query as rows of values rendered as
// "typeof:value".
func rows(t testing.TB, db *sql.DB, query string) [][]string {
	t.Helper()
	r, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cols, _ := r.Columns()
	var out [][]string
	for r.Next() {
		vals := make([]interface{}, len(cols))
		ptrs := make([]interface{}, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := r.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			switch x := v.(type) {
			case nil:
				row[i] = "null"
			case int64:
				row[i] = "int:" + strconv.FormatInt(x, 10)
			case float64:
				row[i] = "real:" + strconv.FormatFloat(x, 'g', -1, 64)
			case string:
				row[i] = "text:" + x
			case []byte:
				row[i] = fmt.Sprintf("blob:%x", x)
			default:
				row[i] = fmt.Sprintf("%T:%v", x, x)
			}
		}
		out = append(out, row)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFieldTypes(t *testing.T) {
	long := strings.Repeat("ab", logfmt.MaxString)
	dir := record(t, func() {
		var r pmmrt.Rec
		r.Int(-7)
		r.Uint(math.MaxUint64)
		r.Uint(5)
		r.Float(2.5)
		r.Float(math.NaN())
		r.Bool(true)
		r.Str("héllo \"世界\" \n")
		r.Str(long)
		r.Bytes([]byte{0xde, 0xad})
		r.Bytes(nil)
		r.Null()
		r.ListBegin()
		r.Int(1)
		r.Str("a\"b")
		r.Bool(false)
		r.Null()
		r.Float(1.5)
		r.Float(math.Inf(-1))
		r.ListBegin()
		r.Uint(2)
		r.Bytes([]byte{10})
		r.ListEnd()
		r.ListBegin()
		r.ListEnd()
		r.ListEnd()
		pmmrt.Emit(1, &r)
	})
	cols := []Column{{"i", "INTEGER", false}, {"u", "INTEGER", false}, {"u2", "", false}, {"f", "REAL", false}, {"nan", "REAL", false},
		{"b", "INTEGER", false}, {"s", "TEXT", false}, {"long", "TEXT", false}, {"by", "BLOB", false}, {"nilbytes", "", false},
		{"null", "", false}, {"list", "TEXT", false}, {"missing", "", false}}
	stats := load(t, dir, []Table{{ID: 1, Name: "all-types", Columns: cols}})
	if stats.Tuples["all-types"] != 1 || stats.Malformed != 0 || stats.Torn != 0 || stats.Processes != 1 || stats.Run != 1 {
		t.Errorf("stats %+v", stats)
	}
	got := rows(t, open(t, dir), `SELECT * FROM "all-types"`)
	want := [][]string{{"int:1", "int:-7", "real:1.8446744073709552e+19", "int:5", "real:2.5", "null", "int:1",
		"text:héllo \"世界\" \n", "text:" + long[:logfmt.MaxString] + "…[truncated from 8192 bytes]", "blob:dead", "null", "null",
		`text:[1,"a\"b",false,null,1.5,"-Inf",[2,"0x0a"],[]]`, "null"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestListsJoin(t *testing.T) {
	dir := record(t, func() {
		var r pmmrt.Rec
		for i, args := range [][]interface{}{{1, "x"}, {2, "y"}, {1, "x"}, {int64(1), "x", nil}} {
			r.Int(int64(i))
			r.ListBegin()
			for _, a := range args {
				r.Value(a)
			}
			r.ListEnd()
			pmmrt.Emit(2, &r)
		}
	})
	load(t, dir, []Table{{ID: 2, Name: "calls", Columns: []Column{{"id", "INTEGER", true}, {"args", "TEXT", false}}}})
	got := rows(t, open(t, dir), `SELECT a.id, b.id FROM calls a JOIN calls b ON a.args = b.args AND a.id < b.id`)
	if want := [][]string{{"int:0", "int:2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestTwoProcesses loads the logs of two processes, whose event ids both
// start at 1: the second's are shifted, so that all are distinct; and
// so are the ids their records imply (pmmrt.EmitPoint), each process's
// below its range, and distinct from every NextID id.
func TestTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 2; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=1", "PMM_DIR="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
	}
	stats := load(t, dir, []Table{
		{ID: 1, Name: "events", Columns: []Column{{"id", "INTEGER", true}, {"i", "INTEGER", false}}},
		{ID: 2, Name: "points", Columns: []Column{{"id", "INTEGER", true}, {"site", "INTEGER", false}}},
		{ID: 3, Name: "bytes", Columns: []Column{{"id", "INTEGER", true}, {"v", "INTEGER", false}}},
	})
	if stats.Processes != 2 || stats.Tuples["events"] != 2*childRecords || stats.Tuples["points"] != 2*childRecords ||
		stats.Tuples["bytes"] != 2*childRecords || stats.Malformed != 0 {
		t.Fatalf("stats %+v", stats)
	}
	// Each point's two tuples share its id: the join pairs every site
	// with its own value; process p's ids are in [-(p+1)<<40, -p<<40).
	got := rows(t, open(t, dir), `SELECT count(DISTINCT id), sum(v = 2 * site), min(id), max(id),
		sum(id >= -(1 << 40)), sum(id < -(1 << 40) AND id >= -(2 << 40)), (SELECT count(*) FROM events WHERE id IN (SELECT id FROM points))
		FROM points JOIN bytes USING (run, id)`)
	want := [][]string{{"int:2000", "int:2000", fmt.Sprintf("int:%d", -(2 << 40)), fmt.Sprintf("int:%d", -(1<<40)+childRecords-1), "int:1000", "int:1000", "int:0"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("implied ids: got %q, want %q", got, want)
	}
	got = rows(t, open(t, dir), `SELECT count(DISTINCT id), min(id), max(id), count(DISTINCT id >> 40) FROM events`)
	want = [][]string{{"int:2000", "int:1", fmt.Sprintf("int:%d", 1<<40+childRecords), "int:2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got = rows(t, open(t, dir), `SELECT process, tuples, torn, segments FROM run_processes ORDER BY process`)
	want = [][]string{{"int:0", "int:3000", "int:0", "int:1"}, {"int:1", "int:3000", "int:0", "int:1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("run_processes: got %q, want %q", got, want)
	}
}

// TestTornSkipped uncommits a record in a log file, as a writer killed
// while writing it leaves it: it is skipped and counted, the others load.
func TestTornSkipped(t *testing.T) {
	dir := record(t, func() {
		for i := 0; i < 3; i++ {
			pmmrt.Emit2(1, int64(i), 0)
		}
	})
	tearSecond(t, dir)
	stats := load(t, dir, []Table{{ID: 1, Name: "t", Columns: []Column{{"a", "INTEGER", false}, {"b", "INTEGER", false}}}})
	if stats.Torn != 1 || stats.Tuples["t"] != 2 {
		t.Errorf("stats %+v", stats)
	}
	got := rows(t, open(t, dir), `SELECT a FROM t ORDER BY a`)
	if want := [][]string{{"int:0"}, {"int:2"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// tearSecond uncommits the second record of the log in dir, as a writer
// killed while writing it leaves it.
func tearSecond(t *testing.T, dir string) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "logs", "*.pmmlog"))
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	const second = 512 + 24 // the header, then 24-byte records
	word := binary.LittleEndian.Uint32(data[second:])
	binary.LittleEndian.PutUint32(data[second:], word&^(1<<31))
	if err := os.WriteFile(paths[0], data, 0644); err != nil {
		t.Fatal(err)
	}
}

// TestIncompleteStored loads a run with a reason known before it and a
// torn record: pmm_incomplete has the reason, and the loss for every
// question; a run without either has no row.
func TestIncompleteStored(t *testing.T) {
	dir := record(t, func() {
		for i := 0; i < 3; i++ {
			pmmrt.Emit2(1, int64(i), 0)
		}
	})
	tearSecond(t, dir)
	tables := []Table{{ID: 1, Name: "t", Columns: []Column{{"a", "INTEGER", false}, {"b", "INTEGER", false}}}}
	run := Run{Command: "test", Start: time.Unix(0, 0), End: time.Unix(1, 0), Questions: []string{"q1", "q2"},
		Incomplete: []Incomplete{{Question: "q1", Reason: "event x: a site is not instrumented", Position: "main.go:3:4"}}}
	if _, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(dir, "logs"), tables, run); err != nil {
		t.Fatal(err)
	}
	run.Incomplete = nil
	if _, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(dir, "logs"), tables, run); err != nil {
		t.Fatal(err)
	}
	got := rows(t, open(t, dir), `SELECT run, question, reason, position FROM pmm_incomplete ORDER BY run, question, position`)
	lost := "text:records of the run were lost: 1 torn (a process was killed while writing them)"
	want := [][]string{
		{"int:1", "text:q1", lost, "null"},
		{"int:1", "text:q1", "text:event x: a site is not instrumented", "text:main.go:3:4"},
		{"int:1", "text:q2", lost, "null"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pmm_incomplete:\n%q\nwant\n%q", got, want)
	}
}

// TestRuns loads two runs into one database, the second with a column
// more, and checks the runs table, the run tags, and that the logs are
// removed.
func TestRuns(t *testing.T) {
	dir := record(t, func() { pmmrt.Emit2(1, 10, 11) })
	tables := []Table{{ID: 1, Name: "t", Columns: []Column{{"a", "INTEGER", false}, {"b", "INTEGER", false}}}}
	load(t, dir, tables)
	if paths, _ := filepath.Glob(filepath.Join(dir, "logs", "*")); len(paths) != 0 {
		t.Errorf("logs left after loading: %v", paths)
	}
	os.Setenv("PMM_DIR", dir)
	pmmrt.Emit3(1, 20, 21, 22)
	pmmrt.Close()
	os.Unsetenv("PMM_DIR")
	tables[0].Columns = append(tables[0].Columns, Column{"c", "INTEGER", false})
	stats := load(t, dir, tables)
	if stats.Run != 2 {
		t.Errorf("second run has id %d", stats.Run)
	}
	db := open(t, dir)
	got := rows(t, db, `SELECT * FROM t ORDER BY run`)
	want := [][]string{{"int:1", "int:10", "int:11", "null"}, {"int:2", "int:20", "int:21", "int:22"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got = rows(t, db, `SELECT id, start, end, command, go_version, exit_status FROM runs ORDER BY id`)
	run := []string{"text:1970-01-01T00:00:00.000000000Z", "text:1970-01-01T00:00:01.000000005Z", "text:test", "text:go1.26", "int:0"}
	want = [][]string{append([]string{"int:1"}, run...), append([]string{"int:2"}, run...)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("runs: got %q, want %q", got, want)
	}
}

// TestMismatchedRecords: unknown tables, extra fields, missing fields.
func TestMismatchedRecords(t *testing.T) {
	dir := record(t, func() {
		pmmrt.Emit2(9, 1, 2) // no such table
		pmmrt.Emit3(1, 1, 2, 3)
		var r pmmrt.Rec
		r.Int(4)
		r.ListBegin()
		r.Int(5)
		r.ListEnd()
		r.ListBegin()
		r.ListEnd()
		pmmrt.Emit(1, &r)
		r.Int(6)
		pmmrt.Emit(1, &r)
	})
	stats := load(t, dir, []Table{{ID: 1, Name: "t", Columns: []Column{{"a", "", false}, {"b", "", false}}}})
	if stats.UnknownTable != 1 || stats.Malformed != 2 || stats.Tuples["t"] != 3 {
		t.Errorf("stats %+v", stats)
	}
	got := rows(t, open(t, dir), `SELECT a, b FROM t ORDER BY a`)
	want := [][]string{{"int:1", "int:2"}, {"int:4", "text:[5]"}, {"int:6", "null"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestWalkNotes: a heap walk's note (logfmt.IncompleteFileSuffix) makes
// the answers of the questions that ask for that walk incomplete, not
// the others' (q3 walks from the same value by another type), and the
// load removes it.
func TestWalkNotes(t *testing.T) {
	dir := record(t, func() { pmmrt.Emit2(1, 10, 11) })
	note := filepath.Join(dir, "logs", "1-2-0000000000000003-1"+logfmt.IncompleteFileSuffix)
	if err := os.WriteFile(note, logfmt.WalkNote(`"p" "*"`, "a heap walk met a channel"), 0644); err != nil {
		t.Fatal(err)
	}
	tables := []Table{{ID: 1, Name: "t", Columns: []Column{{"a", "INTEGER", false}, {"b", "INTEGER", false}}}}
	run := Run{Command: "test", Start: time.Unix(0, 0), End: time.Unix(1, 0), Questions: []string{"q1", "q2", "q3"},
		Walks: map[string][]string{`"p" "*"`: {"q2"}, `"p" "main.T"`: {"q3"}}}
	if _, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(dir, "logs"), tables, run); err != nil {
		t.Fatal(err)
	}
	got := rows(t, open(t, dir), `SELECT question, reason FROM pmm_incomplete`)
	if want := [][]string{{"text:q2", "text:a heap walk met a channel"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("pmm_incomplete:\n%q\nwant\n%q", got, want)
	}
	if _, err := os.Stat(note); !os.IsNotExist(err) {
		t.Errorf("the note is still there: %v", err)
	}
}

// concurrentLoadEnv makes the test binary a process that loads the logs
// in a directory into a pmm.db (both named in it, a list of paths) with
// concurrentTables.
const concurrentLoadEnv = "PMM_TEST_CONCURRENT_LOAD"

var concurrentTables = []Table{{ID: 1, Name: "t", Columns: []Column{{Name: "id", Type: "INTEGER", ID: true}, {Name: "v", Type: "INTEGER"}}}}

// TestConcurrentLoadsOfANewDatabase: loads that begin at once, each in
// a process of its own, on a pmm.db that does not exist yet (the first
// runs in a module, made at the same time) each load their run; none
// fails with SQLITE_BUSY while another turns the new database into WAL
// mode, which SQLite does without calling the busy handler.
func TestConcurrentLoadsOfANewDatabase(t *testing.T) {
	src := record(t, func() {
		for i := 0; i < 100; i++ {
			pmmrt.Emit2(1, int64(pmmrt.NextID()), int64(i))
		}
	})
	const loads, rounds = 6, 10
	for round := 0; round < rounds; round++ {
		db := filepath.Join(t.TempDir(), "pmm.db")
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		for i := 0; i < loads; i++ {
			logs := filepath.Join(t.TempDir(), "logs")
			if err := os.CopyFS(logs, os.DirFS(filepath.Join(src, "logs"))); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run", "^$")
			cmd.Env = append(os.Environ(), concurrentLoadEnv+"="+db+string(os.PathListSeparator)+logs)
			out := &bytes.Buffer{}
			cmd.Stdout, cmd.Stderr = out, out
			cmds, outs = append(cmds, cmd), append(outs, out)
		}
		for _, cmd := range cmds {
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Errorf("round %d, load %d: %v\n%s", round, i, err, outs[i])
			}
		}
		if got := rows(t, open(t, filepath.Dir(db)), "SELECT count(*) FROM runs"); len(got) != 1 || got[0][0] != fmt.Sprintf("int:%d", loads) {
			t.Errorf("round %d: runs %v, want %d", round, got, loads)
		}
	}
}
