package load

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	pmmschema "pmm.dev/pmm/schema"
)

// TestLoadTablesClaimed loads a run with no logs and stores its
// counters: every table and index the loader creates in pmm.db must be
// one that schema.Generate keeps questions from naming (LoadTables,
// CellsTable), or a question named after it breaks the load.
func TestLoadTablesClaimed(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	stats := load(t, dir, nil)
	if err := StoreCounters(filepath.Join(dir, "pmm.db"), stats.Run, &Counts{}); err != nil {
		t.Fatal(err)
	}
	db := open(t, dir)
	defer db.Close()
	rows, err := db.Query("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		if name != pmmschema.CellsTable && !slices.Contains(pmmschema.LoadTables, name) {
			t.Errorf("the loader creates %s, which schema.LoadTables does not claim", name)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, name := range pmmschema.LoadTables {
		if !slices.Contains(names, name) {
			t.Errorf("schema.LoadTables claims %s, which the loader does not create (%v)", name, names)
		}
	}
}
