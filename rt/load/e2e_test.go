package load

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pmm.dev/pmm/rt"
)

// The program of TestEndToEnd: it records mainRecords tuples from main,
// and as many as it can from writers goroutines, then exits the way its
// argument says. Its module says go 1.12.
const e2eProgram = `package main

import (
	"log"
	"os"
	"strings"
	"syscall"
	"time"

	pmmrt "example.com/e2e/internal/pmmrt_"
)

func main() {
	for i := 0; i < 1000; i++ {
		if pmmrt.Enabled() {
			pmmrt.Emit2(1, int64(pmmrt.NextID()), int64(i))
		}
	}
	var r pmmrt.Rec
	r.Str("done")
	r.ListBegin()
	r.Value(os.Args[1])
	r.ListEnd()
	pmmrt.Emit(2, &r)
	if os.Args[1] == "begin" {
		pmmrt.Begin()
		for i := 0; i < 500; i++ {
			if pmmrt.Enabled() {
				pmmrt.Emit2(1, int64(pmmrt.NextID()), int64(i))
			}
		}
	}
	if os.Args[1] == "sigkill" {
		// Writers record as fast as they can, through several segments,
		// until the kill.
		started := make(chan bool)
		for w := 0; w < 4; w++ {
			go func(w int64) {
				pmmrt.Emit3(3, w, 0, pmmrt.Now())
				started <- true
				for i := int64(1); ; i++ {
					pmmrt.Emit3(3, w, i, pmmrt.Now())
				}
			}(int64(w))
		}
		for w := 0; w < 4; w++ {
			<-started
		}
		time.Sleep(100 * time.Millisecond)
	}
	switch os.Args[1] {
	case "panic":
		panic("boom")
	case "exit":
		os.Exit(3)
	case "pmmexit":
		pmmrt.Exit(4)
	case "fatal":
		log.Fatal("fatal")
	case "sigterm":
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
	case "sigint":
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	case "sigkill":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	if strings.HasPrefix(os.Args[1], "sig") {
		time.Sleep(time.Minute)
	}
}
`

// TestEndToEnd builds a program in a go 1.12 module with the runtime
// placed by a build overlay, as pmm places it, runs it with every way of
// exiting, and loads what it recorded.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	mod, pmmDir, bin := buildWithRuntime(t, "example.com/e2e", e2eProgram)
	if _, err := os.Stat(filepath.Join(mod, "internal")); !os.IsNotExist(err) {
		t.Fatal("the build wrote the user's tree")
	}

	tables := []Table{
		{ID: 1, Name: "events", Columns: []Column{{"id", "INTEGER", true}, {"i", "INTEGER", false}}},
		{ID: 2, Name: "done", Columns: []Column{{"what", "TEXT", false}, {"args", "TEXT", false}}},
		{ID: 3, Name: "writes", Columns: []Column{{"writer", "INTEGER", false}, {"i", "INTEGER", false}, {"t", "INTEGER", false}}},
	}
	for _, tc := range []struct {
		mode     string
		env      string // added to the environment (PMM_DIR is not set: the compiled-in default applies)
		status   string // exec's description of the exit
		events   int64
		stderrIs string
	}{
		{"return", "", "", 1000, ""},
		{"panic", "", "exit status 2", 1000, "panic: boom"},
		{"exit", "", "exit status 3", 1000, ""},
		{"pmmexit", "", "exit status 4", 1000, ""},
		{"fatal", "", "exit status 1", 1000, "fatal"},
		{"sigterm", "", "signal: terminated", 1000, ""},
		{"sigint", "", "signal: interrupt", 1000, ""},
		{"sigkill", "", "signal: killed", 1000, ""},
		{"return", "PMM_RECORD=off", "", 0, ""},
		{"begin", "PMM_RECORD=off", "", 500, ""},
	} {
		name := tc.mode + strings.TrimPrefix(tc.env, "PMM_RECORD=")
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.mode)
			cmd.Env = append(withoutEnv("PMM_DIR", "PMM_RECORD"), tc.env)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			status := ""
			if err != nil {
				status = err.Error()
			}
			if status != tc.status {
				t.Fatalf("exit: %q, want %q\n%s", status, tc.status, stderr.String())
			}
			if stdout.Len() != 0 || !strings.Contains(stderr.String(), tc.stderrIs) || (tc.stderrIs == "" && stderr.Len() != 0) {
				t.Errorf("output: %q, stderr %q", stdout.String(), stderr.String())
			}
			stats, err := Load(filepath.Join(pmmDir, "pmm.db"), filepath.Join(pmmDir, "logs"), tables, Run{Command: name})
			if err != nil {
				t.Fatal(err)
			}
			db := open(t, pmmDir)
			got := rows(t, db, `SELECT count(*), count(DISTINCT id), coalesce(sum(i), 0) FROM events WHERE run = (SELECT max(id) FROM runs)`)
			want := [][]string{{fmtInt(tc.events), fmtInt(tc.events), fmtInt(tc.events * (tc.events - 1) / 2)}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("events: got %q, want %q", got, want)
			}
			got = rows(t, db, `SELECT what, args FROM done WHERE run = (SELECT max(id) FROM runs)`)
			want = [][]string{{"text:done", `text:["` + tc.mode + `"]`}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("done: got %q, want %q", got, want)
			}
			if tc.mode != "sigkill" {
				if stats.Torn != 0 || stats.Malformed != 0 {
					t.Errorf("stats %+v", stats)
				}
				return
			}
			// Each writer's records are committed in order: what was
			// committed before the kill is a prefix 0..n-1 of its numbers;
			// at most its record in flight is lost (torn).
			got = rows(t, db, `SELECT writer, count(*) = max(i) + 1 FROM writes
				WHERE run = (SELECT max(id) FROM runs) GROUP BY writer ORDER BY writer`)
			want = [][]string{{"int:0", "int:1"}, {"int:1", "int:1"}, {"int:2", "int:1"}, {"int:3", "int:1"}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("writes (writer, prefix, many): got %q, want %q", got, want)
			}
			if stats.Torn > 4 || stats.Malformed != 0 || stats.Segments < 2 || stats.Tuples["writes"] < 100000 {
				t.Errorf("stats %+v", stats)
			}
			t.Logf("SIGKILL: %d tuples in %d segments, %d torn", stats.Tuples["writes"], stats.Segments, stats.Torn)
		})
	}
}

func fmtInt(n int64) string { return "int:" + strconv.FormatInt(n, 10) }

// withoutEnv returns the environment without the given variables.
func withoutEnv(names ...string) []string {
	var env []string
next:
	for _, kv := range os.Environ() {
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				continue next
			}
		}
		env = append(env, kv)
	}
	return env
}

// buildWithRuntime writes a go 1.12 module with the program as its main
// package, places the runtime by a build overlay, as pmm places it, and
// builds it: the module's directory, its .pmm directory, the binary.
func buildWithRuntime(t *testing.T, module, program string) (mod, pmmDir, bin string) {
	t.Helper()
	mod = t.TempDir()
	pmmDir = filepath.Join(mod, ".pmm")
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(mod, "go.mod"), "module "+module+"\n\ngo 1.12\n")
	write(filepath.Join(mod, "main.go"), program)
	overlay := map[string]map[string]string{"Replace": {}}
	for name, data := range rt.Sources(rt.Config{ImportPath: module + "/internal/pmmrt_", Dir: pmmDir}) {
		file := filepath.Join(pmmDir, "rt", name)
		write(file, string(data))
		overlay["Replace"][filepath.Join(mod, "internal", "pmmrt_", name)] = file
	}
	js, _ := json.Marshal(overlay)
	write(filepath.Join(pmmDir, "overlay.json"), string(js))
	bin = filepath.Join(pmmDir, "prog")
	build := exec.Command("go", "build", "-overlay", filepath.Join(pmmDir, "overlay.json"), "-o", bin, ".")
	build.Dir = mod
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return mod, pmmDir, bin
}
