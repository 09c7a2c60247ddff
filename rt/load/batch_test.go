package load

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"pmm.dev/pmm/rt/logfmt"
	"pmm.dev/pmm/rt/pmmrt"
)

// TestBatches interleaves the records of two tables: one fills two full
// batches and a tail of 7 rows, the other exactly one batch. Every row
// loads, in order, with its values.
func TestBatches(t *testing.T) {
	const n = 2*batchRows + 7
	dir := record(t, func() {
		var r pmmrt.Rec
		for i := 0; i < n; i++ {
			r.Int(int64(i))
			r.Str(fmt.Sprint("k", i))
			r.ListBegin()
			r.Int(int64(i % 3))
			r.Str("x")
			r.ListEnd()
			pmmrt.Emit(1, &r)
			if i < batchRows {
				pmmrt.Emit2(2, int64(i), -int64(i))
			}
		}
	})
	stats := load(t, dir, []Table{
		{ID: 1, Name: "calls", Columns: []Column{{"i", "INTEGER", false}, {"key", "TEXT", false}, {"args", "TEXT", false}}},
		{ID: 2, Name: "pairs", Columns: []Column{{"a", "INTEGER", false}, {"b", "INTEGER", false}}},
	})
	if stats.Tuples["calls"] != n || stats.Tuples["pairs"] != batchRows || stats.Malformed != 0 {
		t.Fatalf("stats %+v", stats)
	}
	db := open(t, dir)
	got := rows(t, db, `SELECT count(*), sum(rowid = i + 1), sum(key = 'k' || i), sum(args = '[' || (i % 3) || ',"x"]') FROM calls`)
	want := [][]string{{fmt.Sprint("int:", n), fmt.Sprint("int:", n), fmt.Sprint("int:", n), fmt.Sprint("int:", n)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("calls: got %q, want %q", got, want)
	}
	got = rows(t, db, `SELECT count(*), sum(a + b), max(a), count(DISTINCT run) FROM pairs`)
	want = [][]string{{fmt.Sprint("int:", batchRows), "int:0", fmt.Sprint("int:", batchRows-1), "int:1"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pairs: got %q, want %q", got, want)
	}
}

// TestExecDuration loads timed events, each one record holding two
// tuples (pmmrt.EmitExecPair): every execution's row and its
// duration's, in their tables, as if each were its own record.
func TestExecDuration(t *testing.T) {
	const n = batchRows + 3
	dir := record(t, func() {
		for i := 1; i <= n; i++ {
			pmmrt.EmitExecPair(1, 3, uint64(i), 7, int64(3*i))
		}
	})
	stats := load(t, dir, []Table{
		{ID: 1, Name: "exec", Columns: []Column{{"id", "INTEGER", true}, {"site", "INTEGER", false}}},
		{ID: 3, Name: "duration", Columns: []Column{{"id", "INTEGER", true}, {"d", "INTEGER", false}}},
	})
	if stats.Tuples["exec"] != n || stats.Tuples["duration"] != n || stats.Malformed != 0 || stats.UnknownTable != 0 {
		t.Fatalf("stats %+v", stats)
	}
	db := open(t, dir)
	got := rows(t, db, `SELECT count(*), sum(site = 7), min(id), max(id) FROM exec`)
	want := [][]string{{fmt.Sprint("int:", n), fmt.Sprint("int:", n), "int:1", fmt.Sprint("int:", n)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("exec: got %q, want %q", got, want)
	}
	got = rows(t, db, `SELECT count(*), sum(d = 3 * id), count(DISTINCT id) FROM duration JOIN exec USING (run, id)`)
	want = [][]string{{fmt.Sprint("int:", n), fmt.Sprint("int:", n), fmt.Sprint("int:", n)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("duration: got %q, want %q", got, want)
	}
}

// TestImpliedIDs loads allocations written without ids
// (pmmrt.EmitPoint), over several segments: the loader gives each
// record's two tuples one id, distinct from every other record's, across
// the segments, and negative; those that did not fit the packed layout
// (a value from 2^40, a site from 2^24) took ids from NextID.
func TestImpliedIDs(t *testing.T) {
	const n = 300_000 // 16 bytes each: more than the first segment of 2 MiB
	dir := record(t, func() {
		for i := 0; i < n; i++ {
			switch {
			case i%1000 == 1:
				pmmrt.EmitPoint(1, 3, i, 1<<40+int64(i))
			case i == 7:
				pmmrt.EmitPoint(1, 3, 1<<24+i, 1<<24+int64(i))
			default:
				pmmrt.EmitPoint(1, 3, i, int64(3*i))
			}
		}
	})
	stats := load(t, dir, []Table{
		{ID: 1, Name: "alloc", Columns: []Column{{"id", "INTEGER", true}, {"site", "INTEGER", false}}},
		{ID: 3, Name: "bytes", Columns: []Column{{"id", "INTEGER", true}, {"v", "INTEGER", false}}},
	})
	if stats.Tuples["alloc"] != n || stats.Tuples["bytes"] != n || stats.Malformed != 0 || stats.Segments < 2 {
		t.Fatalf("stats %+v", stats)
	}
	got := rows(t, open(t, dir), `SELECT count(*), count(DISTINCT id), sum(v = 3 * site OR v = (1 << 40) + site OR site = v AND site = (1 << 24) + 7),
		sum(id < 0), sum(id > 0), min(id) FROM alloc JOIN bytes USING (run, id)`)
	want := [][]string{{fmt.Sprint("int:", n), fmt.Sprint("int:", n), fmt.Sprint("int:", n), fmt.Sprint("int:", n-n/1000-1), fmt.Sprint("int:", n/1000+1), fmt.Sprint("int:", -1<<40)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestBatchCutByText loads rows with long strings: a batch is inserted
// once its texts reach batchText, before it has batchRows rows.
func TestBatchCutByText(t *testing.T) {
	const n = 600
	long := strings.Repeat("s", 2*logfmt.MaxString) // kept: MaxString bytes and the marker
	dir := record(t, func() {
		var r pmmrt.Rec
		for i := 0; i < n; i++ {
			r.Int(int64(i))
			r.Str(long)
			pmmrt.Emit(1, &r)
		}
	})
	if n*logfmt.MaxString <= 2*batchText {
		t.Fatal("too little text to cut a batch short")
	}
	stats := load(t, dir, []Table{{ID: 1, Name: "t", Columns: []Column{{"i", "INTEGER", false}, {"s", "TEXT", false}}}})
	if stats.Tuples["t"] != n {
		t.Fatalf("stats %+v", stats)
	}
	want := long[:logfmt.MaxString] + cutMarker(len(long))
	got := rows(t, open(t, dir), fmt.Sprintf(`SELECT count(*), sum(rowid = i + 1), sum(s = '%s') FROM t`, want))
	if w := [][]string{{fmt.Sprint("int:", n), fmt.Sprint("int:", n), fmt.Sprint("int:", n)}}; !reflect.DeepEqual(got, w) {
		t.Errorf("got %q, want %q", got, w)
	}
}

// TestInsertFails makes the insertion of the first batch fail (a UNIQUE
// index the tuples violate) while the decoder has more batches to send:
// Load returns the error and leaves the database and the logs as they
// were.
func TestInsertFails(t *testing.T) {
	const n = 10 * batchRows
	dir := record(t, func() {
		for i := 0; i < n; i++ {
			pmmrt.Emit2(1, int64(i%5), 0)
		}
	})
	db := open(t, dir)
	if _, err := db.Exec(`CREATE TABLE t (run INTEGER, a INTEGER UNIQUE, b INTEGER)`); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
	_, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(dir, "logs"), []Table{{ID: 1, Name: "t", Columns: []Column{{"a", "INTEGER", false}, {"b", "INTEGER", false}}}}, Run{})
	if err == nil || !strings.Contains(err.Error(), "UNIQUE") {
		t.Fatalf("Load: %v, want a UNIQUE constraint error", err)
	}
	got := rows(t, db, `SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM sqlite_schema WHERE name = 'runs')`)
	if want := [][]string{{"int:0", "int:0"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("after the failed load: got %q, want %q", got, want)
	}
	after, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
	if len(logs) == 0 || !reflect.DeepEqual(after, logs) {
		t.Errorf("logs before %q, after %q", logs, after)
	}
	for _, p := range after {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestInsertedCount counts the tuples of a load of several batches as
// they are inserted: at the end, every tuple of the run.
func TestInsertedCount(t *testing.T) {
	const n = 3*batchRows + 7
	dir := record(t, func() {
		for i := 0; i < n; i++ {
			pmmrt.Emit2(1, int64(i), 0)
		}
	})
	var inserted atomic.Int64
	stats, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(dir, "logs"), []Table{{ID: 1, Name: "t", Columns: []Column{{"a", "INTEGER", false}, {"b", "INTEGER", false}}}}, Run{Inserted: &inserted})
	if err != nil {
		t.Fatal(err)
	}
	if got := inserted.Load(); got != n || stats.Tuples["t"] != n {
		t.Errorf("inserted %d, stats %d, want %d", got, stats.Tuples["t"], n)
	}
}

// TestSortByKey sorts batches of a keyed table of two columns whose key
// is (b, a): one whose rows are in order (left as they are), one out of
// order sorted as integers, one whose first key column spans more than
// those integers hold, sorted by comparisons. Each holds the same rows
// after as before, in the key's order.
func TestSortByKey(t *testing.T) {
	tl := &tableLoader{table: &Table{Columns: []Column{{"a", "INTEGER", false}, {"b", "INTEGER", false}}}, key: []int{1, 0}}
	for _, rows := range [][][2]int64{
		{{1, 1}, {2, 1}, {0, 2}, {5, 3}},
		{{7, 30}, {1, 10}, {2, 10}, {0, 20}, {9, 5}, {3, 10}},
		{{0, 1 << 62}, {1, -1 << 62}, {2, 0}, {3, -1 << 62}},
	} {
		b := &batch{tl: tl, rows: len(rows)}
		for _, r := range rows {
			b.vals = append(b.vals, value{i: r[0], kind: kindInt}, value{i: r[1], kind: kindInt})
		}
		b.sortByKey()
		var got, want [][2]int64
		for r := range b.rows {
			got = append(got, [2]int64{b.vals[2*r].i, b.vals[2*r+1].i})
		}
		want = append(want, rows...)
		slices.SortStableFunc(want, func(x, y [2]int64) int {
			if c := cmp.Compare(x[1], y[1]); c != 0 {
				return c
			}
			return cmp.Compare(x[0], y[0])
		})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%v sorted: %v, want %v", rows, got, want)
		}
	}
}
