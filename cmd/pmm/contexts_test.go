package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestCallingContexts builds and runs testdata/contexts in every mode:
// the executions of leaf and of Less (called back by package sort), and
// the allocations and elements of each type, per calling context, must
// be those the program counted on its own shadow stack, with no context
// the program did not count; leaf reached by several paths has a row
// each, whose sum is its flat count; a recursion is a chain, not
// folded; a goroutine's paths start at its own function; every context
// of pmm_contexts has its parent there.
func TestCallingContexts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			out, db, dir := instrumentInModeAt(t, "../../testdata/contexts", mode)
			want := wantLines(out)
			folded := map[string][]string{} // the lines each folded answer must have
			queries := map[string]string{}
			views := map[string]int{} // the rows each view must have
			for name := range want {
				path, what, ok := strings.Cut(name, "|")
				if !ok {
					continue
				}
				kind, typ, _ := strings.Cut(what, ":")
				lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
				switch kind {
				case "exec":
					view := map[string]string{"leaf": "leaf_per_context", "Less": "less_per_context"}[path[strings.LastIndex(path, ".")+1:]]
					if view == "" {
						t.Fatalf("the program counted the executions of %s, which no question asks for", path)
					}
					queries[name] = "SELECT count FROM " + view + " WHERE c = " + lit(path)
					views[view]++
					folded[strings.ReplaceAll(view, "_", "-")] = append(folded[strings.ReplaceAll(view, "_", "-")], path+" "+want[name])
				case "alloc":
					queries[name] = "SELECT count FROM allocs_per_context WHERE c = " + lit(path) + " AND t = " + lit(typ)
					views["allocs_per_context"]++
					folded["allocs-per-context"] = append(folded["allocs-per-context"], path+";"+typ+" "+want[name])
				case "elem":
					queries[name] = "SELECT sum FROM elements_per_context WHERE c = " + lit(path) + " AND t = " + lit(typ)
				}
			}
			if len(queries) < 30 {
				t.Fatalf("the program printed %d counts per context, want at least 30", len(queries))
			}
			checkWant(t, db, want, queries)
			for view, n := range views {
				if got := queryStrings(t, db, "SELECT count(*) FROM "+view); got[0] != fmt.Sprint(n) {
					t.Errorf("%s has %s rows, the program counted %d contexts", view, got[0], n)
				}
			}
			// The folded stacks: the context, the type above it, the count.
			for question, lines := range folded {
				code, stdout, stderr := runPMM(t, dir, "answer", "-format", "folded", question)
				if code != exitOK {
					t.Fatalf("pmm answer -format folded %s: exit %d\n%s", question, code, stderr)
				}
				slices.Sort(lines)
				if got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n"); !slices.Equal(got, lines) {
					t.Errorf("pmm answer -format folded %s:\n%s\nwant\n%s", question, strings.Join(got, "\n"), strings.Join(lines, "\n"))
				}
			}
			// The profile: a sample per context and type, whose stack is
			// the context, leaf first, with the type as a label.
			file := filepath.Join(dir, "allocs.pprof")
			if code, _, stderr := runPMM(t, dir, "answer", "-format", "pprof", "-o", file, "allocs-per-context"); code != exitOK {
				t.Fatalf("pmm answer -format pprof: exit %d\n%s", code, stderr)
			}
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			prof, err := profile.Parse(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			var samples []string
			for _, s := range prof.Sample {
				var fns []string
				for i := len(s.Location) - 1; i >= 0; i-- {
					fns = append(fns, s.Location[i].Line[0].Function.Name)
				}
				samples = append(samples, fmt.Sprintf("%s;%s %d", strings.Join(fns, ";"), s.Label["t"][0], s.Value[0]))
			}
			slices.Sort(samples)
			if !slices.Equal(samples, folded["allocs-per-context"]) {
				t.Errorf("the profile of allocs-per-context:\n%s\nwant\n%s", strings.Join(samples, "\n"), strings.Join(folded["allocs-per-context"], "\n"))
			}
			if code, stdout, _ := runPMM(t, dir, "answer"); code != exitOK || strings.Contains(stdout, "pmm-calling-frames") || !strings.Contains(stdout, "leaf-per-context") {
				t.Errorf("pmm answer: exit %d, the frames question printed or leaf-per-context not:\n%s", code, stdout)
			}
			if code, _, stderr := runPMM(t, dir, "answer", "-format", "folded", "allocs-flat"); code != exitUsage || !strings.Contains(stderr, "no calling context") {
				t.Errorf("pmm answer -format folded of an answer without contexts: exit %d, %q; want a usage error that says why", code, stderr)
			}
			// A function's allocations per context sum to its flat count.
			for _, row := range queryStrings(t, db, "SELECT f.f || ' ' || f.t || ' ' || f.count || ' ' || "+
				"(SELECT coalesce(sum(c.count), 0) FROM allocs_per_context c WHERE c.t = f.t AND (c.c = f.f OR c.c LIKE '%;' || f.f)) FROM allocs_flat f") {
				fields := strings.Fields(row)
				if fields[2] != fields[3] {
					t.Errorf("%s's allocations of %s: %s flat, %s summed over its contexts", fields[0], fields[1], fields[2], fields[3])
				}
			}
			if got := queryStrings(t, db, "SELECT count(*) FROM allocs_flat WHERE f = 'main.leaf'"); got[0] != "2" {
				t.Errorf("main.leaf allocates %s types, want 2", got[0])
			}
			// The tree: each context's parent is in it, its function is
			// its last, its depth its length.
			if got := queryStrings(t, db, "SELECT count(*) FROM pmm_contexts c WHERE "+
				"(c.parent IS NULL) <> (c.depth = 1) OR c.context <> coalesce(c.parent || ';', '') || c.function OR "+
				"(c.parent IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pmm_contexts p WHERE p.run = c.run AND p.context = c.parent AND p.depth = c.depth - 1))"); got[0] != "0" {
				t.Errorf("%s contexts of pmm_contexts are not in a tree", got[0])
			}
			if got := queryStrings(t, db, "SELECT group_concat(function, ',') FROM (SELECT function FROM pmm_contexts WHERE parent IS NULL ORDER BY function)"); got[0] != "main.main,main.worker" {
				t.Errorf("the roots of the tree: %s, want main.main and the goroutine's main.worker", got[0])
			}
		})
	}
}

// TestCallingContextsNamed runs testdata/contexts with named.pmm in
// every mode: questions whose events' functions are named, so that the
// frames are the functions that can call them: the counts per context
// are the program's, and, with static approximation, no execution of a
// function that cannot call leaf or Less (grid, rows, shapes) is a
// frame.
func TestCallingContextsNamed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented programs")
	}
	for _, mode := range []string{modeStraightforward, modeStatic, modeRuntime, modeCombined} {
		t.Run(mode, func(t *testing.T) {
			dir := copyModule(t, "../../testdata/contexts")
			if code, out, errOut := runPMM(t, dir, "instrument", "--mode", mode, "./...", "named.pmm"); code != exitOK {
				t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
			}
			code, out, errOut := runPMM(t, dir, "run", ".")
			if code != exitOK {
				t.Fatalf("pmm run: exit %d\n%s%s", code, out, errOut)
			}
			db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			want := wantLines(out)
			queries := map[string]string{}
			for name := range want {
				path, what, _ := strings.Cut(name, "|")
				if what != "exec:" {
					continue
				}
				view := "leaf_per_context"
				if strings.HasSuffix(path, ".Less") {
					view = "less_per_context"
				}
				queries[name] = "SELECT count FROM " + view + " WHERE c = '" + path + "'"
			}
			if len(queries) != 6 {
				t.Fatalf("the program counted %d contexts of leaf and Less, want 6", len(queries))
			}
			checkWant(t, db, want, queries)
			if got := queryStrings(t, db, "SELECT count(*) FROM leaf_per_context"); got[0] != "5" {
				t.Errorf("leaf has %s contexts, want 5", got[0])
			}
			if mode == modeStraightforward || mode == modeRuntime {
				return // without static approximation, every function's executions are frames
			}
			if got := queryStrings(t, db, "SELECT count(*) FROM pmm_calling_frames__exec x JOIN pmm_sites s USING (site) WHERE s.function IN ('main.grid', 'main.rows', 'main.shapes')"); got[0] != "0" {
				t.Errorf("%s frames of functions that cannot call leaf or Less", got[0])
			}
			if got := queryStrings(t, db, "SELECT count(*) FROM pmm_calling_frames__exec x JOIN pmm_sites s USING (site) WHERE s.function = 'main.viaB'"); got[0] != "1" {
				t.Errorf("%s frames of viaB, which calls leaf once, want 1", got[0])
			}
		})
	}
}
