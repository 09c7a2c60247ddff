// Package golden compares the output of a test with a golden file, or
// rewrites the file when the test runs with its package's -update flag.
package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// Check compares got with the file at path; with update, it writes got
// there instead, creating its directory if needed.
func Check(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the output (run the test with -update to rewrite it):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
