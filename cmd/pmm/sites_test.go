package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runSites runs "pmm sites ARGS" in dir with the database in a
// temporary directory.
func runSites(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "static.db")
	code = run(&env{stdout: &out, stderr: &errOut, dir: abs}, append([]string{"sites", "--db", db}, args...))
	return code, out.String(), errOut.String()
}

func TestSitesSummary(t *testing.T) {
	code, out, errOut := runSites(t, "../../testdata/fig41")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"(built) for example.com/fig41",
		"functions         6", // five definitions and fmt.Println
		"main.go:9   func  main.BOTH",
		"main.go:12  static  call  main.BOTH  main.FOO",
		"main.go:19  static  call  main.IR    main.BAR",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSitesSQL(t *testing.T) {
	query := `SELECT d.name AS def, c.callee FROM calls_static s JOIN functions d ON d.id = s.def_id
		JOIN calls c ON c.id = s.call_id WHERE d.name LIKE 'main.%' AND d.name != 'main.main' ORDER BY s.call_id`
	code, out, errOut := runSites(t, "../../testdata/fig41", "--sql", query)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "def        callee\nmain.BOTH  main.FOO\nmain.BOTH  main.BAR\nmain.IR    main.BAR\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}

	code, out, errOut = runSites(t, "../../testdata/fig41", "--json", "--sql", query)
	if code != exitOK {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var rows []map[string]string
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	if len(rows) != 3 || rows[1]["def"] != "main.BOTH" || rows[1]["callee"] != "main.BAR" {
		t.Errorf("--json rows = %v", rows)
	}
}

func TestSitesErrors(t *testing.T) {
	tests := []struct {
		name string
		dir  string
		args []string
		code int
		want string
	}{
		{"bad flag", "../../testdata/fig41", []string{"--bogus"}, exitUsage, "flag provided but not defined: -bogus"},
		{"bad call graph", "../../testdata/fig41", []string{"--callgraph", "rta"}, exitUsage, `unknown -callgraph "rta"`},
		{"json without sql", "../../testdata/fig41", []string{"--json"}, exitUsage, "-json needs -sql"},
		{"bad SQL", "../../testdata/fig41", []string{"--sql", "SELECT nope FROM functions"}, exitUsage, "-sql: "},
		{"type errors", "../../testdata/static/broken", nil, exitUsage, "main.go:5:2: undefined: undefined"},
		{"no such package", "../../testdata/fig41", []string{"./nothing/here"}, exitUsage, "nothing/here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runSites(t, tt.dir, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tt.code, tt.want)
			}
		})
	}
}

func TestSitesHelp(t *testing.T) {
	var out bytes.Buffer
	if code := run(&env{stdout: &out, stderr: &out, dir: "."}, []string{"help", "sites"}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"Usage: pmm sites", "pmm sites -sql", "-callgraph algorithm"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
}

// TestSitesWritesOnlyPMM checks that the default database goes to .pmm/
// at the module root, with a .gitignore, and that nothing else changes.
func TestSitesWritesOnlyPMM(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../testdata/fig41")); err != nil {
		t.Fatal(err)
	}
	// A .pmm/ left in testdata by running the README's command is not part
	// of the program.
	if err := os.RemoveAll(filepath.Join(dir, ".pmm")); err != nil {
		t.Fatal(err)
	}
	before := listFiles(t, dir)
	var out, errOut bytes.Buffer
	if code := run(&env{stdout: &out, stderr: &errOut, dir: dir}, []string{"sites"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	after := listFiles(t, dir)
	for _, name := range []string{".pmm/.gitignore", ".pmm/static.db"} {
		if after[name] == "" {
			t.Errorf("%s not written", name)
		}
		delete(after, name)
	}
	for name, content := range before {
		if after[name] != content {
			t.Errorf("%s changed", name)
		}
		delete(after, name)
	}
	if len(after) != 0 {
		t.Errorf("unexpected files: %v", after)
	}
	out.Reset()
	if code := run(&env{stdout: &out, stderr: &errOut, dir: dir}, []string{"sites"}); code != exitOK || !strings.Contains(out.String(), "(reused)") {
		t.Errorf("second run: exit %d, output %q; want the database reused", code, out.String())
	}
}

func listFiles(t *testing.T, dir string) map[string]string {
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestSitesEscape asks the allocations table of testdata/allocs with
// -escape: the sites the compiler puts on the heap, and one it keeps on
// the stack (static's TestAllocations checks every site against the
// program's own measure).
func TestSitesEscape(t *testing.T) {
	query := `SELECT f.name, a.kind, a.heap FROM allocations a JOIN functions f ON f.id = a.function_id
		WHERE f.name IN ('main.NewHeap', 'main.NewStack', 'main.Moved') ORDER BY f.name`
	code, out, errOut := runSites(t, "../../testdata/allocs", "-escape", "--sql", query)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "name           kind      heap\nmain.Moved     variable  1\nmain.NewHeap   new       1\nmain.NewStack  new       0\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	code, out, errOut = runSites(t, "../../testdata/allocs")
	if code != exitOK || !strings.Contains(out, "allocations       23") {
		t.Errorf("without -escape: exit %d, the summary lacks the 23 allocation sites:\n%s%s", code, out, errOut)
	}
}
