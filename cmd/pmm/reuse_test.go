package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// regenModule is a module of three packages, for the questions of
// TestInstrumentAgainWritesWhatChanged.
var regenModule = map[string]string{
	"go.mod": "module example.com/regen\n\ngo 1.12\n",
	"main.go": `package main

import (
	"fmt"

	"example.com/regen/a"
	"example.com/regen/b"
)

func main() { fmt.Println(a.F(1)+b.G(2)+h(3), a.Twice(4)) }

func h(x int) int { return x * 2 }
`,
	"a/a.go": `package a

func F(x int) int { return x + 1 }

func Twice(x int) int { return F(F(x)) }
`,
	"b/b.go": `package b

func G(x int) int { return x * 3 }
`,
}

// regenQuestions are the durations of every function, and the
// parameters of one, named; and more.
func regenQuestions(name string, more ...string) string {
	return `(defquestion all-durations :definition
  ((x n d) s.t. (and (function-execution x n) (duration x d))))
(defquestion one-params :definition
  ((x p) s.t. (and (function-execution x "` + name + `") (parameters x p))))
` + strings.Join(more, "")
}

// twiceCallsF adds call sites in the first file that has sites
// (a/a.go), and so renumbers every site after them.
const twiceCallsF = `(defquestion twice-calls-f :definition
  ((x y) s.t. (and (function-execution x "example.com/regen/a.Twice")
                   (function-execution y "example.com/regen/a.F")
                   (calls x y))))
`

// TestInstrumentAgainWritesWhatChanged: pmm instrument after a change of
// the questions writes .pmm/ as pmm instrument of the new questions from
// scratch does, byte for byte, and writes only the overlay's files whose
// content changed: after another function is named, those of the two
// functions' files; after call sites are added in the first file, that
// file's and the runtime's configuration (the bases of the site numbers
// of the files after it: instrument.SiteBase). The others keep their
// content and are not written again.
func TestInstrumentAgainWritesWhatChanged(t *testing.T) {
	dir := t.TempDir()
	for name, text := range regenModule {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	questions := filepath.Join(dir, "q.pmm")
	instrument := func(text string) (map[string][]byte, map[string]time.Time) {
		t.Helper()
		if err := os.WriteFile(questions, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out, errOut := runPMM(t, dir, "instrument", "./...", "q.pmm"); code != exitOK {
			t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
		}
		return pmmFiles(t, dir)
	}
	first, firstTimes := instrument(regenQuestions("example.com/regen/a.F"))
	for _, c := range []struct {
		what, questions string
		changed         []string
	}{
		{"another function named", regenQuestions("example.com/regen/b.G"),
			[]string{"overlay.sum", "overlay/a/a.go", "overlay/a/pmm_gen_a.go", "overlay/b/b.go", "overlay/b/pmm_gen_b.go", "plan.json"}},
		{"call sites added in the first file", regenQuestions("example.com/regen/b.G", twiceCallsF),
			[]string{"overlay.sum", "overlay/a/a.go", "overlay/a/pmm_gen_a.go", "overlay/internal/_pmmrt/zz_config.go", "plan.json"}},
	} {
		time.Sleep(10 * time.Millisecond) // a file written again has another time
		again, againTimes := instrument(c.questions)
		if err := os.RemoveAll(filepath.Join(dir, ".pmm")); err != nil {
			t.Fatal(err)
		}
		fresh, _ := instrument(c.questions)
		for _, name := range union(again, fresh) {
			if !bytes.Equal(again[name], fresh[name]) {
				t.Errorf("%s: .pmm/%s differs from that of pmm instrument from scratch:\n%s\nwant:\n%s", c.what, name, again[name], fresh[name])
			}
		}
		var changed []string
		for _, name := range union(first, again) {
			switch {
			case !bytes.Equal(first[name], again[name]):
				changed = append(changed, name)
			case !firstTimes[name].Equal(againTimes[name]):
				t.Errorf("%s: .pmm/%s was written again with the same content", c.what, name)
			}
		}
		if !slices.Equal(changed, c.changed) {
			t.Errorf("%s: the files that changed: %v, want %v", c.what, changed, c.changed)
		}
		first, firstTimes = pmmFiles(t, dir) // from scratch: the times are those of the files written then
	}
}

// pmmFiles returns the contents and times of the files of dir's .pmm/
// that pmm instrument writes (static.db aside), by path in .pmm/.
func pmmFiles(t *testing.T, dir string) (map[string][]byte, map[string]time.Time) {
	t.Helper()
	root := filepath.Join(dir, ".pmm")
	files, times := map[string][]byte{}, map[string]time.Time{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == "static.db" || strings.HasPrefix(rel, "writable-") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files[rel], times[rel] = data, info.ModTime()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files, times
}

// union returns the keys of a and b, sorted.
func union(a, b map[string][]byte) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
