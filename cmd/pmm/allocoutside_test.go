package main

import (
	"strconv"
	"strings"
	"testing"
)

// TestAllocationsOutside builds and runs testdata/allocoutside in every
// mode. The allocations contained in an execution of Pure, on its
// goroutine, are all at sites of the module (it calls only its own
// code and sync/atomic): the answer is not flagged, and counts what the
// program measures of itself (MemStats' Mallocs). Mixed calls
// strings.Repeat, whose allocation pmm does not record: the program
// measures more than pmm counts, and the answer says why, at the call.
// Tables makes a map, not recorded: its answer says so, Pure's does not
// (the map is made in no function Pure may run). Without same-goroutine,
// Pure's answer is flagged: code outside the module may run on another
// goroutine meanwhile. Mixed's allocations by itself are not flagged
// (strings.Repeat's are never at its sites), and count what the program
// measures of Mixed less what it measures of strings.Repeat; an
// allocation variable of a negated part ("executions of Mixed that
// allocate nothing") is flagged.
func TestAllocationsOutside(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	const outside = "allocations outside the module are not counted"
	src := "../../testdata/allocoutside"
	repeat := siteLine(t, src, "main.go", "strings.Repeat(")
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			out, db := instrumentInMode(t, src, mode, "a map's allocations")
			want := wantLines(out)
			reasons := func(q string) []string {
				return queryStrings(t, db, "SELECT reason || ' @' || coalesce(position, '') FROM pmm_incomplete WHERE question = '"+q+"'")
			}
			// count is the allocations of the last execution (the
			// program measures five alike).
			count := func(q string) int {
				n, err := strconv.Atoi(queryStrings(t, db, "SELECT count(DISTINCT a) FROM "+q+" WHERE x = (SELECT max(x) FROM "+q+")")[0])
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			if got := reasons("pure"); len(got) != 0 {
				t.Errorf("pure is flagged: %q", got)
			}
			if got, measured := count("pure"), want["Pure_objects"]; strconv.Itoa(got) != measured {
				t.Errorf("pure: %d allocations, the program measured %s", got, measured)
			}
			mixed := reasons("mixed")
			if len(mixed) != 1 || !strings.Contains(mixed[0], outside) || !strings.Contains(mixed[0], "strings.Repeat") || !strings.Contains(mixed[0], " @"+repeat+":") {
				t.Errorf("mixed: pmm_incomplete %q, want one reason that %s, at strings.Repeat's call (%s)", mixed, outside, repeat)
			}
			if got, measured := count("mixed"), want["Mixed_objects"]; strconv.Itoa(got) == measured || got != 1 {
				t.Errorf("mixed: pmm counts %d allocations, the program measured %s: want 1 (its make), fewer than measured (strings.Repeat's)", got, measured)
			}
			// By Mixed itself: what the program measures of it less
			// strings.Repeat's, exactly (no reason).
			mixedObjects, _ := strconv.Atoi(want["Mixed_objects"])
			repeatObjects, _ := strconv.Atoi(want["Repeat_objects"])
			if got := reasons("mixed-itself"); len(got) != 0 {
				t.Errorf("mixed-itself is flagged: %q", got)
			}
			if got := count("mixed_itself"); got != mixedObjects-repeatObjects {
				t.Errorf("mixed-itself: %d allocations, the program measured %d less strings.Repeat's %d", got, mixedObjects, repeatObjects)
			}
			// An allocation variable of a negated part is flagged too.
			if got := reasons("mixed-none"); len(got) != 1 || !strings.Contains(got[0], outside) {
				t.Errorf("mixed-none: pmm_incomplete %q, want that %s", got, outside)
			}
			if got := reasons("tables"); len(got) != 1 || !strings.Contains(got[0], "a map's allocations") {
				t.Errorf("tables: pmm_incomplete %q, want the map's make", got)
			}
			if got := reasons("pure-anywhere"); !strings.Contains(strings.Join(got, "\n"), outside) {
				t.Errorf("pure-anywhere: pmm_incomplete %q, want that %s", got, outside)
			}
		})
	}
}
