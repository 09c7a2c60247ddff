package archtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the import path of pmm's module.
const module = "pmm.dev/pmm"

// stages are pmm's packages in the order data flows through them, by
// import path relative to the module: a package may import only the
// packages of earlier stages, never one of its own stage or of a later
// one. Packages of one stage are independent of each other. A new
// package must be placed here (and in docs/ARCHITECTURE.md).
var stages = [][]string{
	{"internal/golden", "internal/reftrace", "internal/archtest", "internal/funcname", "internal/tmpfs", "internal/sourcedeps"}, // helpers that import nothing of pmm
	{"spec", "static"}, // the two inputs: the questions, the Go program
	{"internal/stagetest", "internal/refeval", "internal/progen"}, // for tests: the first stages; the reference answers; random programs
	{"sites", "schema"},                 // each reads the checked program (sites also static.db)
	{"plan"},                            // what each site records and tests at run time, and the temporal reasoning
	{"instrument"},                      // the generated code of the plan
	{"rewrite"},                         // the edits merged into copies of the sources
	{"rt/logfmt"},                       // the log format, written by the runtime, read by the loader
	{"rt", "rt/pmmrt"},                  // the injected runtime, and its sources for the overlay
	{"rt/load"},                         // the logs into pmm.db
	{"cmd/pmm", "internal/dataflow"},    // the command line drives every stage; a test runs them all, checking no stage changes an earlier output
	{"e2e/realmodules", "e2e/difftest"}, // run the pmm command on real modules, and on random programs against the reference
}

// testOnly are helpers for tests: only test files may import them.
var testOnly = []string{"internal/golden", "internal/stagetest", "internal/tmpfs"}

// copied are the packages that pmm copies into the user's module: they
// may import only the standard library, all the user's module has, and
// each other.
var copied = []string{"rt/logfmt", "rt/pmmrt"}

// edge is an import of one of pmm's packages by another, by import path
// relative to the module; test says the import is in a test file.
type edge struct {
	from, to string
	test     bool
}

// imports is what go list says a package imports.
type imports struct {
	path  string
	edges []edge
	other []string // the imports outside the module, by full path
}

// violations returns what breaks the rules in the imports of pkgs.
func violations(pkgs []imports) []string {
	stage := map[string]int{}
	for i, s := range stages {
		for _, p := range s {
			stage[p] = i
		}
	}
	var out []string
	for _, p := range pkgs {
		if _, ok := stage[p.path]; !ok {
			out = append(out, fmt.Sprintf("%s has no stage: place it in the stages of internal/archtest and in docs/ARCHITECTURE.md", p.path))
			continue
		}
		for _, e := range p.edges {
			if to, ok := stage[e.to]; !ok {
				out = append(out, fmt.Sprintf("%s imports %s, which has no stage", e.from, e.to))
			} else if to >= stage[e.from] {
				out = append(out, fmt.Sprintf("%s imports %s: %s", e.from, e.to, direction(to, stage[e.from])))
			}
			if !e.test && slices.Contains(testOnly, e.to) {
				out = append(out, fmt.Sprintf("%s imports %s, a helper for tests, outside its tests", e.from, e.to))
			}
		}
		if slices.Contains(copied, p.path) {
			for _, e := range p.edges {
				if !e.test && !slices.Contains(copied, e.to) {
					out = append(out, fmt.Sprintf("%s imports %s: it is copied into the user's module, which has only the standard library", p.path, e.to))
				}
			}
			for _, o := range p.other {
				if !standard(o) {
					out = append(out, fmt.Sprintf("%s imports %s: it is copied into the user's module, which has only the standard library", p.path, o))
				}
			}
		}
	}
	return out
}

// direction says why an import from a package of stage from to one of
// stage to breaks the order.
func direction(to, from int) string {
	if to == from {
		return "a package of the same stage"
	}
	return "a package of a later stage"
}

// standard reports whether path is a package of the standard library:
// its first element has no dot.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// listImports lists the module's packages and their imports with go list.
func listImports(t *testing.T) []imports {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,TestImports,XTestImports,Error", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []imports
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
			Error                              *struct{ Err string }
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Error != nil {
			t.Fatalf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		pkg := imports{path: relative(p.ImportPath)}
		add := func(paths []string, test bool) {
			for _, to := range paths {
				switch {
				case to == p.ImportPath: // an external test package imports the package it tests
				case to == module || strings.HasPrefix(to, module+"/"):
					pkg.edges = append(pkg.edges, edge{pkg.path, relative(to), test})
				case !test:
					pkg.other = append(pkg.other, to)
				}
			}
		}
		add(p.Imports, false)
		add(p.TestImports, true)
		add(p.XTestImports, true)
		pkgs = append(pkgs, pkg)
	}
	return pkgs
}

// relative returns the import path of one of pmm's packages relative to
// the module.
func relative(path string) string {
	return strings.TrimPrefix(path, module+"/")
}

// TestDataFlowsOneWay checks the imports of every package of pmm.
func TestDataFlowsOneWay(t *testing.T) {
	pkgs := listImports(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages of %s, want all of them", len(pkgs), module)
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
	// Every package of the order exists: a stage renamed or removed is
	// renamed or removed here too.
	listed := map[string]bool{}
	for _, p := range pkgs {
		listed[p.path] = true
	}
	for _, s := range stages {
		for _, p := range s {
			if !listed[p] {
				t.Errorf("the stages name %s, which go list does not list", p)
			}
		}
	}
}

// TestViolations checks the rules on import edges made up to break them
// (and on some that keep them).
func TestViolations(t *testing.T) {
	tests := []struct {
		name string
		pkg  imports
		want []string // a part of each violation, in order
	}{
		{"earlier stage", imports{path: "instrument", edges: []edge{{"instrument", "sites", false}}}, nil},
		{"later stage", imports{path: "spec", edges: []edge{{"spec", "instrument", false}}}, []string{"spec imports instrument: a package of a later stage"}},
		{"later stage in a test", imports{path: "sites", edges: []edge{{"sites", "rewrite", true}}}, []string{"sites imports rewrite: a package of a later stage"}},
		{"runtime importing the loader", imports{path: "rt/pmmrt", edges: []edge{{"rt/pmmrt", "rt/load", false}}}, []string{"rt/pmmrt imports rt/load: a package of a later stage", "rt/pmmrt imports rt/load: it is copied into the user's module"}},
		{"same stage", imports{path: "schema", edges: []edge{{"schema", "sites", false}}}, []string{"schema imports sites: a package of the same stage"}},
		{"the stage just before", imports{path: "rewrite", edges: []edge{{"rewrite", "instrument", false}}}, nil},
		{"unplaced package", imports{path: "memprof", edges: []edge{{"memprof", "spec", false}}}, []string{"memprof has no stage"}},
		{"unplaced import", imports{path: "cmd/pmm", edges: []edge{{"cmd/pmm", "codegen", false}}}, []string{"cmd/pmm imports codegen, which has no stage"}},
		{"test helper in a test", imports{path: "sites", edges: []edge{{"sites", "internal/stagetest", true}}}, nil},
		{"test helper outside tests", imports{path: "sites", edges: []edge{{"sites", "internal/stagetest", false}}}, []string{"a helper for tests, outside its tests"}},
		{"runtime importing the standard library", imports{path: "rt/pmmrt", other: []string{"sync/atomic"}}, nil},
		{"runtime importing another module", imports{path: "rt/pmmrt", other: []string{"golang.org/x/sys/unix"}}, []string{"rt/pmmrt imports golang.org/x/sys/unix: it is copied into the user's module"}},
		{"runtime importing pmm", imports{path: "rt/pmmrt", edges: []edge{{"rt/pmmrt", "internal/reftrace", false}}}, []string{"rt/pmmrt imports internal/reftrace: it is copied into the user's module"}},
		{"runtime importing the log format", imports{path: "rt/pmmrt", edges: []edge{{"rt/pmmrt", "rt/logfmt", false}}}, nil},
		{"log format importing pmm", imports{path: "rt/logfmt", edges: []edge{{"rt/logfmt", "internal/funcname", false}}}, []string{"rt/logfmt imports internal/funcname: it is copied into the user's module"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := violations([]imports{tt.pkg})
			ok := len(got) == len(tt.want)
			for i := 0; ok && i < len(got); i++ {
				ok = strings.Contains(got[i], tt.want[i])
			}
			if !ok {
				t.Errorf("violations:\n%q\nwant ones with:\n%q", got, tt.want)
			}
		})
	}
}
