package static

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestRootExternalTests checks that the functions of the external test
// package of a module's root package (MODULE_test, whose path does not
// begin with MODULE/) are in the module: they were not, so that a
// question about them instrumented their call sites instead of their
// definitions (github.com/BurntSushi/toml).
func TestRootExternalTests(t *testing.T) {
	res, err := Build(context.Background(), Config{Dir: "../testdata/xtest", Tests: true, Output: filepath.Join(t.TempDir(), "static.db")})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", res.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, name := range []string{"example.com/xtest_test.check", "example.com/xtest_test.TestAdd", "example.com/xtest.Add"} {
		var in int
		if err := db.QueryRow("SELECT in_module FROM functions WHERE name = ?", name).Scan(&in); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if in != 1 {
			t.Errorf("%s is not in the module", name)
		}
	}
}
