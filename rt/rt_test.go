package rt

import (
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
	files := Sources(importPath, "/home/u/proj/.pmm", 7, nil, true)
	if _, ok := Sources(importPath, "/home/u/proj/.pmm", 7, nil, false)[OutsideProfileFile]; ok {
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
	if want := strings.ReplaceAll(string(onDisk), `"pmm.dev/pmm/rt/logfmt"`, `"`+importPath+`/logfmt"`); string(files["counters.go"]) != want {
		t.Errorf("counters.go is\n%s\nwant the file on disk, its import of logfmt replaced:\n%s", files["counters.go"], want)
	}
	onDisk, _ = os.ReadFile("logfmt/rec.go")
	if string(files["logfmt/rec.go"]) != string(onDisk) {
		t.Error("logfmt/rec.go differs from the file on disk")
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
