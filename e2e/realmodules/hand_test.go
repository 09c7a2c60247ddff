package realmodules

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Hand-written instrumentation: the peers a pmm build is compared with
// in the same run, what an engineer would write by hand for the same
// answer, with none of pmm's machinery (no gate, no log, no ids). They
// are made by editing the text of every function body of the module's
// non-test files, as pmm instruments them, into an overlay of their own.

// handKinds are the kinds of hand-written instrumentation.
const (
	// handCount adds to a counter of the function's, atomically (exact
	// under concurrency, as pmm's count), at the top of each body.
	handCount = "count"
	// handDurations reads the clock at the top of each body and, in a
	// deferred closure, again, storing the duration into a slot of a
	// ring taken by an atomic add: the floor of an exact duration per
	// execution (two clock reads, a defer, an atomic add and a store),
	// which keeps no record of which execution it was.
	handDurations = "durations"
)

// handOverlay writes into out the overlay of the module in dir with
// kind's instrumentation in every function body of its non-test files,
// and returns the overlay's path.
func handOverlay(t testing.TB, dir, out, kind string) string {
	replace := map[string]string{}
	counters := map[string]int{} // functions per package directory
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != dir && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pkgDir := filepath.Dir(path)
		edited, n, err := handEdit(path, src, kind, counters[pkgDir])
		if err != nil || n == 0 {
			return err
		}
		counters[pkgDir] += n
		file := filepath.Join(out, fmt.Sprintf("%d-%s", len(replace), filepath.Base(path)))
		replace[path] = file
		return os.WriteFile(file, edited, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	dirs := make([]string, 0, len(counters))
	for d := range counters {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for i, d := range dirs {
		// The package's counters (or ring), in a file of its own in its
		// directory; its package name is any of the directory's files'.
		name, err := packageName(d)
		if err != nil {
			t.Fatal(err)
		}
		var decl string
		switch kind {
		case handCount:
			decl = fmt.Sprintf("var zzHandCounts [%d]uint64\n", counters[d])
		case handDurations:
			decl = "var (\n\tzzHandNext  uint64\n\tzzHandRing [1 << 16]int64\n)\n\n" +
				"func zzHandRecord(d int64) { zzHandRing[zzHandAtomic.AddUint64(&zzHandNext, 1)&(1<<16-1)] = d }\n"
			decl = "import zzHandAtomic \"sync/atomic\"\n\n" + decl
		}
		file := filepath.Join(out, fmt.Sprintf("zz-hand-%d.go", i))
		if err := os.WriteFile(file, []byte("package "+name+"\n\n"+decl), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(d, "zz_hand.go")] = file
	}
	js, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, "overlay.json")
	if err := os.WriteFile(path, js, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// handEdit returns src with kind's instrumentation at the top of each
// function body (declarations and literals), the counters numbered from
// first, and how many bodies it edited.
func handEdit(path string, src []byte, kind string, first int) ([]byte, int, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, 0, err
	}
	var bodies []int // offsets just after each body's "{"
	ast.Inspect(f, func(n ast.Node) bool {
		switch fn := n.(type) {
		case *ast.FuncDecl:
			if fn.Body != nil {
				bodies = append(bodies, fset.Position(fn.Body.Lbrace).Offset+1)
			}
		case *ast.FuncLit:
			bodies = append(bodies, fset.Position(fn.Body.Lbrace).Offset+1)
		}
		return true
	})
	if len(bodies) == 0 {
		return nil, 0, nil
	}
	sort.Ints(bodies)
	var b strings.Builder
	last := 0
	for i, at := range bodies {
		b.Write(src[last:at])
		switch kind {
		case handCount:
			fmt.Fprintf(&b, "zzHandAtomic.AddUint64(&zzHandCounts[%d], 1);", first+i)
		case handDurations:
			b.WriteString("zzHandStart := zzHandTime.Now(); defer func() { zzHandRecord(int64(zzHandTime.Since(zzHandStart))) }();")
		}
		last = at
	}
	b.Write(src[last:])
	// The import, after the package clause (a second import declaration
	// before the file's own is legal Go).
	imports := "\nimport zzHandAtomic \"sync/atomic\"\n"
	if kind == handDurations {
		imports = "\nimport zzHandTime \"time\"\n"
	}
	text := b.String()
	at := fset.Position(f.Name.End()).Offset
	return []byte(text[:at] + ";" + imports + text[at:]), len(bodies), nil
}

// packageName returns the package name most of the non-test Go files
// in dir have (a generator beside them, "//go:build ignore", may have
// another).
func packageName(dir string) (string, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	count := map[string]int{}
	best := ""
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.PackageClauseOnly)
		if err != nil {
			return "", err
		}
		count[f.Name.Name]++
		if count[f.Name.Name] > count[best] {
			best = f.Name.Name
		}
	}
	if best == "" {
		return "", fmt.Errorf("%s: no Go file", dir)
	}
	return best, nil
}

// TestHandOverlay builds testdata/promoted (methods, closures, generics,
// several files) with each kind of hand-written instrumentation and
// checks that it prints what the plain program prints, and, for counts,
// that the overlay edited every function body: the peers of the
// benchmarks must compile and behave on code they were not written for.
func TestHandOverlay(t *testing.T) {
	const module = "../../testdata/promoted"
	plain := exec.Command("go", "run", ".")
	plain.Dir = module
	want, err := plain.Output()
	if err != nil {
		t.Fatalf("go run: %v", err)
	}
	for _, kind := range []string{handCount, handDurations} {
		t.Run(kind, func(t *testing.T) {
			tmp := t.TempDir()
			overlay := handOverlay(t, module, tmp, kind)
			bin := filepath.Join(tmp, "prog")
			build := exec.Command("go", "build", "-overlay", overlay, "-o", bin, ".")
			build.Dir = module
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build -overlay: %v\n%s", err, out)
			}
			// Every package's hand-written state is in the program.
			nm, err := exec.Command("go", "tool", "nm", bin).Output()
			if err != nil {
				t.Fatal(err)
			}
			state := map[string]string{handCount: "zzHandCounts", handDurations: "zzHandRing"}[kind]
			for _, pkg := range []string{"main.", "example.com/promoted/shapes.", "example.com/promoted/gen."} {
				if !strings.Contains(string(nm), " "+pkg+state) {
					t.Errorf("%s%s is not in the program", pkg, state)
				}
			}
			got, err := exec.Command(bin).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", bin, err, got)
			}
			if string(got) != string(want) {
				t.Errorf("with %s instrumentation the program printed\n%s\nplainly\n%s", kind, got, want)
			}
		})
	}
}
