package load

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pmm.dev/pmm/rt/pmmrt"
	pmmschema "pmm.dev/pmm/schema"
	"pmm.dev/pmm/spec"
)

// The questions of BenchmarkAnswer: every execution with its duration,
// the executions called (directly or not) by an execution of Serve on its
// goroutine, and a grouped aggregate. Every function is recorded, as
// when a question ranges over all of them.
const answerQuestions = `
(defquestion durations :definition
  ((x fn d) s.t. (and (function-execution x fn) (duration x d))))

(defquestion under-serve :definition
  ((x fn d) s.t. (exists (s) (and (function-execution s "main.Serve") (function-execution x fn)
                                  (calls* s x) (duration x d)))))

(defevent timed :definition
  ((x fn d) s.t. (and (function-execution x fn) (duration x d))))
(defquestion time-per-function :definition (sum timed (output input output)))
`

// answerTuplesEnv lists the sizes of BenchmarkAnswer's runs, in tuples
// (default 1000000); e.g. PMM_BENCH_TUPLES=1000000,10000000.
const answerTuplesEnv = "PMM_BENCH_TUPLES"

// answerKeepEnv names a directory where BenchmarkAnswer keeps a copy of
// each database it answered from, with its views, as VIEW-N.db (N the
// tuples): for sqlite3, or BenchmarkAnswerPrint's PMM_BENCH_DB.
const answerKeepEnv = "PMM_BENCH_KEEP"

// loadChildEnv makes the test binary a child process that loads one run
// and reports what it took (loadReport), so that its peak RSS is the
// load's alone.
const loadChildEnv = "PMM_LOAD_BENCH_CHILD"

// loadProfileEnv names a file where the loading child writes a CPU
// profile of its load (go tool pprof), e.g.
// PMM_BENCH_LOAD_PROFILE=/tmp/load.pprof.
const loadProfileEnv = "PMM_BENCH_LOAD_PROFILE"

// loadOnlyEnv, set to 1, makes BenchmarkAnswer load and not answer: it
// reports the load's figures alone.
const loadOnlyEnv = "PMM_BENCH_LOAD_ONLY"

// loadRequest is what the child loads, passed as JSON in loadChildEnv.
type loadRequest struct {
	DB, Logs string
	Tables   []Table
}

// loadReport is what the child prints on its last line of output.
type loadReport struct {
	Tuples  int64
	Seconds float64
	// CPUSeconds is the processor time of the load (user and system, all
	// goroutines): on a machine shared with other work, it varies less
	// than Seconds.
	CPUSeconds float64
	PeakKiB    int64 // VmHWM of the child at the end of the load
}

// loadChild is the child process's main: it loads, then exits.
func loadChild(spec string) {
	var req loadRequest
	if err := json.Unmarshal([]byte(spec), &req); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if path := os.Getenv(loadProfileEnv); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	start, cpu := time.Now(), cpuTime()
	st, err := Load(req.DB, req.Logs, req.Tables, Run{Command: "bench", Start: start, End: start})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rep := loadReport{Seconds: time.Since(start).Seconds(), CPUSeconds: (cpuTime() - cpu).Seconds(), PeakKiB: peakRSS()}
	pprof.StopCPUProfile() // a no-op without loadProfileEnv
	for _, n := range st.Tuples {
		rep.Tuples += n
	}
	out, _ := json.Marshal(rep)
	fmt.Println(string(out))
	os.Exit(0)
}

// cpuTime is the processor time this process used so far, user and
// system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is this process's peak resident set (VmHWM), in KiB, 0 if the
// system does not say.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// BenchmarkAnswer records a simulated run of N tuples per question
// (answerQuestions), loads it in a child process (load tuples per second
// of wall time and of CPU time, the load's peak RSS), writes the views,
// and answers each question the way pmm answer does (every row read
// through database/sql; wall and CPU seconds, answer-s and
// answer-cpu-s), and as pmm answer now does, through Query (query-s,
// query-cpu-s). In the same
// run it times SELECT count(*) over the question's largest table and
// reading that table's rows, and reports the answer's time as ratios to
// both.
//
//	go test -run '^$' -bench Answer -benchtime 1x ./rt/load/
//	PMM_BENCH_TUPLES=10000000 go test -run '^$' -bench Answer -benchtime 1x -timeout 1h ./rt/load/
//	PMM_BENCH_KEEP=/tmp go test -run '^$' -bench Answer/durations -benchtime 1x ./rt/load/  # keeps /tmp/durations-1000000.db
//	PMM_BENCH_LOAD_ONLY=1 go test -run '^$' -bench Answer/under_serve -benchtime 1x -count 5 ./rt/load/  # the load alone
//	PMM_BENCH_LOAD_PROFILE=/tmp/load.pprof go test -run '^$' -bench Answer/under_serve -benchtime 1x ./rt/load/  # the load's CPU profile
func BenchmarkAnswer(b *testing.B) {
	prog, err := spec.Compile(spec.Source{Name: "answers.pmm", Text: []byte(answerQuestions)})
	if err != nil {
		b.Fatal(err)
	}
	sch, err := pmmschema.Generate(prog)
	if err != nil {
		b.Fatal(err)
	}
	sizes := []int{1000000}
	if env := os.Getenv(answerTuplesEnv); env != "" {
		sizes = nil
		for _, f := range strings.Split(env, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				b.Fatalf("%s: %v", answerTuplesEnv, err)
			}
			sizes = append(sizes, n)
		}
	}
	for _, q := range prog.Questions {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%s/%d", pmmschema.SQLName(q.Name), n), func(b *testing.B) {
				benchmarkAnswer(b, sch, q.Name, n)
			})
		}
	}
}

func benchmarkAnswer(b *testing.B, sch *pmmschema.Schema, question string, n int) {
	var tables []Table
	kinds := map[string]uint16{}
	for _, t := range sch.Tables {
		if t.Question != question {
			continue
		}
		lt := Table{ID: t.ID, Name: t.Name, Key: t.Key}
		for _, c := range t.Columns {
			lt.Columns = append(lt.Columns, Column{Name: c.Name, Type: c.Type, ID: c.Event})
		}
		for _, x := range t.Indexes {
			lt.Indexes = append(lt.Indexes, Index{Name: x.Name, Columns: x.Columns})
		}
		for _, cp := range t.Copies {
			lt.Copies = append(lt.Copies, Copy{Name: cp.Name, Columns: cp.Columns, Replaces: cp.Replaces})
		}
		tables = append(tables, lt)
		kinds[t.Prim] = t.ID
	}
	template := record(b, func() { simulateRun(kinds, n) })
	view := pmmschema.SQLName(question)
	largest := sch.Table(question, "exec").Name
	b.ResetTimer()
	var load, loadCPU, answer, answerCPU, query, queryCPU, count, read, readCPU time.Duration
	var tuples, rows, peak int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		copyDir(b, filepath.Join(template, "logs"), filepath.Join(dir, "logs"))
		b.StartTimer()
		rep := loadInChild(b, loadRequest{DB: filepath.Join(dir, "pmm.db"), Logs: filepath.Join(dir, "logs"), Tables: tables})
		load += time.Duration(rep.Seconds * float64(time.Second))
		loadCPU += time.Duration(rep.CPUSeconds * float64(time.Second))
		tuples += rep.Tuples
		peak = max(peak, rep.PeakKiB)
		if os.Getenv(loadOnlyEnv) == "1" {
			continue
		}

		db, err := sql.Open("sqlite", filepath.Join(dir, "pmm.db"))
		if err != nil {
			b.Fatal(err)
		}
		writeViews(b, db, sch, question)
		start, cpu := time.Now(), cpuTime()
		r := readAll(b, db, "SELECT * FROM "+view+" WHERE run = 1")
		answer += time.Since(start)
		answerCPU += cpuTime() - cpu
		start, cpu = time.Now(), cpuTime()
		if q := queryAll(b, filepath.Join(dir, "pmm.db"), "SELECT * FROM "+view+" WHERE run = 1"); q != r {
			b.Fatalf("%d rows through Query, %d through database/sql", q, r)
		}
		query += time.Since(start)
		queryCPU += cpuTime() - cpu
		rows += r
		start = time.Now()
		var c int64
		if err := db.QueryRow("SELECT count(*) FROM " + largest).Scan(&c); err != nil {
			b.Fatal(err)
		}
		count += time.Since(start)
		start, cpu = time.Now(), cpuTime()
		readAll(b, db, "SELECT * FROM "+largest+" WHERE run = 1")
		read += time.Since(start)
		readCPU += cpuTime() - cpu
		if keep := os.Getenv(answerKeepEnv); keep != "" {
			path := filepath.Join(keep, fmt.Sprintf("%s-%d.db", view, n))
			os.Remove(path)
			if _, err := db.Exec("VACUUM INTO ?", path); err != nil {
				b.Fatal(err)
			}
		}
		db.Close()
		if c == 0 || r == 0 {
			b.Fatalf("%d rows in %s, %d in the answer", c, largest, r)
		}
	}
	b.ReportMetric(float64(tuples)/load.Seconds(), "load-tuples/s")
	b.ReportMetric(float64(tuples)/loadCPU.Seconds(), "load-tuples/cpu-s")
	b.ReportMetric(float64(peak)/1024, "load-peak-MiB")
	if os.Getenv(loadOnlyEnv) == "1" {
		return
	}
	b.ReportMetric(answer.Seconds()/float64(b.N), "answer-s")
	b.ReportMetric(answerCPU.Seconds()/float64(b.N), "answer-cpu-s")
	b.ReportMetric(readCPU.Seconds()/float64(b.N), "read-cpu-s")
	b.ReportMetric(query.Seconds()/float64(b.N), "query-s")
	b.ReportMetric(queryCPU.Seconds()/float64(b.N), "query-cpu-s")
	b.ReportMetric(float64(rows)/float64(b.N), "answer-rows")
	b.ReportMetric(answer.Seconds()/count.Seconds(), "x-count")
	b.ReportMetric(answer.Seconds()/read.Seconds(), "x-read")
}

// loadInChild loads req in a child process and returns its report.
func loadInChild(b *testing.B, req loadRequest) loadReport {
	js, _ := json.Marshal(req)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), loadChildEnv+"="+string(js))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("loading: %v\n%s", err, stderr.String())
	}
	var rep loadReport
	sc := bufio.NewScanner(bytes.NewReader(out))
	var last string
	for sc.Scan() {
		last = sc.Text()
	}
	if err := json.Unmarshal([]byte(last), &rep); err != nil {
		b.Fatalf("the loading child's report %q: %v", last, err)
	}
	return rep
}

// Sites of the simulated program: Serve and Other begin each goroutine's
// top-level executions, the functions f0, f1, ... are called under them.
const (
	siteServe = 1
	siteOther = 2
	siteFirst = 3
	functions = 40
)

func siteFunction(site int) string {
	switch site {
	case siteServe:
		return "main.Serve"
	case siteOther:
		return "main.Other"
	}
	return "main.f" + strconv.Itoa(site-siteFirst)
}

// writeViews creates the schema and fills the sites, as pmm run does
// after a load (cmd/pmm writeAnswerSchema): every site records every
// event variable of the question.
func writeViews(b *testing.B, db *sql.DB, sch *pmmschema.Schema, question string) {
	for _, st := range sch.Statements() {
		if _, err := db.Exec(st); err != nil {
			b.Fatalf("%s: %v", st, err)
		}
	}
	for site := siteServe; site < siteFirst+functions; site++ {
		if _, err := db.Exec("INSERT INTO "+pmmschema.SitesTable+" (site, function, kind) VALUES (?, ?, 'definition')", site, siteFunction(site)); err != nil {
			b.Fatal(err)
		}
		for _, v := range []string{"x", "s"} {
			if _, err := db.Exec("INSERT INTO "+pmmschema.SiteVarsTable+" (site, question, var) VALUES (?, ?, ?)", site, question, v); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// readAll reads every row of query the way pmm answer does, returning
// how many.
func readAll(b *testing.B, db *sql.DB, query string) int64 {
	rs, err := db.Query(query)
	if err != nil {
		b.Fatal(err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var n int64
	for rs.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := rs.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

// queryAll reads every row of query through Query, as pmm answer does,
// returning how many.
func queryAll(b *testing.B, path, query string) int64 {
	r, err := Query(path, query)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var n int64
	for r.Next() {
		n++
	}
	if err := r.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

// simulateRun records at least n tuples into the tables of kinds (a
// table id by Table.Prim) as the instrumentation would: 8 goroutines
// interleaved, each running a stack of nested executions (at most 7
// deep) under Serve or Other, ids and end seqs from pmmrt.NextID. A
// fixed seed makes every run the same.
func simulateRun(kinds map[string]uint16, n int) {
	type frame struct{ id, start int64 }
	const goroutines, maxDepth = 8, 7
	stacks := make([][]frame, goroutines)
	rng := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 { // xorshift64
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return rng
	}
	emit := func(kind string, a, v int64) int {
		if t, ok := kinds[kind]; ok {
			pmmrt.Emit2(t, a, v)
			return 1
		}
		return 0
	}
	for clock, emitted := int64(0), 0; emitted < n; clock++ {
		g := int(next() % goroutines)
		st := stacks[g]
		r := next() % 100
		switch {
		case len(st) == 0 || len(st) < maxDepth && r < 55:
			site := siteFirst + int(next()%functions)
			if len(st) == 0 {
				site = siteServe + int(r%2)
			}
			id := int64(pmmrt.NextID())
			emitted += emit("exec", id, int64(site)) + emit("goroutine", id, int64(g))
			stacks[g] = append(st, frame{id, clock})
		default:
			f := st[len(st)-1]
			seq := int64(pmmrt.NextID())
			emitted += emit("end", f.id, seq) + emit("duration", f.id, (clock-f.start)*37+int64(next()%16))
			stacks[g] = st[:len(st)-1]
		}
	}
}
