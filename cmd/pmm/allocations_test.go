package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAllocations builds and runs testdata/allocations in every mode:
// for each function the program measures (runtime.MemStats's Mallocs
// and TotalAlloc around one call, one goroutine, the collector off),
// pmm's heap allocations and heap bytes during that execution, its
// callees included, must be the program's own; by the function itself
// (its own body's sites), Outer's measure less its callee Inner's; for
// JP's Fig. 3 shapes, the allocations and elements of each slice type
// the program computes; an allocation escape analysis keeps on the
// stack is none. The plain program must measure what the instrumented
// one does, but at the appends whose growths Go keeps on the stack
// without pmm's helper, and at the allocation of a function Go inlines
// without pmm (where its copy stays on the stack), which the answer
// says may be inexact.
func TestAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	measured := []string{"Fig3", "List", "Grow", "Strings", "Closure", "Stack", "Inlined", "Zero", "Variadic", "Boxed", "Channels", "Maps", "GenericMaps", "GenericSlices", "Generic", "GenericClosure", "GenericBoxes", "RangeFunc", "AddrLiterals", "ElidedOther", "Moved", "Outer", "Inner"}
	// last is the last execution of function f (the program measures
	// five alike), in the rows of view as alias.
	last := func(view, alias, f string) string {
		return fmt.Sprintf("%s.f = 'main.%s' AND %s.x = (SELECT max(x) FROM %s WHERE f = 'main.%s')", alias, f, alias, view, f)
	}
	queries := map[string]string{}
	for _, f := range measured {
		queries[f+"_objects"] = "SELECT count(DISTINCT a) FROM during WHERE " + last("during", "during", f)
		queries[f+"_bytes"] = "SELECT coalesce(sum(h), 0) FROM (SELECT DISTINCT a, h FROM during WHERE " + last("during", "during", f) + ")"
	}
	// The tiny allocator packs BoxedSmall's objects: MemStats counts
	// them exactly, not their bytes.
	queries["BoxedSmall_objects"] = "SELECT count(DISTINCT a) FROM during WHERE " + last("during", "during", "BoxedSmall")
	queries["ForInit_objects"] = "SELECT count(DISTINCT a) FROM during WHERE " + last("during", "during", "ForInit")
	for _, typ := range []string{"[][][]int", "[][]int", "[]int"} {
		queries["Fig3_"+typ] = "SELECT count(*) || ':' || coalesce(sum(n), 0) FROM (SELECT DISTINCT d.a, s.n FROM during d JOIN allocs s ON s.a = d.a WHERE " +
			last("during", "d", "Fig3") + " AND s.t = '" + typ + "')"
	}
	queries["Grow_grew"] = "SELECT count(DISTINCT d.a) FROM during d JOIN allocs s ON s.a = d.a WHERE " + last("during", "d", "Grow") + " AND s.k = 'append'"
	// perSite is every allocation's count and heap bytes by function,
	// kind and type, over the run, in the rows of view.
	perSite := func(view string) string {
		return "SELECT f || ' ' || k || ' ' || t || ': ' || count(*) || ' ' || sum(h) FROM " + view + " GROUP BY f, k, t ORDER BY f, k, t"
	}
	var combined []string              // perSite("allocs") in the combined mode
	var combinedWant map[string]string // what the program measured there
	// The program without pmm. RangeFunc's answer is its measure: pmm's
	// helper for the call of slices.All keeps Go from inlining the
	// iterator and the loop's body, so the instrumented program also
	// allocates the body's closure, the loop's state and the iterator's
	// closure: pmm's own, as its runtime's are, which it does not count.
	// (The body's sites allocate in both programs: a site that escapes
	// in an inlined copy escapes in the body compiled on its own.)
	plainRun := exec.Command("go", "run", ".")
	plainRun.Dir = "../../testdata/allocations"
	plainOut, err := plainRun.Output()
	if err != nil {
		t.Fatalf("go run: %v", err)
	}
	plainWant := wantLines(string(plainOut))
	perturbed := []string{"RangeFunc_objects", "RangeFunc_bytes"}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			out, db := instrumentInMode(t, "../../testdata/allocations", mode,
				"main.Results not instrumented: the slice of a variadic call of another call's results")
			want := wantLines(out)
			for _, name := range perturbed {
				if p, _ := strconv.Atoi(plainWant[name]); strconv.Itoa(p) != want[name] && p > 0 {
					if i, _ := strconv.Atoi(want[name]); i <= p {
						t.Errorf("%s: the instrumented program measured %s, the plain one %d: the helper no longer perturbs it (the test should compare with the instrumented one)", name, want[name], p)
					}
				}
				want[name] = plainWant[name]
			}
			if mode == modeCombined {
				combined, combinedWant = queryStrings(t, db, perSite("allocs")), want
			}
			checkWant(t, db, want, queries)
			// By Outer itself: its measure less Inner's.
			for _, unit := range []string{"objects", "bytes"} {
				outer, _ := strconv.Atoi(want["Outer_"+unit])
				inner, _ := strconv.Atoi(want["Inner_"+unit])
				q := "SELECT count(DISTINCT a) FROM by_itself WHERE " + last("by_itself", "by_itself", "Outer")
				if unit == "bytes" {
					q = "SELECT coalesce(sum(h), 0) FROM (SELECT DISTINCT a, h FROM by_itself WHERE " + last("by_itself", "by_itself", "Outer") + ")"
				}
				if got := queryStrings(t, db, q); len(got) != 1 || got[0] != strconv.Itoa(outer-inner) {
					t.Errorf("Outer by itself: %s %v, the program measured %d", unit, got, outer-inner)
				}
			}
			// Rows' allocations are at its two makes.
			src := "../../testdata/allocations"
			rowsLines := siteLine(t, src, "main.go", "r := make([][]int, b)") + "," + siteLine(t, src, "main.go", "r[j] = make([]int, c)")
			if got := queryStrings(t, db, "SELECT group_concat(l, ',') FROM (SELECT DISTINCT l FROM lines JOIN allocs USING (a) WHERE f = 'main.Rows' ORDER BY l)"); got[0] != rowsLines {
				t.Errorf("the lines of Rows' allocations: %s, want %s", got[0], rowsLines)
			}
			// Every allocation's heap bytes are its requested bytes
			// rounded up to a size class, never fewer.
			if got := queryStrings(t, db, "SELECT count(*) FROM allocs WHERE h < b OR b <= 0"); got[0] != "0" {
				t.Errorf("%s allocations with heap bytes under their requested bytes, or no bytes", got[0])
			}
			// The sites where the instrumented program allocates more
			// than the plain one are said so: Grow's append, mk's &T{},
			// and the sites of the six inlinable generic functions
			// (mkmap, mapLit, mkslice, mk3, sliceLit, appendAll).
			for reason, site := range map[string]string{"Go may keep the first growths": "append (Grow's, collect's, appendAll's)", "pmm keeps a declared function from being inlined": "mk and the generic helpers",
				"variadic call of another call''s results": "keepInts(triple())"} {
				want := map[string]string{"Go may keep the first growths": "3", "pmm keeps a declared function from being inlined": "7"}[reason]
				if want == "" {
					want = "1"
				}
				if got := queryStrings(t, db, "SELECT count(*) FROM pmm_incomplete WHERE question = 'during' AND reason LIKE '%"+reason+"%'"); got[0] != want {
					t.Errorf("pmm_incomplete: %s reasons about %s (%s...), want %s", got[0], site, reason, want)
				}
			}
			if mode != modeCombined {
				return
			}
			for name, v := range plainWant {
				if !strings.HasPrefix(name, "Grow_") && !strings.HasPrefix(name, "Inlined_") && !strings.HasPrefix(name, "GenericSlices_") && want[name] != v {
					t.Errorf("%s: the plain program measured %s, the instrumented one %s", name, v, want[name])
				}
			}
		})
	}
	// Alone, a question on each allocation and its heap bytes records
	// them without ids from NextID (plan's ImpliedID: the loader implies
	// them, negative): the same allocations, heap bytes and the
	// program's own measures as the questions above, each allocation
	// one row of a distinct id.
	t.Run("implied ids", func(t *testing.T) {
		if combined == nil {
			t.Fatal("the combined mode gave no answer to compare with")
		}
		dir := copyModule(t, "../../testdata/allocations")
		q := "(defquestion each-alloc :definition ((a f k t h) s.t. (and (allocation a f k t) (allocation-heap-bytes a h))))\n"
		if err := os.WriteFile(filepath.Join(dir, "questions.pmm"), []byte(q), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
			t.Fatalf("pmm instrument: %s%s", out, errOut)
		}
		gen, err := os.ReadFile(filepath.Join(dir, ".pmm", "overlay", "pmm_gen_main.go"))
		if err != nil || !strings.Contains(string(gen), ".EmitPoint(") || strings.Contains(string(gen), ".NextID()") {
			t.Fatalf("the sites do not record implied ids (%v)", err)
		}
		code, out, errOut := runPMM(t, dir, "run", ".")
		if code != exitOK {
			t.Fatalf("pmm run: %s%s", out, errOut)
		}
		db := openDB(t, dir)
		if got := queryStrings(t, db, perSite("each_alloc")); strings.Join(got, "\n") != strings.Join(combined, "\n") {
			t.Errorf("each allocation with implied ids:\n%s\nwith ids from NextID (allocs, combined mode):\n%s", strings.Join(got, "\n"), strings.Join(combined, "\n"))
		}
		if got := queryStrings(t, db, "SELECT count(*) = count(DISTINCT a) AND max(a) < 0 FROM each_alloc"); got[0] != "1" {
			t.Errorf("the allocations' ids are not distinct and implied (negative)")
		}
		measures := wantLines(out)
		for _, f := range measured {
			for _, unit := range []string{"objects", "bytes"} {
				if got, want := measures[f+"_"+unit], combinedWant[f+"_"+unit]; got == "" || got != want {
					t.Errorf("%s_%s: the program measured %q, in the combined mode %q", f, unit, got, want)
				}
			}
		}
	})
}
