package main

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/golden"
	"pmm.dev/pmm/rt"
)

// snapshotRoot is the placeholder that stands for the module directory
// (a temporary copy, different on every run) in the snapshots: in the
// /*line*/ directives of the generated code, in the runtime's default
// directory and in plan.json.
const snapshotRoot = "$ROOT"

// snapshotDir holds the snapshots, one file per generated file, as
// snapshots/PROGRAM/MODE/PATH.snap, PATH relative to .pmm/overlay/ (and
// plan.json, the plan the later commands read).
const snapshotDir = "testdata/snapshots"

// snapshotModes are the programs instrumented in every mode, not only in
// the default one.
var snapshotModes = map[string][]string{
	"fig41": {modeStraightforward, modeStatic, modeRuntime, modeCombined},
	"cache": {modeStraightforward, modeStatic, modeRuntime, modeCombined},
	"e2e":   {modeStraightforward, modeStatic, modeRuntime, modeCombined},
}

// TestSnapshots instruments each program of testdata that has a
// questions.pmm, compares every file pmm generates from the user's code
// (the rewritten files, the pmm_gen_*.go helpers, the runtime's
// generated configuration, plan.json) with its snapshot, and builds the
// program with the overlay, its tests too if it has some: a change in
// generated code is reviewed as a diff of the snapshots, and generated
// code that does not compile fails here (not with -short, which only
// compares). With -update it rewrites the snapshots instead of comparing
// them.
//
// The programs of testdata/semantics are left out: they instrument every
// function, megabytes of generated code no one would review.
func TestSnapshots(t *testing.T) {
	questions, err := filepath.Glob("../../testdata/*/questions.pmm")
	if err != nil {
		t.Fatal(err)
	}
	if len(questions) == 0 {
		t.Fatal("no testdata program with a questions.pmm")
	}
	want := map[string]bool{} // the snapshot directories, PROGRAM/MODE
	for _, q := range questions {
		module := filepath.Dir(q)
		program := filepath.Base(module)
		modes := snapshotModes[program]
		if modes == nil {
			modes = []string{modeCombined}
		}
		for _, mode := range modes {
			want[program+"/"+mode] = true
			t.Run(program+"/"+mode, func(t *testing.T) {
				t.Parallel()
				checkSnapshot(t, module, filepath.Join(snapshotDir, program, mode), mode)
			})
		}
	}
	// The snapshots of a program or a mode no longer instrumented.
	dirs, err := filepath.Glob(filepath.Join(snapshotDir, "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		rel, err := filepath.Rel(snapshotDir, dir)
		if err != nil {
			t.Fatal(err)
		}
		if want[filepath.ToSlash(rel)] {
			continue
		}
		if !*update {
			t.Errorf("%s: no program is instrumented so (run the test with -update to remove it)", dir)
		} else if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Dir(dir)) // the program's directory, if now empty
	}
}

// checkSnapshot instruments a copy of module in mode, compares what pmm
// generated with the snapshots in dir, and builds the result.
func checkSnapshot(t *testing.T, module, dir, mode string) {
	root := copyModule(t, module)
	hasTests := hasTestFiles(t, root)
	// -allow-empty: some example questions match nothing on purpose
	// (testdata/sites's nothing), and their code is snapshotted too.
	args := []string{"instrument", "-allow-empty", "-mode", mode}
	if hasTests {
		args = append(args, "--tests")
	}
	args = append(args, "./...", "questions.pmm")
	if code, out, errOut := runPMM(t, root, args...); code != exitOK {
		t.Fatalf("pmm %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	got := generatedFiles(t, root)
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	} else {
		for _, name := range snapshotNames(t, dir) {
			if _, ok := got[name]; !ok {
				t.Errorf("%s: pmm no longer generates %s (run the test with -update to remove its snapshot)", dir, name)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		golden.Check(t, filepath.Join(dir, filepath.FromSlash(name)+".snap"), got[name], *update)
	}

	if testing.Short() {
		return // the comparison only: the builds are most of the time
	}
	overlay := filepath.Join(pmmDir(root), "overlay.json")
	goBuild(t, root, "build", "-overlay", overlay, "-o", os.DevNull, "./...")
	if hasTests {
		goBuild(t, root, "test", "-overlay", overlay, "-vet=off", "-c", "-o", t.TempDir()+string(filepath.Separator), "./...")
	}
}

// generatedFiles returns what pmm instrument generated from the user's
// code in root, by slash-separated path relative to .pmm/overlay/ (and
// "plan.json"), with root replaced by snapshotRoot: every file of the
// overlay but the runtime's own sources, which are copies of rt/pmmrt
// and rt/logfmt.
func generatedFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	roots := []string{root}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		roots = append(roots, real)
	}
	stable := func(data []byte) string {
		s := string(data)
		for _, r := range roots {
			s = strings.ReplaceAll(s, r, snapshotRoot)
		}
		return s
	}
	files := map[string]string{}
	overlay := filepath.Join(pmmDir(root), "overlay")
	err := filepath.WalkDir(overlay, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(overlay, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, runtimeDir+"/") && rel != runtimeDir+"/"+rt.ConfigFile {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[rel] = stable(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := os.ReadFile(filepath.Join(pmmDir(root), "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The key hashes pmm's executable, the test binary here: it changes
	// with every build.
	files["plan.json"] = planKey.ReplaceAllString(stable(plan), `"key": "$$KEY"`)
	return files
}

// planKey is plan.json's key (plan.Project.Key).
var planKey = regexp.MustCompile(`"key": "[0-9a-f]+"`)

// snapshotNames returns the files of the snapshots in dir, named as
// generatedFiles names them.
func snapshotNames(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		names = append(names, strings.TrimSuffix(filepath.ToSlash(rel), ".snap"))
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// hasTestFiles reports whether the module in root has test files, which
// pmm instrument then instruments too (--tests).
func hasTestFiles(t *testing.T, root string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, "_test.go") {
			found = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
