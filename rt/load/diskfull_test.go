package load

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"pmm.dev/pmm/internal/tmpfs"
	"pmm.dev/pmm/rt/pmmrt"
)

// TestLoadDiskFull loads a run whose rows do not fit on the disk of
// pmm.db (a 1 MiB tmpfs): the load fails and changes nothing, the
// database stays intact (a new one empty, an old one with its runs), and
// the logs stay; once there is room, the same logs load, once.
func TestLoadDiskFull(t *testing.T) {
	dbDir := filepath.Join(t.TempDir(), "db")
	tmpfs.Mount(t, dbDir, "1m")
	dbPath := filepath.Join(dbDir, "pmm.db")
	tables := []Table{{ID: 1, Name: "pairs", Columns: []Column{{"a", "INTEGER", false}, {"b", "INTEGER", false}}}}
	emit := func(n int) func() {
		return func() {
			for i := 0; i < n; i++ {
				pmmrt.Emit2(1, int64(i), int64(i)*1000003)
			}
		}
	}
	loadInto := func(dir, source string) error {
		_, err := Load(dbPath, filepath.Join(dir, "logs"), tables, Run{Command: source, Start: time.Unix(0, 0), End: time.Unix(1, 0), Source: source})
		return err
	}
	const n = 200000 // several MB of rows
	big := record(t, emit(n))
	logs, _ := filepath.Glob(filepath.Join(big, "logs", "*"))
	loadFails := func() {
		t.Helper()
		if err := loadInto(big, "big"); err == nil {
			t.Fatal("a load larger than the disk succeeded")
		} else {
			t.Logf("the load failed as it must: %v", err)
		}
		if left, _ := filepath.Glob(filepath.Join(big, "logs", "*")); !reflect.DeepEqual(left, logs) {
			t.Fatalf("logs after the failed load: %v, want %v", left, logs)
		}
	}
	loadFails() // into a new pmm.db
	if got := checkIntegrity(t, dbPath); got != "ok" {
		t.Fatalf("a new pmm.db after a failed load: integrity check %q", got)
	}
	small := record(t, emit(10))
	if err := loadInto(small, "small"); err != nil {
		t.Fatal(err)
	}
	loadFails() // into one with a run
	want := [][]string{{"text:ok", "int:1", "int:10"}}
	if got := checkDB(t, dbPath); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the failed load: %q, want %q (integrity, runs, rows)", got, want)
	}
	tmpfs.Remount(t, dbDir, "size=64m")
	if err := loadInto(big, "big"); err != nil {
		t.Fatal(err)
	}
	want = [][]string{{"text:ok", "int:2", fmt.Sprint("int:", 10+n)}}
	if got := checkDB(t, dbPath); !reflect.DeepEqual(got, want) {
		t.Errorf("after the load with room: %q, want %q (integrity, runs, rows)", got, want)
	}
}

// checkIntegrity returns the integrity check of the database at dbPath.
func checkIntegrity(t *testing.T, dbPath string) string {
	t.Helper()
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

// checkDB returns pmm.db's integrity check, its number of runs and of
// rows of pairs.
func checkDB(t *testing.T, dbPath string) [][]string {
	t.Helper()
	if fi, err := os.Stat(dbPath); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("pmm.db: %d bytes", fi.Size())
	}
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return rows(t, db, `SELECT (SELECT group_concat(integrity_check) FROM pragma_integrity_check), (SELECT count(*) FROM runs), (SELECT count(*) FROM pairs)`)
}
