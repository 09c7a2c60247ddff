package main

import "testing"

// TestHeapWalk builds and runs testdata/heapwalk in every mode: seed
// 000's two linked lists answer 3 and 4 nodes (reachable-objects by
// membership), whose sum is the program's count of nodes by type (7);
// the bytes are the program's sums of unsafe.Sizeof; a graph with a
// cycle and shared vertices and labels answers the vertices the
// program counts by walking it by hand, and the objects and bytes it
// counts as it allocates them; a list's nodes at the begin and the end
// of Push; and the walk that meets a channel is the only answer that
// says it is incomplete.
func TestHeapWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	// first is the first execution of Length on list name.
	first := func(q, col, name string) string {
		return "SELECT " + col + " FROM " + q + " WHERE name = '" + name + "' ORDER BY x LIMIT 1"
	}
	queries := map[string]string{
		"nodes_by_type":  "SELECT sum(n) FROM nodes WHERE x IN (SELECT min(x) FROM nodes GROUP BY name)",
		"push_begin":     "SELECT n0 FROM push",
		"push_end":       "SELECT n1 FROM push",
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
