package realmodules

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// accountSets are go-toml's principals in TestAccountsExact: the
// decoder and encoder package and the parser, its internal packages
// (characters, danger, tracker) agents; then the parser alone, which
// makes the decoder an agent too, of which the parser is the one
// principal below many of its calls.
var accountSets = [][]string{
	{"github.com/pelletier/go-toml/v2", "github.com/pelletier/go-toml/v2/unstable"},
	{"github.com/pelletier/go-toml/v2/unstable"},
}

// TestAccountsExact instruments go-toml, test files included, for the
// count of allocations per line and memory account (accountPatterns),
// runs its tests as TestAllocationsExact does (under -race, the heap
// profile at MemProfileRate = 1), and compares pmm's counts with the
// profile's, where each sample's account is computed from its stack by
// the principal–agent rule, independently of pmm: the nearest frame,
// from the allocating one outwards to the goroutine's root, of a
// function whose package is a principal; none if no frame is. Only the
// lines where pmm records the one allocation site are compared (as
// TestAllocationsExact's classRecorded). pmm writes an agent's account
// as a constant where the call graph says it has one (cmd/pmm
// knownAccounts), and reads the goroutine's otherwise: both are
// checked here against the runtime's stacks.
func TestAccountsExact(t *testing.T) {
	if os.Getenv("PMM_REAL_MODULES") == "" {
		t.Skip("slow: set PMM_REAL_MODULES=1 (go test ./e2e/realmodules -run TestAccountsExact -v)")
	}
	for _, patterns := range accountSets {
		t.Run(strings.Join(patterns, "+"), func(t *testing.T) { checkAccounts(t, patterns) })
	}
}

func checkAccounts(t *testing.T, accountPatterns []string) {
	m := module{Path: "github.com/pelletier/go-toml/v2", Version: "v2.2.2", Packages: []string{".", "./unstable"}}
	dir := fetch(t, m)
	startCollectorEarly(t, dir, m.packages())
	modPath := modulePath(t, dir)
	q := fmt.Sprintf(`; Allocations per line and memory account.
(defevent charged :definition
  ((a l acc) s.t. (exists (f k t)
                    (and (allocation a f k t)
                         (allocation-line a l)
                         (allocation-account a %q acc)))))
(defquestion per-line-account :definition (count charged (output input input)))
`, strings.Join(accountPatterns, " "))
	if err := os.WriteFile(filepath.Join(dir, "q.pmm"), []byte(q), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, err := pmm(dir, "instrument", "-tests", "./...", "q.pmm"); err != nil {
		t.Fatalf("pmm instrument: %v\n%s%s", err, out, errOut)
	}
	sites := allocationLines(t, dir)
	sites.boxing = boxingLines(t, dir, modPath)
	constants, reads := accountReadsInOverlay(t, dir, accountPatterns)
	t.Logf("agents' allocation sites: %d write their account as a constant, %d read it at run time", constants, reads)

	got, want := map[[2]string]int64{}, map[[2]string]int64{} // by line and account
	for _, pkg := range m.packages() {
		if err := os.Remove(filepath.Join(dir, ".pmm", "pmm.db")); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		heap := filepath.Join(t.TempDir(), "heap.prof")
		args := []string{"test", pkg, "--", "-race", "-exec", "env GODEBUG=randautoseed=0,memprofilerate=1,profstackdepth=1024",
			"-memprofile", heap, "-memprofilerate", "1"}
		if out, errOut, err := pmm(dir, args...); err != nil {
			t.Fatalf("pmm test %s: %v\n%s%s", pkg, err, tail(out, 40), tail(errOut, 40))
		}
		db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range queryStringsDB(t, db, `SELECT l || char(9) || acc || char(9) || count FROM per_line_account WHERE run = (SELECT max(id) FROM runs)`) {
			f := strings.Split(r, "\t")
			n, _ := strconv.ParseInt(f[2], 10, 64)
			got[[2]string{f[0], f[1]}] += n
		}
		db.Close()
		p := readProfile(t, heap)
		objects := sampleIndex(t, p, "alloc_objects")
		for _, s := range p.Sample {
			if s.Value[objects] == 0 {
				continue
			}
			var frames []profile.Line
			for _, loc := range s.Location {
				frames = append(frames, loc.Line...) // innermost first
			}
			if class, line := classify(frames, modPath, sites); class == classRecorded {
				want[[2]string{line, stackAccount(frames, accountPatterns)}] += s.Value[objects]
			}
		}
	}
	// Compare at the lines where pmm records the one site.
	compared := map[string]bool{}
	for k := range want {
		compared[k[0]] = true
	}
	var keys [][2]string
	for k := range got {
		l := k[0]
		if sites.recorded[l] && !sites.skipped[l] && !sites.stack[l] && !sites.boxing[l] {
			compared[l] = true
			keys = append(keys, k)
		}
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	equal, accounted := 0, 0
	for _, k := range keys {
		if got[k] != want[k] {
			t.Errorf("%s, account %q: pmm counts %d allocations, the heap profile's stacks %d", k[0], k[1], got[k], want[k])
			continue
		}
		equal++
		if k[1] != "" {
			accounted++
		}
	}
	t.Logf("%d lines compared: %d (line, account) counts equal, %d of them charged to a principal", len(compared), equal, accounted)
	if accounted == 0 {
		t.Errorf("no allocation charged to a principal: the test compares nothing of the accounts")
	}
}

// stackAccount is the account of an allocation whose stack is frames
// (innermost first): the first principal among the packages of the
// functions, from the allocating frame outwards; "" for none.
func stackAccount(frames []profile.Line, accountPatterns []string) string {
	for _, f := range frames {
		pkg := packageOf(f.Function.Name)
		for _, p := range accountPatterns {
			if pkg == p {
				return p
			}
		}
	}
	return ""
}

// packageOf is the import path of a function's runtime name:
// "example.com/m/pkg.(*T).M" is in example.com/m/pkg.
func packageOf(name string) string {
	slash := strings.LastIndex(name, "/")
	if dot := strings.Index(name[slash+1:], "."); dot >= 0 {
		return name[:slash+1+dot]
	}
	return name
}

// accountReadsInOverlay counts the allocation sites of the overlay's
// generated code that write an account as a constant in an unaccounted
// package (an agent's), and those that read it at run time.
func accountReadsInOverlay(t *testing.T, dir string, accountPatterns []string) (constants, reads int) {
	t.Helper()
	overlay := filepath.Join(dir, ".pmm", "overlay")
	err := filepath.Walk(overlay, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || !strings.HasPrefix(info.Name(), "pmm_gen_") {
			return err
		}
		rel, _ := filepath.Rel(overlay, filepath.Dir(path))
		pkg := modulePathOf(filepath.ToSlash(rel))
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		own := slices.Contains(accountPatterns, pkg)
		for _, l := range strings.Split(string(src), "\n") {
			// An account written as a constant: r.Str of "" or of one
			// pattern (the set's key is all of them).
			arg, ok := strings.CutPrefix(strings.TrimSpace(l), "r.Str(")
			switch {
			case strings.Contains(l, "[pmm__rt.Account("):
				reads++
			case ok && !own && (arg == `"")` || slices.ContainsFunc(accountPatterns, func(p string) bool { return arg == strconv.Quote(p)+")" })):
				constants++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return constants, reads
}

// modulePathOf is go-toml's import path of a directory of the module.
func modulePathOf(rel string) string {
	if rel == "." {
		return "github.com/pelletier/go-toml/v2"
	}
	return "github.com/pelletier/go-toml/v2/" + rel
}
