package main

import (
	"database/sql"
	"fmt"
	"maps"
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
// interleaved runs of one benchmark run. Four instrumented builds:
// the account questions (objects and heap bytes per account: added up
// in cells at run time; the agent's one caller is app's, so its account
// is known from the call graph), the same with a second principal,
// other, that may call the agent too (accounts-read: the agent reads
// its goroutine's account at each allocation, and app enters its
// account), every allocation and its heap bytes recorded as tuples, and
// the same with the liveness of each. Medians over 7 rounds of
// instrumented ÷ plain (x-accounts, x-accounts-read, x-allocations, x-live),
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
		"accounts": "", // the module's questions.pmm
		"accounts-read": `(defevent charged :definition ((a acc h) s.t. (exists (f k t) (and (allocation a f k t)
			(allocation-account a "example.com/accountbench/app example.com/accountbench/other" acc) (allocation-heap-bytes a h)))))
			(defquestion objects-per-account :definition (count charged (output input output)))
			(defquestion bytes-per-account :definition (sum charged (output input output)))`,
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
		// With -tests: the benchmark's call of app.Work is a caller pmm
		// sees, so the answers of the test binary are exact.
		if code, out, errOut := runPMM(b, dir, "instrument", "-tests", "./...", "questions.pmm"); code != exitOK {
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
		for _, name := range []string{"accounts", "accounts-read", "allocations", "live"} {
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
		metrics["ns-account-read-per-alloc"] = append(metrics["ns-account-read-per-alloc"], (ns["accounts-read"]-base)/allocs)
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

// TestKnownAccounts checks the accounts of testdata/accountknown in
// every mode against the program's hand counts, and which of lib's
// allocation sites write their account as a constant because the call
// graph says every execution of their function runs under it
// (accountFacts.known): those whose every caller is in the call graph
// and of one account, not those called through a function value, a
// method, from a range-over-func loop's body, or from two accounts. An
// accounted function whose agents all know their account (OnlyKnown)
// enters none.
func TestKnownAccounts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	const module = "../../testdata/accountknown"
	queries := map[string]string{
		"total": "SELECT sum(count) FROM bufs",
		"app":   "SELECT coalesce(sum(count), 0) FROM bufs WHERE acc = 'example.com/accountknown/app'",
		"db":    "SELECT coalesce(sum(count), 0) FROM bufs WHERE acc = 'example.com/accountknown/db'",
		"none":  "SELECT coalesce(sum(count), 0) FROM bufs WHERE acc = ''",
	}
	// Whether each function of lib reads its account at run time.
	reads := map[string]bool{"ForApp": false, "helper": false, "Spawned": false, "FromMain": false, "Rec": false,
		"Shared": true, "ByValue": true, "Ranger": true, "InBody": true, "Make": true}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			// Ranger's range over a function allocates its body's closure
			// and state, which pmm does not record (said).
			out, db, dir := instrumentInModeAt(t, module, mode, "a variable moved to the heap", "allocates at its for statement: the closure of the loop's body and the loop's state")
			checkWant(t, db, wantLines(out), queries)
			overlay := filepath.Join(pmmDir(dir), "overlay")
			if got := accountReads(t, filepath.Join(overlay, "lib")); !maps.Equal(got, reads) {
				t.Errorf("lib's functions that read their account at run time: %v, want %v", got, reads)
			}
			app, err := os.ReadFile(filepath.Join(overlay, "app", "app.go"))
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range strings.Split(string(app), "\n") {
				if strings.Contains(l, "func OnlyKnown") && strings.Contains(l, "pmm__account") {
					t.Errorf("OnlyKnown enters its account, though its one agent knows it: %s", l)
				}
			}
			// Without -tests, pmm test says the known accounts assume
			// the callers pmm analysed.
			plan, err := os.ReadFile(filepath.Join(pmmDir(dir), "plan.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(plan), "the memory account of the allocations in example.com/accountknown/lib.ForApp") {
				t.Errorf("plan.json has no reason for pmm test naming lib.ForApp's known account")
			}
		})
	}
}

// accountReads returns, for each function of the instrumented package
// in dir (the overlay's copy), whether its allocation sites read the
// goroutine's account at run time (rt.Account or AccountOnce in their
// helpers).
func accountReads(t *testing.T, dir string) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "lib.go"))
	if err != nil {
		t.Fatal(err)
	}
	gen, err := os.ReadFile(filepath.Join(dir, "pmm_gen_lib.go"))
	if err != nil {
		t.Fatal(err)
	}
	helpers := map[string]string{} // each helper's body
	for _, part := range strings.Split(string(gen), "\nfunc ")[1:] {
		if name, _, ok := strings.Cut(part, "("); ok {
			helpers[name] = part
		}
	}
	reads := map[string]bool{}
	current := ""
	for _, l := range strings.Split(string(src), "\n") {
		if m := declared.FindStringSubmatch(l); m != nil {
			current = m[1]
		}
		for _, h := range allocHelper.FindAllStringSubmatch(l, -1) {
			// The site's helpers: pmm__alloc3, pmm__enter3, pmm__exit3...
			of := regexp.MustCompile(`^pmm__[a-z]+` + h[1] + `$`)
			found := false
			for name, body := range helpers {
				if of.MatchString(name) {
					found = true
					reads[current] = reads[current] || accountRead.MatchString(body)
				}
			}
			if !found {
				t.Fatalf("%s calls pmm__alloc%s, which pmm_gen_lib.go does not declare", current, h[1])
			}
		}
	}
	return reads
}

var (
	declared    = regexp.MustCompile(`func (?:\([^)]*\) )?(\w+)\(`)
	allocHelper = regexp.MustCompile(`pmm__alloc(\d+)\(`)
	// accountRead finds a read of the goroutine's account.
	accountRead = regexp.MustCompile(`\.Account(Once)?\(`)
)
