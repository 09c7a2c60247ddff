package rt

import (
	"go/build/constraint"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"pmm.dev/pmm/rt/logfmt"
)

func TestSources(t *testing.T) {
	const importPath = "example.com/m/internal/_pmmrt"
	files := Sources(Config{ImportPath: importPath, Dir: "/home/u/proj/.pmm", Sites: 7, Outside: true})
	if _, ok := Sources(Config{ImportPath: importPath, Dir: "/home/u/proj/.pmm", Sites: 7})[OutsideProfileFile]; ok {
		t.Errorf("%s is in the sources when no answer leaves out allocations outside the module", OutsideProfileFile)
	}
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var wantNames []string
	for _, dir := range []string{"pmmrt", FormatDir} {
		want, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range want {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			if dir == "pmmrt" {
				p = filepath.Base(p)
			}
			wantNames = append(wantNames, filepath.ToSlash(p))
		}
	}
	wantNames = append(wantNames, ConfigFile)
	sort.Strings(wantNames)
	if strings.Join(names, " ") != strings.Join(wantNames, " ") {
		t.Fatalf("files %v, want %v", names, wantNames)
	}
	onDisk, _ := os.ReadFile("pmmrt/counters.go")
	if want := "//go:build " + Language + "\n\n" + strings.ReplaceAll(string(onDisk), `"pmm.dev/pmm/rt/logfmt"`, `"`+importPath+`/logfmt"`); string(files["counters.go"]) != want {
		t.Errorf("counters.go is\n%s\nwant the file on disk, its import of logfmt replaced, at the runtime's language version:\n%s", files["counters.go"], want)
	}
	onDisk, _ = os.ReadFile("logfmt/rec.go")
	if string(files["logfmt/rec.go"]) != "//go:build "+Language+"\n\n"+string(onDisk) {
		t.Error("logfmt/rec.go differs from the file on disk at the runtime's language version")
	}
	onDisk, _ = os.ReadFile("pmmrt/race.go")
	if want := strings.Replace(string(onDisk), "//go:build race\n", "//go:build "+Language+" && race\n", 1); string(files["race.go"]) != want {
		t.Errorf("race.go is\n%s\nwant the file on disk, its constraint and the runtime's language version:\n%s", files["race.go"], want)
	}
	// Every file is compiled at the runtime's language version, whatever
	// the user's go directive (a go 1.2 module could not compile it):
	// that is the version go/build/constraint reads in its //go:build
	// line, as the go command does. A file the runtime's own constraint
	// puts later (live_weak.go, go1.24) is at that.
	for _, name := range names {
		var version string
		for _, line := range strings.Split(string(files[name]), "\n") {
			if constraint.IsGoBuild(line) {
				expr, err := constraint.Parse(line)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				version = constraint.GoVersion(expr)
				break
			}
		}
		if version != Language && !(name == "live_weak.go" && version == "go1.24") {
			t.Errorf("%s is compiled at %q, want %s", name, version, Language)
		}
	}
	if formatImport != reflect.TypeOf(logfmt.Field{}).PkgPath() {
		t.Errorf("formatImport is %s, logfmt's path %s", formatImport, reflect.TypeOf(logfmt.Field{}).PkgPath())
	}
	// Every import of logfmt names the copy; nothing imports pmm's module.
	importsFormat := 0
	fset := token.NewFileSet()
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, files[name], parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "pmm.dev/") {
				t.Errorf("%s imports %s", name, path)
			}
			if path == importPath+"/"+FormatDir {
				importsFormat++
			}
		}
	}
	if importsFormat == 0 {
		t.Error("no file of pmmrt imports the copy of logfmt")
	}
	f, err := parser.ParseFile(fset, ConfigFile, files[ConfigFile], parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name.Name != "pmmrt" || !strings.Contains(string(files[ConfigFile]), `defaultDir = "/home/u/proj/.pmm"`) {
		t.Errorf("config file:\n%s", files[ConfigFile])
	}
}
