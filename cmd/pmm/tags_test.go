package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRunTags: pmm run builds with the tags of the instrumentation, and
// refuses others, which would run the files they select uninstrumented.
// The module's F is in a file only the tag extra builds; without it, a
// file with another F, which the instrumentation did not see, is built.
func TestRunTags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an instrumented program")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/tags\n\ngo 1.22\n",
		"main.go": `package main

import "fmt"

func main() {
	for i := 0; i < 6; i++ {
		F(i)
	}
	fmt.Println("variant", variant)
}
`,
		"extra.go":      "//go:build extra\n\npackage main\n\nconst variant = \"extra\"\n\nfunc F(i int) int { return i + 1 }\n",
		"plain.go":      "//go:build !extra\n\npackage main\n\nconst variant = \"plain\"\n\nfunc F(i int) int { return i - 1 }\n",
		"questions.pmm": `(defquestion fs :definition ((x i) s.t. (and (function-execution x "main.F") (parameter x 1 i))))` + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rows := func() int {
		t.Helper()
		db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow("SELECT count(*) FROM fs WHERE run = (SELECT max(id) FROM runs)").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Instrumented without tags: the plain F.
	if code, _, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runPMM(t, dir, "run", "--tags", "extra", ".")
	if code != exitUsage || out != "" || !strings.Contains(errOut, `instrument with the same tags (pmm instrument -tags "extra"`) {
		t.Errorf("pmm run --tags extra after pmm instrument without: exit %d, output %q\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".pmm", "pmm.db")); err == nil {
		t.Error("the refused run recorded a run")
	}

	// Instrumented with the tag: pmm run builds with it, given or not.
	if code, _, errOut := runPMM(t, dir, "instrument", "--tags", "extra", "./...", "questions.pmm"); code != exitOK {
		t.Fatalf("pmm instrument --tags extra: exit %d\n%s", code, errOut)
	}
	for _, args := range [][]string{{"run", "."}, {"run", "--tags", "extra", "."}} {
		code, out, errOut := runPMM(t, dir, args...)
		if code != exitOK || out != "variant extra\n" {
			t.Fatalf("pmm %s: exit %d, output %q\n%s", strings.Join(args, " "), code, out, errOut)
		}
		if n := rows(); n != 6 {
			t.Errorf("pmm %s: %d executions of F recorded, want 6", strings.Join(args, " "), n)
		}
	}
	if code, _, errOut := runPMM(t, dir, "run", "--tags", "other", "."); code != exitUsage {
		t.Errorf("pmm run --tags other after pmm instrument --tags extra: exit %d\n%s", code, errOut)
	}
}

func TestTakeTagsFlag(t *testing.T) {
	for _, c := range []struct {
		flags []string
		tags  string
		given bool
		rest  []string
	}{
		{[]string{"-run", "X"}, "", false, []string{"-run", "X"}},
		{[]string{"-tags=a,b", "-v"}, "a,b", true, []string{"-v"}},
		{[]string{"-v", "--tags", "b a"}, "b a", true, []string{"-v"}},
	} {
		tags, given, rest := takeFlag(c.flags, "tags")
		if tags != c.tags || given != c.given || !slices.Equal(rest, c.rest) {
			t.Errorf("takeFlag(%q, tags) = %q, %v, %q; want %q, %v, %q", c.flags, tags, given, rest, c.tags, c.given, c.rest)
		}
	}
	if got := fmt.Sprint(tagList("b,a pmm,b")); got != "[a b]" {
		t.Errorf("tagList: %s, want [a b]", got)
	}
}
