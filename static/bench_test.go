package static

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchModule is a real module of about 28,000 lines of non-test Go
// (45,000 with tests) and no dependencies, fetched through the module proxy.
const benchModule = "github.com/expr-lang/expr@v1.16.9"

// BenchmarkBuildVsVet measures, in one run and on the same module, the
// time to build static.db from scratch against "go vet ./..." after the
// same source change, both with a warm build cache for the standard
// library; and the time of the reuse path when nothing changed.
//
//	go test -run '^$' -bench BuildVsVet -benchtime 3x ./static/
//
// Metrics: x-vet (build / vet after a change), x-vet-cached (build / vet
// whose results are cached), s-build, s-vet, s-reuse.
func BenchmarkBuildVsVet(b *testing.B) {
	if testing.Short() {
		b.Skip("fetches a module through the module proxy")
	}
	dir := fetchModule(b, benchModule)
	out := filepath.Join(b.TempDir(), "static.db")
	cfg := Config{Dir: dir, Output: out, Tests: true} // vet checks test files too
	ctx := context.Background()
	vet(b, dir) // warm the build cache
	var build, vetted, cached, reuse time.Duration
	for i := 0; i < b.N; i++ {
		// A change to every file: vet must analyse the module again, and
		// static.db must be rebuilt.
		touchGoFiles(b, dir, fmt.Sprintf("// change %d\n", i))
		vetted += vet(b, dir)
		cached += vet(b, dir)
		start := time.Now()
		if res, err := Build(ctx, cfg); err != nil || res.Reused {
			b.Fatalf("Build: %v (reused %v)", err, res != nil && res.Reused)
		}
		build += time.Since(start)
		start = time.Now()
		if res, err := Build(ctx, cfg); err != nil || !res.Reused {
			b.Fatalf("second Build: %v, not reused", err)
		}
		reuse += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(build.Seconds()/vetted.Seconds(), "x-vet")
	b.ReportMetric(build.Seconds()/cached.Seconds(), "x-vet-cached")
	b.ReportMetric(build.Seconds()/n, "s-build")
	b.ReportMetric(vetted.Seconds()/n, "s-vet")
	b.ReportMetric(reuse.Seconds()/n, "s-reuse")
}

// fetchModule downloads module through the proxy and returns a writable
// copy of it; the benchmark is skipped when the proxy cannot be reached.
func fetchModule(b *testing.B, module string) string {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	data, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(data, &info); err != nil || jerr != nil || info.Dir == "" {
		b.Skipf("cannot download %s through the module proxy (%v %s); skipping", module, err, info.Error)
	}
	dir := b.TempDir()
	if err := os.CopyFS(dir, os.DirFS(info.Dir)); err != nil {
		b.Fatal(err)
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chmod(path, map[bool]fs.FileMode{true: 0o755, false: 0o644}[d.IsDir()])
	})
	if err != nil {
		b.Fatal(err)
	}
	download := exec.Command("go", "mod", "download")
	download.Dir = dir
	if out, err := download.CombinedOutput(); err != nil {
		b.Skipf("cannot download the dependencies of %s: %v\n%s", module, err, out)
	}
	return dir
}

// vet runs go vet ./... in dir. Its findings are not errors here; a
// failure to build is.
func vet(b *testing.B, dir string) time.Duration {
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed := time.Since(start)
	if err != nil && (strings.Contains(string(out), "[build failed]") || strings.Contains(string(out), "cannot find")) {
		b.Fatalf("go vet: %v\n%s", err, out)
	}
	return elapsed
}

// touchGoFiles appends text to every Go file under dir.
func touchGoFiles(b *testing.B, dir, text string) {
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		return appendTo(path, text)
	})
	if err != nil {
		b.Fatal(err)
	}
}
