package rt

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestSources(t *testing.T) {
	files := Sources("/home/u/proj/.pmm", 7)
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	want, err := filepath.Glob("pmmrt/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var wantNames []string
	for _, p := range want {
		if !strings.HasSuffix(p, "_test.go") {
			wantNames = append(wantNames, filepath.Base(p))
		}
	}
	wantNames = append(wantNames, ConfigFile)
	sort.Strings(wantNames)
	if strings.Join(names, " ") != strings.Join(wantNames, " ") {
		t.Fatalf("files %v, want %v", names, wantNames)
	}
	onDisk, _ := os.ReadFile("pmmrt/log.go")
	if string(files["log.go"]) != string(onDisk) {
		t.Error("log.go differs from the file on disk")
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, ConfigFile, files[ConfigFile], parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name.Name != "pmmrt" || !strings.Contains(string(files[ConfigFile]), `defaultDir = "/home/u/proj/.pmm"`) {
		t.Errorf("config file:\n%s", files[ConfigFile])
	}
}
