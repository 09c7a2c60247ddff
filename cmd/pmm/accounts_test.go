package main

import (
	"database/sql"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAccounts builds and runs testdata/accounts (seed 002's memory
// accounts) in every mode: per account and type, the objects and heap
// bytes allocated and those still live when main returns must be what
// the program counts of itself (Bufs asked for and kept, by hand; their
// bytes their size, a size class). The allocations of pool, an
// unaccounted agent, are charged to its nearest accounted caller
// (parser, or db through a callback and through parser), those of main
// and of a goroutine parser starts to no account (""). The plain
// program's MemStats must agree with its hand counts. A run that ends
// by os.Exit reads no liveness, and the answers that need it say so.
func TestAccounts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	const module = "../../testdata/accounts"
	types := map[string]string{"Buf": "example.com/accounts/pool.Buf", "rows": "[]int64"}
	accounts := map[string]string{"parser": "example.com/accounts/parser", "db": "example.com/accounts/db/...", "none": ""}
	queries := map[string]string{}
	for name, acc := range accounts {
		for short, typ := range types {
			if short == "rows" && name != "db" {
				continue
			}
			key, cond := name+"_"+short, fmt.Sprintf("acc = '%s' AND t = '%s'", acc, typ)
			queries[key+"_total"] = "SELECT coalesce(sum(count), 0) FROM total_objects WHERE " + cond
			queries[key+"_total_bytes"] = "SELECT coalesce(sum(sum), 0) FROM total_bytes WHERE " + cond
			queries[key+"_live"] = "SELECT coalesce(sum(count), 0) FROM live_objects WHERE " + cond
			queries[key+"_live_bytes"] = "SELECT coalesce(sum(sum), 0) FROM live_bytes_per_account WHERE " + cond
		}
	}
	queries["all_total"] = "SELECT sum(count) FROM total_objects WHERE t = '" + types["Buf"] + "'"
	queries["all_live"] = "SELECT sum(count) FROM live_objects WHERE t = '" + types["Buf"] + "'"
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			out, db := instrumentInMode(t, module, mode)
			want := wantLines(out)
			checkWant(t, db, want, queries)
			// Every allocation has its liveness, and no answer says it
			// is incomplete.
			if got := queryStrings(t, db, "SELECT count(*), sum(b) FROM liveness"); len(got) != 1 || got[0] != "1010 101" {
				t.Errorf("liveness: %v allocations and live ones, want 1010 101 (1000 Bufs and 10 rows, 100 and 1 live)", got)
			}
			if got := queryStrings(t, db, "SELECT question || ': ' || reason FROM pmm_incomplete"); len(got) != 0 {
				t.Errorf("incomplete answers: %v", got)
			}
			// With run-time tests, the totals are added up in cells, a
			// tuple per allocation otherwise.
			cells := queryStrings(t, db, "SELECT count(*) FROM total_objects__cells")[0]
			tuples := queryStrings(t, db, "SELECT count(*) FROM total_objects__alloc")[0]
			if filtered := mode == modeRuntime || mode == modeCombined; filtered != (cells != "0") || filtered != (tuples == "0") {
				t.Errorf("--mode %s: %s cells and %s tuples of total-objects", mode, cells, tuples)
			}
		})
	}
	t.Run("plain", func(t *testing.T) {
		plain := exec.Command("go", "run", ".")
		plain.Dir = module
		b, err := plain.Output()
		if err != nil {
			t.Fatalf("go run: %v", err)
		}
		want, measured := wantLines(string(b)), map[string]string{}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "measured" {
				measured[f[1]] = f[2]
			}
		}
		for _, phase := range []string{"direct", "parser", "db"} {
			for _, unit := range []string{"_objects", "_bytes"} {
				if m, w := measured[phase+unit], want[phase+unit]; m != w || m == "" {
					t.Errorf("%s%s: MemStats measured %q, the program counted %q", phase, unit, m, w)
				}
			}
		}
	})
	t.Run("exit", func(t *testing.T) {
		dir := copyModule(t, module)
		if code, out, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
			t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
		}
		if code, out, errOut := runPMM(t, dir, "run", ".", "--", "exit"); code != exitOK {
			t.Fatalf("pmm run: exit %d\n%s%s", code, out, errOut)
		}
		db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// The accounts are recorded at each allocation: exact still.
		if got := queryStrings(t, db, queries["all_total"]); len(got) != 1 || got[0] != "1000" {
			t.Errorf("all_total after os.Exit: %v, want 1000", got)
		}
		for _, q := range []string{"live-objects", "live-bytes-per-account", "liveness"} {
			got := queryStrings(t, db, "SELECT count(*) FROM pmm_incomplete WHERE question = '"+q+"' AND reason LIKE '%liveness of % objects allocated at this site in % was not read%'")
			if len(got) != 1 || got[0] == "0" {
				t.Errorf("%s after os.Exit: %v reasons that liveness was not read, want some", q, got)
			}
		}
		for _, q := range []string{"total-objects", "total-bytes"} {
			if got := queryStrings(t, db, "SELECT count(*) FROM pmm_incomplete WHERE question = '"+q+"'"); got[0] != "0" {
				t.Errorf("%s after os.Exit: %s reasons, want none (it reads no liveness)", q, got[0])
			}
		}
	})
}

// BenchmarkAccounts is the cost of memory-account questions alone
// (issue 13's target: at most 1.3× the plain run) and of liveness, on
// testdata/accountbench's allocation-heavy benchmark (an accounted
// function whose agent allocates a node and a 100-byte slice), in
// interleaved runs of one benchmark run. Three instrumented builds:
// the account questions (objects and heap bytes per account: added up
// in cells at run time), every allocation and its heap bytes recorded
// as tuples, and the same with the liveness of each. Medians over 7
// rounds of instrumented ÷ plain (x-accounts, x-allocations, x-live),
// what the account questions add per allocation (ns-account-per-alloc),
// and what liveness adds per object over recording it
// (ns-live-per-object). x-accounts-min is the least time of the
// account questions' build over the rounds ÷ the least of the plain
// runs: the machine's load only ever adds time, so the least of several
// runs is the nearest to each build's own, on a loaded machine.
//
//	go test ./cmd/pmm -run '^$' -bench BenchmarkAccounts -benchtime 1x
func BenchmarkAccounts(b *testing.B) {
	variants := map[string]string{
		"accounts":    "", // the module's questions.pmm
		"allocations": `(defquestion allocated :definition ((a h) s.t. (exists (f k t) (and (allocation a f k t) (allocation-heap-bytes a h)))))`,
		"live":        `(defquestion live :definition ((a h b) s.t. (exists (f k t) (and (allocation a f k t) (allocation-heap-bytes a h) (allocation-live a b)))))`,
	}
	dirs, bins := map[string]string{}, map[string]string{}
	var plain string
	for name, q := range variants {
		dir := copyModule(b, "../../testdata/accountbench")
		if q != "" {
			if err := os.WriteFile(filepath.Join(dir, "questions.pmm"), []byte(q), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if code, out, errOut := runPMM(b, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
			b.Fatalf("%s: pmm instrument: %s%s", name, out, errOut)
		}
		plain, bins[name] = compileBenchBinaries(b, dir)
		dirs[name] = dir
	}
	metrics := map[string][]float64{}
	const allocs = 2 // per operation
	minPlain, minAccounts := math.Inf(1), math.Inf(1)
	for round := 0; round < 7; round++ {
		// The plain run before and after the others: the machine's load
		// drifts within a round.
		before := runBenchBinary(b, dirs["accounts"], plain, false, "500000x")["Work"]
		ns := map[string]float64{}
		for _, name := range []string{"accounts", "allocations", "live"} {
			ns[name] = runBenchBinary(b, dirs[name], bins[name], true, "500000x")["Work"]
		}
		after := runBenchBinary(b, dirs["accounts"], plain, false, "500000x")["Work"]
		base := (before + after) / 2
		minPlain, minAccounts = math.Min(minPlain, math.Min(before, after)), math.Min(minAccounts, ns["accounts"])
		for name := range variants {
			metrics["x-"+name] = append(metrics["x-"+name], ns[name]/base)
		}
		metrics["ns-plain"] = append(metrics["ns-plain"], base)
		metrics["ns-account-per-alloc"] = append(metrics["ns-account-per-alloc"], (ns["accounts"]-base)/allocs)
		metrics["ns-live-per-object"] = append(metrics["ns-live-per-object"], (ns["live"]-ns["allocations"])/allocs)
	}
	for name, xs := range metrics {
		b.ReportMetric(median(xs), name)
	}
	b.ReportMetric(minAccounts/minPlain, "x-accounts-min")
}

// TestAccountEntries: testdata/accountquiet's accounted functions enter
// their account exactly when the call graph says they may reach an
// allocation of the agent pool on their goroutine, however they reach
// it (directly, through another accounted function, through sort's
// calls of a value's methods, slices' of a function value, an
// interface call, the writer log.SetOutput gave log, which no edge
// shows: log is not a package that keeps nothing); Pure, square and
// Spawn need not (Spawn's goroutine starts with no account). In every
// mode the Bufs charged to app and to no account are the program's
// hand counts.
func TestAccountEntries(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	const module = "../../testdata/accountquiet"
	queries := map[string]string{
		"app_bufs":  "SELECT coalesce(sum(count), 0) FROM bufs WHERE acc = 'example.com/accountquiet/app' AND t = 'example.com/accountquiet/pool.Buf'",
		"none_bufs": "SELECT coalesce(sum(count), 0) FROM bufs WHERE acc = '' AND t = 'example.com/accountquiet/pool.Buf'",
	}
	enters := map[string]bool{"Pure": false, "square": false, "Spawn": false, "Direct": true, "Outer": true, "Inner": true,
		"ViaSort": true, "ViaSortFunc": true, "ViaInterface": true, "ViaLog": true}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			out, db, dir := instrumentInModeAt(t, module, mode)
			checkWant(t, db, wantLines(out), queries)
			src, err := os.ReadFile(filepath.Join(pmmDir(dir), "overlay", "app", "app.go"))
			if err != nil {
				t.Fatal(err)
			}
			// The function's line, or the next (a body of several
			// lines), has the deferred entry.
			got := map[string]bool{}
			lines := strings.Split(string(src), "\n")
			for i, l := range lines {
				if m := funcName.FindStringSubmatch(l); m != nil {
					got[m[1]] = strings.Contains(l, "pmm__account") || i+1 < len(lines) && strings.Contains(lines[i+1], "pmm__account")
				}
			}
			for name, want := range enters {
				if e, ok := got[name]; !ok || e != want {
					t.Errorf("%s enters its account: %v (found %v), want %v", name, e, ok, want)
				}
			}
		})
	}
}

// funcName finds a function's declaration in a line of generated code.
var funcName = regexp.MustCompile(`func (\w+)\(`)
