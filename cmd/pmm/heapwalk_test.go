package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHeapWalk builds and runs testdata/heapwalk in every mode: seed
// 000's two linked lists answer 3 and 4 nodes (reachable-objects by
// membership), whose sum is the program's count of nodes by type (7);
// the bytes are the program's sums of unsafe.Sizeof; a graph with a
// cycle and shared vertices and labels answers the vertices the
// program counts by walking it by hand, and the objects and bytes it
// counts as it allocates them; a list's nodes at the begin and the end
// of Push, and at the allocation of its node; a walk whose root
// panics (l.head of a nil l) has no value and the program goes on; and
// the walk that meets a channel is the only answer that says it is
// incomplete.
func TestHeapWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	// first is the first execution of Length on list name.
	first := func(q, col, name string) string {
		return "SELECT " + col + " FROM " + q + " WHERE name = '" + name + "' ORDER BY x LIMIT 1"
	}
	queries := map[string]string{
		"nodes_by_type": "SELECT sum(n) FROM nodes WHERE x IN (SELECT min(x) FROM nodes WHERE name IN ('list0', 'list1') GROUP BY name)",
		"push_begin":    "SELECT n0 FROM push ORDER BY x LIMIT 1",
		"push_end":      "SELECT n1 FROM push ORDER BY x LIMIT 1",
		// Every push adds one node, on the shared list too.
		"shared_pushes": "SELECT count(*) - 1 FROM push WHERE n1 = n0 + 1",
		"shared_nodes":  "SELECT n FROM nodes WHERE name = 'shared' ORDER BY x DESC LIMIT 1",
		// Size(nil)'s walk from l.head has no value.
		"heads_walked": "SELECT count(*) FROM heads",
		"heads_nodes":  "SELECT n FROM heads",
		// At Push's allocation of its node, the nodes its begin saw.
		"push_alloc":     "SELECT n FROM at_alloc ORDER BY x LIMIT 1",
		"graph_vertices": "SELECT v FROM graph",
		"graph_objects":  "SELECT n FROM graph",
		"graph_bytes":    "SELECT b FROM graph",
		"pipe_objects":   "SELECT n FROM pipe",
	}
	for _, l := range []string{"list0", "list1"} {
		queries["nodes_"+l] = first("nodes", "n", l)
		queries["node_bytes_"+l] = first("nodes", "b", l)
		queries["all_objects_"+l] = first("everything", "n", l)
		queries["all_bytes_"+l] = first("everything", "b", l)
	}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			out, db := instrumentInMode(t, "../../testdata/heapwalk", mode)
			want := wantLines(out)
			checkWant(t, db, want, queries)
			// Every Push's allocation saw the nodes its begin saw.
			if got := queryStrings(t, db, "SELECT count(*) FROM at_alloc JOIN push USING (x) WHERE at_alloc.n = push.n0"); got[0] != strconv.Itoa(atoi(t, want["shared_pushes"])+1) {
				t.Errorf("%s allocations in Push saw the nodes its begin saw, want one per Push (%d)", got[0], atoi(t, want["shared_pushes"])+1)
			}
			// From the root vertex, the same vertices.
			if got := queryStrings(t, db, "SELECT v FROM graph_from_root"); len(got) != 1 || got[0] != want["graph_vertices"] {
				t.Errorf("vertices from the root vertex: %v, the program counted %s", got, want["graph_vertices"])
			}
			if got := queryStrings(t, db, "SELECT count(*) FROM pmm_incomplete WHERE question = 'pipe' AND reason LIKE '%\"p\" \"*\" met a channel%'"); got[0] != "1" {
				t.Errorf("pmm_incomplete: %s rows say the pipe's walk met a channel, want 1", got[0])
			}
			if got := queryStrings(t, db, "SELECT coalesce(group_concat(question || ': ' || reason, '; '), 'none') FROM pmm_incomplete WHERE question <> 'pipe'"); got[0] != "none" {
				t.Errorf("pmm_incomplete: other answers are incomplete: %s", got[0])
			}
		})
	}
}

// TestHeapWalkRace builds testdata/heapwalk, instrumented, with the race
// detector: its goroutines walk a list they share under a lock, at
// points where the caller holds it; the detector must report no race,
// and the program must print what the plain one prints.
func TestHeapWalkRace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	dir := copyModule(t, "../../testdata/heapwalk")
	if code, out, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
	}
	bin := filepath.Join(t.TempDir(), "race")
	goBuild(t, dir, "build", "-race", "-overlay", filepath.Join(dir, ".pmm", "overlay.json"), "-o", bin, ".")
	plain := exec.Command("go", "run", ".")
	plain.Dir = dir
	want, err := plain.Output()
	if err != nil {
		t.Fatalf("go run: %v", err)
	}
	run := exec.Command(bin)
	run.Dir = dir
	run.Env = append(os.Environ(), "PMM_DIR="+filepath.Join(dir, ".pmm"))
	var stderr strings.Builder
	run.Stderr = &stderr
	got, err := run.Output()
	if strings.Contains(stderr.String(), "DATA RACE") {
		t.Fatalf("the race detector reports a race:\n%s", stderr.String())
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if string(got) != string(want) {
		t.Errorf("the instrumented program printed\n%s\nthe plain one\n%s", got, want)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestHeapWalkOnlyWhereAsked runs testdata/walkrace, under the race
// detector, in every mode: its question walks a store and reads its
// map's length at Len only, where the program reads them race-free;
// writer and reader, on goroutines nothing orders, have the store in
// scope too. The modes without static approximation record every
// function's executions, and pmm evaluated the question's expressions
// at all of them: a data race on the map that the program does not
// have. Now a site static approximation rules out evaluates none of
// them.
func TestHeapWalkOnlyWhereAsked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	t.Setenv("GOFLAGS", "-race")
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			dir := copyModule(t, "../../testdata/walkrace")
			if code, out, errOut := runPMM(t, dir, "instrument", "-mode", mode, "./...", "questions.pmm"); code != exitOK {
				t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut := runPMM(t, dir, "run", ".")
			if strings.Contains(errOut, "DATA RACE") {
				t.Fatalf("the race detector reports a race:\n%s", errOut)
			}
			if code != exitOK {
				t.Fatalf("pmm run: exit %d\n%s%s", code, out, errOut)
			}
			db := openDB(t, dir)
			defer db.Close()
			// 3 keys; the store, its map, and the one string literal
			// its three values share.
			if got := queryStrings(t, db, "SELECT n || ' ' || o FROM at_len"); len(got) != 1 || got[0] != "3 3" {
				t.Errorf("at-len: %v, want [3 3]", got)
			}
			if got := queryStrings(t, db, "SELECT coalesce(group_concat(reason, '; '), 'none') FROM pmm_incomplete"); got[0] != "none" {
				t.Errorf("incomplete: %s", got[0])
			}
			// Whether the race detector sees the race depends on the
			// order of pmm's records; what was evaluated does not: one
			// walk and one length, Len's, and none at writer or reader.
			for _, table := range []string{"at_len__reachable_objects", "at_len__data_condition"} {
				if got := queryStrings(t, db, "SELECT count(*) FROM "+table); got[0] != "1" {
					t.Errorf("%s: %s rows, want 1 (Len's)", table, got[0])
				}
			}
		})
	}
}
