package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pmm.dev/pmm/rt/pmmrt"
)

// TestIndexes loads two runs into one pmm.db through tables with
// indexes, one led by the event id (created before the insert) and one
// led by another column (created after it), and checks that both exist
// with their columns, hold every row of both runs (the database's
// integrity check compares each index with its table), that ANALYZE
// gathered their statistics, and that a look-up by (run, id) uses the
// id's index.
func TestIndexes(t *testing.T) {
	tables := []Table{{ID: 1, Name: "g", Columns: []Column{{"id", "INTEGER", true}, {"g", "INTEGER", true}},
		Indexes: []Index{{Name: "g_by_id_g", Columns: []string{"id", "g"}}, {Name: "g_by_g_id", Columns: []string{"g", "id"}}}}}
	if !idFirst(&tables[0], tables[0].Indexes[0]) || idFirst(&tables[0], tables[0].Indexes[1]) {
		t.Fatal("idFirst: want the (id, g) index first, the (g, id) one after the insert")
	}
	const tuples = 5000
	dir := t.TempDir()
	for run := 1; run <= 2; run++ {
		logs := record(t, func() {
			for i := 0; i < tuples; i++ {
				pmmrt.Emit2(1, int64(pmmrt.NextID()), int64(i%7))
			}
		})
		st, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(logs, "logs"), tables, Run{Command: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if st.Run != int64(run) || st.Tuples["g"] != tuples {
			t.Fatalf("run %d: loaded as run %d, %d tuples", run, st.Run, st.Tuples["g"])
		}
	}
	db := open(t, dir)
	got := rows(t, db, "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'g' ORDER BY name")
	want := [][]string{
		{"text:g_by_g_id", `text:CREATE INDEX "g_by_g_id" ON "g" (run, "g", "id")`},
		{"text:g_by_id_g", `text:CREATE INDEX "g_by_id_g" ON "g" (run, "id", "g")`},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("indexes\n%v\nwant\n%v", got, want)
	}
	if got := rows(t, db, "PRAGMA integrity_check"); fmt.Sprint(got) != "[[text:ok]]" {
		t.Errorf("integrity_check: %v", got)
	}
	for _, x := range []string{"g_by_id_g", "g_by_g_id"} {
		var n int
		if err := db.QueryRow("SELECT count(*) FROM g INDEXED BY " + x + " WHERE run IN (1, 2)").Scan(&n); err != nil || n != 2*tuples {
			t.Errorf("%s: %d rows (%v), want %d", x, n, err, 2*tuples)
		}
		if got := rows(t, db, "SELECT count(*) FROM sqlite_stat1 WHERE idx = '"+x+"'"); fmt.Sprint(got) != "[[int:1]]" {
			t.Errorf("statistics of %s: %v", x, got)
		}
	}
	plan := fmt.Sprint(rows(t, db, "EXPLAIN QUERY PLAN SELECT g FROM g WHERE run = 2 AND id = 17"))
	if !strings.Contains(plan, "g_by_id_g") {
		t.Errorf("a look-up by (run, id) does not use the id's index: %s", plan)
	}
}

// TestKey loads a table keyed by all its columns (Table.Key, as schema
// keys an execution's table): the table is created WITHOUT ROWID with
// that primary key, a row equal to one it holds is stored once, a
// record that leaves a column of the key without a value is counted as
// malformed (the answers say that records were lost) and not stored,
// and a second run's rows are stored beside the first's.
func TestKey(t *testing.T) {
	tables := []Table{{ID: 1, Name: "g", Columns: []Column{{"id", "INTEGER", true}, {"g", "INTEGER", true}},
		Key: []string{"id", "g"}, Indexes: []Index{{Name: "g_by_g_id", Columns: []string{"g", "id"}}}}}
	const tuples = 3000
	dir := t.TempDir()
	for run := 1; run <= 2; run++ {
		logs := record(t, func() {
			for i := 0; i < tuples; i++ {
				id := int64(pmmrt.NextID())
				pmmrt.Emit2(1, id, int64(i%7))
				if i%3 == 0 {
					pmmrt.Emit2(1, id, int64(i%7)) // the same row again
				}
			}
			var r pmmrt.Rec
			r.Int(int64(pmmrt.NextID())) // no g
			pmmrt.Emit(1, &r)
		})
		st, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(logs, "logs"), tables, Run{Command: "test", Questions: []string{"q"}})
		if err != nil {
			t.Fatal(err)
		}
		if st.Run != int64(run) || st.Malformed != 1 {
			t.Fatalf("run %d: loaded as run %d, %d malformed records, want 1", run, st.Run, st.Malformed)
		}
	}
	db := open(t, dir)
	got := rows(t, db, "SELECT sql FROM sqlite_master WHERE name = 'g'")
	if want := `[[text:CREATE TABLE "g" (run INTEGER, "id" INTEGER, "g" INTEGER, PRIMARY KEY (run, "id", "g")) WITHOUT ROWID]]`; fmt.Sprint(got) != want {
		t.Errorf("table\n%v\nwant\n%v", got, want)
	}
	got = rows(t, db, "SELECT run, count(*), count(DISTINCT id), count(g) FROM g GROUP BY run")
	if want := fmt.Sprintf("[[int:1 int:%d int:%d int:%d] [int:2 int:%d int:%d int:%d]]", tuples, tuples, tuples, tuples, tuples, tuples); fmt.Sprint(got) != want {
		t.Errorf("rows by run: %v, want %s", got, want)
	}
	if got := rows(t, db, "SELECT count(*) FROM pmm_incomplete WHERE question = 'q' AND reason LIKE '%1 malformed%'"); fmt.Sprint(got) != "[[int:2]]" {
		t.Errorf("runs whose answers say a record was lost: %v, want 2", got)
	}
	if got := rows(t, db, "SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'g' AND idx = 'g'"); fmt.Sprint(got) != "[[int:1]]" {
		t.Errorf("statistics of the key: %v", got)
	}
	if got := rows(t, db, "PRAGMA integrity_check"); fmt.Sprint(got) != "[[text:ok]]" {
		t.Errorf("integrity_check: %v", got)
	}
}

// TestCopy loads a run into a table keyed (id, g) with an index by
// (g, id), as an earlier pmm did, then three runs into the same table
// with a copy by (g, id) instead (Table.Copies), the second of them in
// several sorted parts spilled to a temporary file and merged (the last
// part with goroutines too far apart to sort them packed): the copy is
// made with the first run's rows, the index it replaces is dropped, a
// run whose rows are missing from the copy (as one merged from a
// database without it) gets them at the next load, no temporary file
// is left, and the copy holds exactly the table's rows, each once, in
// every run.
func TestCopy(t *testing.T) {
	defer func(n int) { copyRows = n }(copyRows)
	copyRows = 1000
	cols := []Column{{"id", "INTEGER", true}, {"g", "INTEGER", true}}
	before := []Table{{ID: 1, Name: "g", Columns: cols, Key: []string{"id", "g"},
		Indexes: []Index{{Name: "g_by_g_id", Columns: []string{"g", "id"}}}}}
	after := []Table{{ID: 1, Name: "g", Columns: cols, Key: []string{"id", "g"},
		Copies: []Copy{{Name: "g_by_g", Columns: []string{"g", "id"}, Replaces: "g_by_g_id"}}}}
	dir, tmp := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the sorted parts are spilled
	for run, tuples := range []int{500, 700, 3500, 100} {
		if run == 3 { // run 2 as if merged from a database without the copy
			db := open(t, dir)
			if _, err := db.Exec("DELETE FROM g_by_g WHERE run = 2"); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
		logs := record(t, func() {
			for i := 0; i < tuples; i++ {
				id, g := int64(pmmrt.NextID()), int64(i*7919%13)
				if i > 3000 {
					g = int64(i) << 30 // too far apart to be sorted packed
				}
				pmmrt.Emit2(1, id, g)
				if i%5 == 0 {
					pmmrt.Emit2(1, id, g) // the same row again
				}
			}
		})
		tables := after
		if run == 0 {
			tables = before
		}
		st, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(logs, "logs"), tables, Run{Command: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if st.Run != int64(run+1) {
			t.Fatalf("loaded as run %d, want %d", st.Run, run+1)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	db := open(t, dir)
	if got := rows(t, db, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'g'"); len(got) != 0 {
		t.Errorf("indexes of g: %v, want none (the copy replaces g_by_g_id)", got)
	}
	got := rows(t, db, "SELECT sql FROM sqlite_master WHERE name = 'g_by_g'")
	if want := `[[text:CREATE TABLE "g_by_g" (run INTEGER, "g" INTEGER, "id" INTEGER, PRIMARY KEY (run, "g", "id")) WITHOUT ROWID]]`; fmt.Sprint(got) != want {
		t.Errorf("copy\n%v\nwant\n%v", got, want)
	}
	got = rows(t, db, "SELECT run, count(*) FROM g_by_g GROUP BY run")
	if want := "[[int:1 int:500] [int:2 int:700] [int:3 int:3500] [int:4 int:100]]"; fmt.Sprint(got) != want {
		t.Errorf("rows of the copy by run: %v, want %s", got, want)
	}
	for _, q := range []string{"SELECT run, id, g FROM g EXCEPT SELECT run, id, g FROM g_by_g", "SELECT run, id, g FROM g_by_g EXCEPT SELECT run, id, g FROM g"} {
		if got := rows(t, db, "SELECT count(*) FROM ("+q+")"); fmt.Sprint(got) != "[[int:0]]" {
			t.Errorf("%s: %v rows, want none", q, got)
		}
	}
	if got := rows(t, db, "SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'g_by_g'"); fmt.Sprint(got) != "[[int:1]]" {
		t.Errorf("statistics of the copy: %v", got)
	}
	if got := rows(t, db, "PRAGMA integrity_check"); fmt.Sprint(got) != "[[text:ok]]" {
		t.Errorf("integrity_check: %v", got)
	}
}
