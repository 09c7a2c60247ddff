// Package golden compares the output of a test with a golden file, or
// rewrites the file when the test runs with its package's -update flag.
package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
		t.Errorf("%s differs from the output (run the test with -update to rewrite it): %s", path, FirstDifference(got, string(want), "got", "want"))
	}
}

// context is how many lines FirstDifference shows before the first that
// differs; it shows up to twice as many from it on.
const context = 4

// FirstDifference shows where a and b, named nameA and nameB, first
// differ: the line number, and the lines of each around it. Generated
// files are long: the whole of both would bury the change.
func FirstDifference(a, b, nameA, nameB string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	i := 0
	for i < len(al) && i < len(bl) && al[i] == bl[i] {
		i++
	}
	around := func(lines []string) string {
		shown := lines[min(len(lines), max(0, i-context)):min(len(lines), i+2*context)]
		if i+2*context >= len(lines) {
			shown = append(shown[:len(shown):len(shown)], "(end)")
		}
		return strings.Join(shown, "\n")
	}
	return fmt.Sprintf("first at line %d (of %d and %d)\n--- %s ---\n%s\n--- %s ---\n%s",
		i+1, len(al), len(bl), nameA, around(al), nameB, around(bl))
}
