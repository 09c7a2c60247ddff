package static

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// schemaVersion changes whenever the content Build writes for the same
// input changes (names, resolution), so that old databases are not
// reused by a newer pmm whose version string did not change. A change of
// the tables themselves needs no bump: the fingerprint hashes the schema.
const schemaVersion = 3

// fingerprint hashes everything the database depends on: the
// configuration, the environment the go command reads (GOFLAGS, GOOS,
// GOARCH, CGO_ENABLED, GOEXPERIMENT), go.mod, go.sum, go.work, and the
// path and content of every Go file of the module. Walking the module
// instead of hashing the files of the last load also notices new files.
func fingerprint(root string, cfg Config) (string, error) {
	h := sha256.New()
	dir, _ := filepath.Rel(root, cfg.Dir)
	fmt.Fprintf(h, "schema=%d\n%s\ndir=%s\npatterns=%q\ntests=%v\ntags=%q\ncallgraph=%s\nescape=%v\npmm=%s\ngo=%s\n",
		schemaVersion, schema, dir, cfg.Patterns, cfg.Tests, cfg.Tags, cfg.CallGraph, cfg.Escape, cfg.Version, runtime.Version())
	for _, v := range []string{"GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT", "GOWORK"} {
		fmt.Fprintf(h, "%s=%s\n", v, os.Getenv(v))
	}
	for _, name := range []string{"go.mod", "go.sum", "go.work", "go.work.sum"} {
		if err := HashFile(h, filepath.Join(root, name), name); err != nil {
			return "", err
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path == root {
				return nil
			}
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		return HashFile(h, path, filepath.ToSlash(rel))
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HashFile adds a file's name and content to h; a missing file counts as
// absent, which differs from empty. Stages that key their own reuse on
// files hash them the same way.
func HashFile(h io.Writer, path, name string) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		fmt.Fprintf(h, "absent %s\n", name)
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(h, "file %s\n", name)
	n, err := io.Copy(h, f)
	fmt.Fprintf(h, "\n%d\n", n)
	return err
}

// reusable reports whether the database at path was built from inputs
// with this fingerprint, and its counts of functions and calls.
func reusable(ctx context.Context, path, print string) ([2]int, bool) {
	var counts [2]int
	if _, err := os.Stat(path); err != nil {
		return counts, false
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return counts, false
	}
	defer db.Close()
	var stored string
	err = db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'fingerprint'").Scan(&stored)
	if err != nil || stored != print {
		return counts, false
	}
	err = db.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM functions), (SELECT count(*) FROM calls)").Scan(&counts[0], &counts[1])
	return counts, err == nil
}
