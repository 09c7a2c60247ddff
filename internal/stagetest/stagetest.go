// Package stagetest runs the first stages of pmm for the tests of the
// later ones: the static database of a test module, and its questions.
package stagetest

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// StaticDB builds the static database of the module in dir, in a
// temporary directory, and opens it read-only until the test ends.
func StaticDB(t testing.TB, dir string) (*static.Result, *sql.DB) {
	t.Helper()
	return StaticDBWith(t, static.Config{Dir: dir})
}

// StaticDBWith is StaticDB with the configuration cfg (its Output is
// set to a temporary file).
func StaticDBWith(t testing.TB, cfg static.Config) (*static.Result, *sql.DB) {
	t.Helper()
	cfg.Output = filepath.Join(t.TempDir(), "static.db")
	res, err := static.Build(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+res.Path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return res, db
}

// Compile compiles PMM text, failing the test on errors.
func Compile(t testing.TB, name, text string) *spec.Program {
	t.Helper()
	prog, err := spec.Compile(spec.Source{Name: name, Text: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// CompileFile compiles a PMM file, failing the test on errors.
func CompileFile(t testing.TB, path string) *spec.Program {
	t.Helper()
	srcs, err := spec.ReadFiles(path)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := spec.Compile(srcs...)
	if err != nil {
		t.Fatal(err)
	}
	return prog
}
