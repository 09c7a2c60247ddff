package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestGoroutines builds and runs testdata/goroutines, whose Serve starts
// workers of which a known number outlive it, in every mode: pmm's count
// of the goroutines Serve starts that outlive it, of those that end
// while it runs, of the goroutines of each spawning function and of
// each function a go statement starts (one ends by runtime.Goexit) must
// be the program's own (per spawner both from the relation and from
// pmm's count aggregate over it); the duration of each waiting worker's goroutine
// must be at least the program's own measure of its life (from just
// after its go statement to just before the worker returns, with the
// same clock), and its execution of Wait, recorded at its go statement
// (the call site knows its line) beside the goroutine, must lie within
// the goroutine, on it.
func TestGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	queries := map[string]string{
		"outliving":   "SELECT count(DISTINCT g) FROM outliving",
		"within":      "SELECT count(DISTINCT g) FROM within",
		"per_spawner": "SELECT group_concat(f || '=' || n, ',') FROM (SELECT f, count(DISTINCT g) AS n FROM per_spawner GROUP BY f ORDER BY f)",
		// The same, by pmm's aggregate.
		"spawned_count": "SELECT group_concat(f || '=' || count, ',') FROM (SELECT f, count FROM spawned_count ORDER BY f)",
		"per_name":      "SELECT group_concat(name || '=' || n, ',') FROM (SELECT name, count(DISTINCT g) AS n FROM per_name GROUP BY name ORDER BY name)",
		"rest_lines":    "SELECT count(DISTINCT g) FROM rest_lines",
	}
	src, err := os.ReadFile("../../testdata/goroutines/main.go")
	if err != nil {
		t.Fatal(err)
	}
	waitLine, poolLine := "", ""
	for i, l := range strings.Split(string(src), "\n") {
		if strings.Contains(l, "go Wait(") {
			waitLine = "main.go:" + strconv.Itoa(i+1)
		}
		if strings.Contains(l, "go job(") {
			poolLine = "main.go:" + strconv.Itoa(i+1)
		}
	}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			out, db := instrumentInMode(t, "../../testdata/goroutines", mode)
			checkWant(t, db, wantLines(out), queries)
			var lives string
			for _, l := range strings.Split(out, "\n") {
				if rest, ok := strings.CutPrefix(l, "lives "); ok {
					lives = rest
				}
			}
			program := map[string]int64{}
			for _, kv := range strings.Split(lives, ",") {
				i, d, _ := strings.Cut(kv, "=")
				program[i] = parseInt(t, d)
			}
			rows := queryStrings(t, db, "SELECT group_concat(i || '=' || d || '=' || l, ',') FROM (SELECT DISTINCT i, d, l FROM wait_lives ORDER BY i)")
			got := strings.Split(rows[0], ",")
			if len(got) != len(program) {
				t.Fatalf("wait-lives: %v, want one row for each of the program's %d waiting workers", rows, len(program))
			}
			lines := map[string]bool{}
			for _, row := range got {
				f := strings.Split(row, "=")
				want, ok := program[f[0]]
				if !ok {
					t.Fatalf("wait-lives: worker %s, which the program did not start", f[0])
				}
				if d := parseInt(t, f[1]); d < want {
					t.Errorf("worker %s: pmm's goroutine lived %d ns, less than the program's own measure inside it, %d ns", f[0], d, want)
				} else {
					t.Logf("worker %s: pmm's goroutine lived %d ns, the program measured %d ns inside it", f[0], d, want)
				}
				lines[f[2]] = true
			}
			if len(lines) != 1 || !lines[waitLine] {
				t.Errorf("wait-lives: the lines of the go statement of Wait are %v, want %s", lines, waitLine)
			}
			if got := queryStrings(t, db, "SELECT group_concat(DISTINCT l) FROM rest_lines"); got[0] != poolLine {
				t.Errorf("rest-lines: the lines of Rest's goroutines are %v, want %s (Pool's go statement)", got, poolLine)
			}
		})
	}
}

// parseInt parses a decimal integer of an answer or of the program's
// output.
func parseInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}
