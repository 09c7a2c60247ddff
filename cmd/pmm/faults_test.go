//go:build unix

package main

import (
	"bufio"
	"database/sql"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"pmm.dev/pmm/internal/tmpfs"
)

// The fault tests run the pmm binary, as a user's shell would, on
// testdata/faults, and stop it or its program at the moments a user's
// machine does: signals to the process group while the program runs,
// SIGKILL of pmm, pmm killed after it committed a load but before it
// removed the logs, several runs at once. In every case each run's rows
// must be its program's count (-n), none lost and none counted twice.

var pmmBinary struct {
	once sync.Once
	path string
	err  error
}

// pmmBin builds the pmm command once per test binary.
func pmmBin(t *testing.T) string {
	t.Helper()
	pmmBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "pmm-bin-")
		if err != nil {
			pmmBinary.err = err
			return
		}
		pmmBinary.path = filepath.Join(dir, "pmm")
		out, err := exec.Command("go", "build", "-o", pmmBinary.path, ".").CombinedOutput()
		if err != nil {
			pmmBinary.err = fmt.Errorf("building pmm: %v\n%s", err, out)
		}
	})
	if pmmBinary.err != nil {
		t.Fatal(pmmBinary.err)
	}
	return pmmBinary.path
}

// faultModule copies testdata/faults and instruments it.
func faultModule(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs an instrumented program")
	}
	dir := copyModule(t, "../../testdata/faults")
	if code, out, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
	}
	return dir
}

// startRun starts pmm run in dir in a process group of its own, and, with
// -wait among args, returns once the program said it is ready.
func startRun(t *testing.T, dir string, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	firstLine := ""
	for _, a := range args {
		if a == "-wait" {
			firstLine = "ready\n"
		}
	}
	return startRunSaying(t, dir, firstLine, args...)
}

// startRunSaying starts pmm run in dir with the program's args and, when
// firstLine is not empty, waits until the program has printed it.
func startRunSaying(t *testing.T, dir, firstLine string, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(pmmBin(t), append([]string{"run", ".", "--"}, args...)...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = time.Minute // a test that failed leaves no program holding its pipes
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if firstLine != "" {
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || line != firstLine {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the program said %q (%v), want %q\n%s", line, err, firstLine, stderr.String())
		}
	}
	return cmd, &stderr
}

// programOf returns the pid of the program pmm (pid) runs: its child.
func programOf(t *testing.T, pid int) int {
	t.Helper()
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(data)) {
			if child, err := strconv.Atoi(field); err == nil {
				return child
			}
		}
	}
	t.Fatalf("pmm (pid %d) runs no program", pid)
	return 0
}

// exitCode waits for cmd and returns its exit status.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// faultRun is one row of runs with the rows of its answer.
type faultRun struct {
	Status  int
	Signal  string
	Rows    int
	Command string
}

// runsOf reads every run of dir's pmm.db, in order, with its rows of
// executions-of-f, and checks that no execution is there twice.
func runsOf(t *testing.T, dir string) []faultRun {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, ".pmm", "pmm.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT r.exit_status, coalesce(r.signal, ''), r.command,
		(SELECT count(*) FROM executions_of_f a WHERE a.run = r.id),
		(SELECT count(DISTINCT a.i) FROM executions_of_f a WHERE a.run = r.id)
		FROM runs r ORDER BY r.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []faultRun
	for rows.Next() {
		var r faultRun
		var distinct int
		if err := rows.Scan(&r.Status, &r.Signal, &r.Command, &r.Rows, &distinct); err != nil {
			t.Fatal(err)
		}
		if distinct != r.Rows {
			t.Errorf("run %q: %d rows but %d distinct parameters: an execution counted twice", r.Command, r.Rows, distinct)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// leftoverRuns lists the run directories still in dir's .pmm/runs.
func leftoverRuns(t *testing.T, dir string) []string {
	entries, _ := os.ReadDir(filepath.Join(dir, ".pmm", "runs"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestFaultSignalToProcessGroup: Ctrl-C or SIGTERM to the process group
// while the program runs (a terminal, timeout, systemd do that): pmm
// loads what the program recorded, and exits as the program did, 128+n.
func TestFaultSignalToProcessGroup(t *testing.T) {
	dir := faultModule(t)
	var want []faultRun
	for try := 0; try < faultTries(t, 3); try++ {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			n := 500 + 100*try + int(sig)
			cmd, stderr := startRun(t, dir, "-n", fmt.Sprint(n), "-wait")
			if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
				t.Fatal(err)
			}
			if code := exitCode(t, cmd); code != 128+int(sig) {
				t.Errorf("%v: pmm exited %d, want %d\n%s", sig, code, 128+int(sig), stderr)
			}
			want = append(want, faultRun{Status: 128 + int(sig), Signal: sig.String(), Rows: n})
		}
	}
	checkRuns(t, dir, want)
}

// TestFaultKillPMM: SIGKILL of pmm while its program runs, then of the
// program: nothing is loaded then, and the next pmm run loads those logs
// as the run they are, apart from its own.
func TestFaultKillPMM(t *testing.T) {
	dir := faultModule(t)
	var want []faultRun
	for try := 0; try < faultTries(t, 3); try++ {
		n := 300 + try
		cmd, _ := startRun(t, dir, "-n", fmt.Sprint(n), "-wait")
		syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		// Then the program, left alone; only then can Wait return, as
		// the program holds pmm's standard error open.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		want = append(want, faultRun{Rows: n})
		m := 40 + try
		next, stderr := startRun(t, dir, "-n", fmt.Sprint(m))
		if code := exitCode(t, next); code != 0 {
			t.Fatalf("pmm run after a killed one: exit %d\n%s", code, stderr)
		}
		if !strings.Contains(stderr.String(), fmt.Sprintf("%d tuples recovered", 2*n)) {
			t.Errorf("pmm run does not say it recovered %d tuples:\n%s", 2*n, stderr)
		}
		want = append(want, faultRun{Rows: m})
	}
	got := checkRuns(t, dir, want)
	for i := 0; i < len(got); i += 2 {
		if !strings.HasSuffix(got[i].Command, "(recovered)") {
			t.Errorf("run %d: command %q does not say it was recovered", i+1, got[i].Command)
		}
	}
}

// TestFaultKillAfterCommit: pmm killed after it committed a load and
// before it removed the logs (simulated by putting the run's directory
// back): the next pmm run finds the logs loaded already and removes them
// without loading them again.
func TestFaultKillAfterCommit(t *testing.T) {
	dir := faultModule(t)
	var want []faultRun
	for try := 0; try < faultTries(t, 3); try++ {
		n := 200 + try
		cmd, stderr := startRun(t, dir, "-n", fmt.Sprint(n), "-wait")
		runs := leftoverRuns(t, dir)
		if len(runs) != 1 {
			t.Fatalf("run directories while the program runs: %v, want one", runs)
		}
		saved := filepath.Join(t.TempDir(), "saved")
		if err := os.CopyFS(saved, os.DirFS(filepath.Join(dir, ".pmm", "runs", runs[0]))); err != nil {
			t.Fatal(err)
		}
		// To the program alone: this test is about the logs, not about
		// signals reaching pmm.
		syscall.Kill(programOf(t, cmd.Process.Pid), syscall.SIGTERM)
		if code := exitCode(t, cmd); code != 128+int(syscall.SIGTERM) {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		want = append(want, faultRun{Status: 128 + int(syscall.SIGTERM), Signal: "terminated", Rows: n})
		os.Remove(filepath.Join(saved, "lock"))
		if err := os.CopyFS(filepath.Join(dir, ".pmm", "runs", runs[0]), os.DirFS(saved)); err != nil {
			t.Fatal(err)
		}
		next, stderr := startRun(t, dir, "-n", "9")
		if code := exitCode(t, next); code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if !strings.Contains(stderr.String(), "loaded already") {
			t.Errorf("pmm run does not say it removed logs loaded already:\n%s", stderr)
		}
		want = append(want, faultRun{Rows: 9})
	}
	checkRuns(t, dir, want)
}

// TestFaultConcurrentRuns: four pmm runs at once in one module each
// record, load and report their own program's executions.
func TestFaultConcurrentRuns(t *testing.T) {
	dir := faultModule(t)
	const runs = 4
	counts := map[int]bool{}
	var wg sync.WaitGroup
	errs := make(chan string, runs)
	for i := 0; i < runs; i++ {
		n := 1000 * (i + 1)
		counts[n] = true
		cmd, stderr := startRun(t, dir, "-n", fmt.Sprint(n))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Wait(); err != nil {
				errs <- fmt.Sprintf("pmm run -n %d: %v\n%s", n, err, stderr)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	got := runsOf(t, dir)
	if len(got) != runs {
		t.Fatalf("%d runs, want %d: %+v", len(got), runs, got)
	}
	for _, r := range got {
		if !counts[r.Rows] {
			t.Errorf("a run has %d rows, which no program made (each made one of %v)", r.Rows, counts)
		}
		delete(counts, r.Rows)
	}
	if left := leftoverRuns(t, dir); len(left) != 0 {
		t.Errorf("run directories left: %v", left)
	}
}

// checkRuns compares dir's runs with want (status, signal, rows) and
// checks that no run directory is left.
func checkRuns(t *testing.T, dir string, want []faultRun) []faultRun {
	t.Helper()
	got := runsOf(t, dir)
	if len(got) != len(want) {
		t.Fatalf("%d runs, want %d:\n got %+v\nwant %+v", len(got), len(want), got, want)
	}
	for i := range want {
		g := got[i]
		if g.Rows != want[i].Rows || g.Signal != want[i].Signal || (want[i].Status != 0 && g.Status != want[i].Status) {
			t.Errorf("run %d: %+v, want %+v", i+1, g, want[i])
		}
	}
	if left := leftoverRuns(t, dir); len(left) != 0 {
		t.Errorf("run directories left: %v", left)
	}
	return got
}

// pmmCommand runs the pmm binary in dir and returns its exit status and
// output.
func pmmCommand(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(pmmBin(t), args...)
	cmd.Dir = dir
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// TestFaultDiskFull: the disk of the run's logs (a 3 MiB tmpfs on
// .pmm/runs: the first segment, 2 MiB, fits, the second does not) fills up while the program records. The program must go on
// as if uninstrumented (its output and exit status), the runtime say
// once that recording stopped, pmm load what fit (the first executions,
// each once) and the answer say that it is incomplete.
func TestFaultDiskFull(t *testing.T) {
	dir := faultModule(t)
	tmpfs.Mount(t, filepath.Join(dir, ".pmm", "runs"), "3m")
	const n = 200000 // 24 bytes a tuple: more than 3 MiB
	code, out, errOut := pmmCommand(t, dir, "run", ".", "--", "-n", fmt.Sprint(n))
	if code != 0 {
		t.Fatalf("pmm run: exit %d, want the program's 0\n%s", code, errOut)
	}
	if want := fmt.Sprintf("total %d\n", n*(n-1)); out != want { // the sum of 2i for i < n
		t.Errorf("the program's output %q, want %q", out, want)
	}
	if c := strings.Count(errOut, "pmm: recording stopped: the disk was full"); c != 1 {
		t.Errorf("the runtime said %d times that recording stopped, want once:\n%s", c, errOut)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, ".pmm", "pmm.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rows, distinct, max int
	if err := db.QueryRow(`SELECT count(*), count(DISTINCT i), max(i) FROM executions_of_f`).Scan(&rows, &distinct, &max); err != nil {
		t.Fatal(err)
	}
	if rows == 0 || rows >= n || distinct != rows || max != rows-1 {
		t.Errorf("%d rows, %d distinct, the largest %d: want the first k of %d executions, each once", rows, distinct, max, n)
	}
	var reasons []string
	r, err := db.Query(`SELECT DISTINCT question || ': ' || reason FROM pmm_incomplete`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var s string
		r.Scan(&s)
		reasons = append(reasons, s)
	}
	r.Close()
	if want := []string{"executions-of-f: recording stopped: the disk was full"}; !slices.Equal(reasons, want) {
		t.Errorf("incomplete: %q, want %q", reasons, want)
	}
	if left := leftoverRuns(t, dir); len(left) != 0 {
		t.Errorf("run directories left: %v", left)
	}
	t.Logf("%d of %d executions recorded before the disk was full", rows, n)
}

// TestFaultReadOnlyModule: a module on a read-only filesystem (as root,
// permission bits stop no write, so the module is a tmpfs remounted
// read-only). pmm instrument fails, saying that .pmm must be writable;
// with a writable directory mounted on .pmm, pmm instruments and runs the
// module, writing nothing else; once .pmm is read-only too, pmm run
// refuses before running anything. The module's files never change.
func TestFaultReadOnlyModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an instrumented program")
	}
	readOnlyModule := func(t *testing.T, withPMM bool) (dir string, files map[string]string) {
		dir = filepath.Join(t.TempDir(), "module")
		tmpfs.Mount(t, dir, "16m")
		if err := os.CopyFS(dir, os.DirFS("../../testdata/faults")); err != nil {
			t.Fatal(err)
		}
		if withPMM {
			if err := os.Mkdir(filepath.Join(dir, ".pmm"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		tmpfs.Remount(t, dir, "ro")
		if withPMM {
			tmpfs.Mount(t, filepath.Join(dir, ".pmm"), "256m")
		}
		return dir, treeFiles(t, dir)
	}
	t.Run("read-only", func(t *testing.T) {
		dir, before := readOnlyModule(t, false)
		code, _, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm")
		if code != exitFailure || !strings.Contains(errOut, "hint: pmm writes only in "+filepath.Join(dir, ".pmm")+", which must be writable") {
			t.Errorf("pmm instrument: exit %d, want 1 with a hint that .pmm must be writable:\n%s", code, errOut)
		}
		if after := treeFiles(t, dir); !maps.Equal(after, before) {
			t.Errorf("the module changed:\n%v\nwant\n%v", after, before)
		}
	})
	t.Run("writable .pmm", func(t *testing.T) {
		dir, before := readOnlyModule(t, true)
		if code, _, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
			t.Fatalf("pmm instrument: exit %d\n%s", code, errOut)
		}
		code, out, errOut := runPMM(t, dir, "run", ".", "--", "-n", "77")
		if code != exitOK || out != fmt.Sprintf("total %d\n", 77*76) {
			t.Fatalf("pmm run: exit %d, output %q\n%s", code, out, errOut)
		}
		checkRuns(t, dir, []faultRun{{Rows: 77}})
		tmpfs.Remount(t, filepath.Join(dir, ".pmm"), "ro")
		code, out, errOut = runPMM(t, dir, "run", ".", "--", "-n", "5")
		if code != exitFailure || out != "" || !strings.Contains(errOut, "hint: pmm writes only in") {
			t.Errorf("pmm run with .pmm read-only: exit %d, output %q, want 1 with a hint and no run:\n%s", code, out, errOut)
		}
		if after := treeFiles(t, dir); !maps.Equal(after, before) {
			t.Errorf("the module changed:\n%v\nwant\n%v", after, before)
		}
	})
}

// treeFiles returns the files under dir but in .pmm, with their contents.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".pmm" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files[path] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// faultTries is the number of tries of a fault test: def, or more (or
// fewer) with PMM_FAULTS=N.
func faultTries(t *testing.T, def int) int {
	if s := os.Getenv("PMM_FAULTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("PMM_FAULTS=%q: want a number of tries", s)
		}
		return n
	}
	return def
}

// TestFaultKillWhileLoading: SIGKILL of pmm at pseudo-random moments
// after its program ended, while it loads 800,000 tuples (or after it
// loaded them, or between its commit and the removal of the logs); and
// SIGINT and SIGTERM to its process group then, as a second Ctrl-C or a
// timeout would send them (pmm stops, 128+n, and leaves the logs). The
// next pmm run loads what is left as the run it is: every run's rows are
// its program's count, none twice, and pmm.db passes its integrity check.
// The outcome is the same whatever the moment; the delays only spread
// the signals over the load. More tries: PMM_FAULTS=N.
func TestFaultKillWhileLoading(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { faultWhileLoading(t, sig) })
	}
}

func faultWhileLoading(t *testing.T, sig syscall.Signal) {
	dir := faultModule(t)
	const n = 400000 // two tuples an execution: the execution and its parameter; loading takes seconds
	tries := faultTries(t, 2)
	rng := rand.New(rand.NewPCG(16, uint64(sig)))
	var want []faultRun
	for try := 0; try < tries; try++ {
		start := time.Now()
		cmd, stderr := startRunSaying(t, dir, fmt.Sprintf("total %d\n", n*(n-1)), "-n", fmt.Sprint(n))
		// The program ended: pmm loads now, for a few seconds.
		ran := time.Since(start)
		delay := time.Duration(rng.Int64N(int64(1500 * time.Millisecond)))
		time.Sleep(delay)
		if sig == syscall.SIGKILL {
			cmd.Process.Signal(sig) //nolint:errcheck // pmm may have ended
		} else {
			syscall.Kill(-cmd.Process.Pid, sig) // the group: pmm alone, its program ended
		}
		code := exitCode(t, cmd)
		killed := !strings.Contains(stderr.String(), "tuples recorded")
		// The program printed its total but may not have exited yet: then
		// the signal to the group ends it too, pmm loads what it wrote
		// (all of it) and exits as it did, and the run says so.
		programKilled := strings.Contains(stderr.String(), "the program was killed by signal "+sig.String())
		run := faultRun{Rows: n}
		if programKilled {
			run.Status, run.Signal = 128+int(sig), sig.String()
		}
		if sig != syscall.SIGKILL {
			// Once the load is committed and said so, pmm still has to
			// exit: a signal in that moment ends it as a signal ends a
			// process (the shell sees 128+n either way), the run loaded.
			ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
			lateSignal := !killed && ws.Signaled() && ws.Signal() == sig
			if wantCode := map[bool]int{true: 128 + int(sig), false: 0}[killed || programKilled]; code != wantCode && !lateSignal {
				t.Errorf("try %d: pmm exited %d, want %d\n%s", try, code, wantCode, stderr)
			}
		}
		t.Logf("try %d: built and ran in %v, %v %v after the program ended: %s", try, ran.Round(time.Millisecond), sig, delay.Round(time.Millisecond), map[bool]string{true: "while loading", false: "after the load was committed"}[killed])
		want = append(want, run)
		start = time.Now()
		next, nextErr := startRun(t, dir, "-n", "3")
		if code := exitCode(t, next); code != 0 {
			t.Fatalf("the next pmm run: exit %d\n%s", code, nextErr)
		}
		t.Logf("try %d: the next run in %v", try, time.Since(start).Round(time.Millisecond))
		want = append(want, faultRun{Rows: 3})
	}
	checkRuns(t, dir, want)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, ".pmm", "pmm.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var integrity string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Errorf("pmm.db integrity check: %q, %v", integrity, err)
	}
}
