package load

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"pmm.dev/pmm/rt/pmmrt"
)

// keyedTable is an attribute table keyed by (run, id, n), as schema
// makes them.
var keyedTable = Table{ID: 1, Name: "p", Key: []string{"id", "n"},
	Columns: []Column{{"id", "INTEGER", true}, {"n", "INTEGER", false}, {"v", "", false}}}

// TestKeyedTable loads a run into a table keyed by (run, id, n) whose
// records repeat some keys: an identical record is one row, and a
// record whose key holds another value is left out, counted, and makes
// the run's answers incomplete. Batches of 1024 rows put the repeats in
// the batch of the first record and in a later one.
func TestKeyedTable(t *testing.T) {
	const executions = 3000
	dir := record(t, func() {
		for id := int64(1); id <= executions; id++ {
			pmmrt.Emit3(1, id, 1, id*10)
			pmmrt.Emit3(1, id, 2, id*20)
		}
		pmmrt.Emit3(1, 5, 1, 50)       // identical, same batch
		pmmrt.Emit3(1, 7, 2, 999)      // conflicting, same batch
		pmmrt.Emit3(1, 2999, 1, 1)     // conflicting, a later batch
		pmmrt.Emit3(1, 2000, 2, 40000) // identical, a later batch
	})
	st, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(dir, "logs"), []Table{keyedTable}, Run{Command: "test", Questions: []string{"q"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Tuples["p"] != 2*executions || st.Conflicts != 2 {
		t.Errorf("%d rows inserted, %d conflicts; want %d and 2", st.Tuples["p"], st.Conflicts, 2*executions)
	}
	db := open(t, dir)
	got := rows(t, db, "SELECT id, n, v FROM p WHERE id IN (5, 7, 2000, 2999) ORDER BY id, n")
	want := "[[int:5 int:1 int:50] [int:5 int:2 int:100] [int:7 int:1 int:70] [int:7 int:2 int:140] " +
		"[int:2000 int:1 int:20000] [int:2000 int:2 int:40000] [int:2999 int:1 int:29990] [int:2999 int:2 int:59980]]"
	if fmt.Sprint(got) != want {
		t.Errorf("rows\n%v\nwant\n%v", got, want)
	}
	if got := fmt.Sprint(rows(t, db, "SELECT question, reason FROM pmm_incomplete")); !strings.Contains(got, "2 with the key of another record") {
		t.Errorf("pmm_incomplete: %s", got)
	}
	if got := fmt.Sprint(rows(t, db, "SELECT sql FROM sqlite_master WHERE name = 'p'")); !strings.Contains(got, `PRIMARY KEY (run, "id", "n")) WITHOUT ROWID`) {
		t.Errorf("the table is not keyed: %s", got)
	}
}

// TestRekey loads into a pmm.db whose table an earlier pmm made without
// a key (and without the column n): the load rebuilds it keyed, keeps
// its rows (identical ones as one) and adds the run's.
func TestRekey(t *testing.T) {
	dir := record(t, func() { pmmrt.Emit3(1, 100, 1, 7) })
	db := open(t, dir)
	for _, stmt := range []string{
		"CREATE TABLE p (run INTEGER, id INTEGER, v, old TEXT)",
		"CREATE INDEX p_by_id ON p (run, id)",
		"INSERT INTO p VALUES (9, 1, 'a', 'x'), (9, 1, 'a', 'x'), (9, 2, 'b', NULL)",
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	// The earlier rows have no n: keyed by (run, id, n) they would lose
	// it, and the load fails instead.
	if _, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(dir, "logs"), []Table{keyedTable}, Run{Command: "test"}); err == nil || !strings.Contains(err.Error(), "cannot hold") {
		t.Fatalf("load into a table whose rows lack a key: %v", err)
	}
	db = open(t, dir)
	if _, err := db.Exec("ALTER TABLE p ADD COLUMN n INTEGER; UPDATE p SET n = 1"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(dir, "logs"), []Table{keyedTable}, Run{Command: "test"})
	if err != nil || st.Tuples["p"] != 1 || st.Conflicts != 0 {
		t.Fatalf("load: %v, %+v", err, st)
	}
	db = open(t, dir)
	got := rows(t, db, "SELECT run, id, n, v, old FROM p ORDER BY run, id")
	want := "[[int:1 int:100 int:1 int:7 null] [int:9 int:1 int:1 text:a text:x] [int:9 int:2 int:1 text:b null]]"
	if fmt.Sprint(got) != want {
		t.Errorf("rows\n%v\nwant\n%v", got, want)
	}
	if got := fmt.Sprint(rows(t, db, "SELECT type, name FROM sqlite_master WHERE tbl_name = 'p' ORDER BY type")); got != "[[text:table text:p]]" {
		t.Errorf("p's table and indexes: %s (want the table alone, its old index gone)", got)
	}
	if got := fmt.Sprint(rows(t, db, "SELECT sql FROM sqlite_master WHERE name = 'p'")); !strings.Contains(got, `PRIMARY KEY (run, "id", "n")) WITHOUT ROWID`) {
		t.Errorf("the table is not keyed: %s", got)
	}
}
