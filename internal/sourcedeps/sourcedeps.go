// Package sourcedeps makes a test's cached result depend on pmm's own
// sources when the test builds pmm in a child process (go build
// ./cmd/pmm) rather than linking the packages it tests: go test caches
// a passing result under the test binary and the files and environment
// the test process read, so a change to a package the binary does not
// import (instrument, plan, rt, ...) would otherwise replay the result
// of the pmm before it.
package sourcedeps

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Read reads go.mod, go.sum and every .go file of the module at root
// (but testdata and directories whose names begin with . or _), so that
// go test keys the calling test's cached result on them.
func Read(root string) error {
	for _, name := range []string{"go.mod", "go.sum"} {
		if _, err := os.ReadFile(filepath.Join(root, name)); err != nil {
			return err
		}
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			_, err = os.ReadFile(path)
		}
		return err
	})
}
