package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The tests of what a new user met first (issue 15): each runs pmm as a
// user would and checks what it says and its exit status.

// writeFile writes text to dir/name.
func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestQuestionMatchingNothing: a question whose function the program does
// not have fails pmm instrument (exit 2), after the "did you mean"
// warning, and writes no instrumentation; -allow-empty instruments anyway.
func TestQuestionMatchingNothing(t *testing.T) {
	dir := copyModule(t, "../../testdata/cache")
	writeFile(t, dir, "typo.pmm", `(defquestion slow-g :definition ((x d) s.t. (and (function-execution x "main.Gg") (duration x d))))`)
	code, out, errOut := runPMM(t, dir, "instrument", "./...", "typo.pmm")
	if code != exitUsage {
		t.Errorf("exit %d, want %d\n%s%s", code, exitUsage, out, errOut)
	}
	containsAll(t, "stderr", errOut, `did you mean "main.G"?`, "question slow-g can have no answer in this program", "-allow-empty")
	if _, err := os.Stat(filepath.Join(dir, ".pmm", "plan.json")); err == nil {
		t.Errorf("pmm instrument wrote plan.json for a question that can have no answer")
	}
	// One question of two matching nothing is enough to fail.
	writeFile(t, dir, "both.pmm", `(defquestion g-calls :definition ((x) s.t. (function-execution x "main.G")))`)
	if code, _, errOut := runPMM(t, dir, "instrument", "./...", "both.pmm", "typo.pmm"); code != exitUsage || !strings.Contains(errOut, "question slow-g can") {
		t.Errorf("with one good question: exit %d\n%s", code, errOut)
	}
	code, out, errOut = runPMM(t, dir, "instrument", "-allow-empty", "./...", "typo.pmm")
	if code != exitOK {
		t.Fatalf("-allow-empty: exit %d\n%s%s", code, out, errOut)
	}
	containsAll(t, "stdout", out, "instrumented 0 sites for 1 question")
	containsAll(t, "stderr", errOut, `did you mean "main.G"?`)
	// A negated event that matches nothing does not empty its question:
	// every execution of G is one not called by a main.Nope.
	writeFile(t, dir, "negated.pmm", `(defquestion lone-g :definition ((x) s.t. (and (function-execution x "main.G")
	  (not (exists (f) (and (function-execution f "main.Nope") (calls f x)))))))`)
	if code, out, errOut := runPMM(t, dir, "instrument", "./...", "negated.pmm"); code != exitOK {
		t.Errorf("a negated event matching nothing: exit %d\n%s%s", code, out, errOut)
	}
}

// TestNoModuleExitCodes: every command that works in a module says the
// same when there is none, with the same exit status (2, bad usage), and
// from a go.work workspace hints at its modules.
func TestNoModuleExitCodes(t *testing.T) {
	noModule := t.TempDir()
	writeFile(t, noModule, "q.pmm", `(defquestion q :definition ((x) s.t. (function-execution x "main.F")))`)
	for _, args := range [][]string{
		{"instrument", "./...", "q.pmm"}, {"explain", "q.pmm"}, {"sites", "./..."},
		{"run", "."}, {"test"}, {"answer"}, {"stats"}, {"clean"},
	} {
		code, _, errOut := runPMM(t, noModule, args...)
		if code != exitUsage || !strings.Contains(errOut, "no go.mod in") {
			t.Errorf("pmm %s without a module: exit %d, want %d\n%s", strings.Join(args, " "), code, exitUsage, errOut)
		}
		if strings.Contains(errOut, "workspace") {
			t.Errorf("pmm %s: a hint of a workspace where there is none:\n%s", args[0], errOut)
		}
	}
	work := t.TempDir()
	if err := os.CopyFS(filepath.Join(work, "cache"), os.DirFS("../../testdata/cache")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, work, "go.work", "go 1.26\n\nuse ./cache\n")
	code, _, errOut := runPMM(t, work, "instrument", "./...", "cache/questions.pmm")
	if code != exitUsage {
		t.Errorf("from a go.work root: exit %d, want %d", code, exitUsage)
	}
	containsAll(t, "stderr", errOut, "go.work is a workspace", "cd into one of its modules (./cache)", "pmm -C ./cache instrument")
}

// TestBuildErrorOnce: a package that does not compile is reported once,
// each error with its position, not again as the go command prints it.
func TestBuildErrorOnce(t *testing.T) {
	dir := copyModule(t, "../../testdata/cache")
	writeFile(t, dir, "broken.go", "package main\n\nfunc broken() { G(1, 2, 3) }\n")
	code, _, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm")
	if code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if n := strings.Count(errOut, "too many arguments in call to G"); n != 1 {
		t.Errorf("the error is printed %d times, want once:\n%s", n, errOut)
	}
	containsAll(t, "stderr", errOut, "broken.go:3:25: too many arguments")
}

// TestHelpTopics: pmm help help and pmm help language are topics; every
// command's help has a flags section when it takes flags (pmm test's are
// go test's), and none speaks the seed's words.
func TestHelpTopics(t *testing.T) {
	code, out, errOut := runPMM(t, ".", "help", "help")
	if code != exitOK || !strings.Contains(out, "Usage: pmm help [COMMAND | language]") {
		t.Errorf("pmm help help: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runPMM(t, ".", "help", "language")
	if code != exitOK {
		t.Fatalf("pmm help language: exit %d", code)
	}
	// Every primitive the checker knows is in it, with its doc.
	for _, want := range []string{"(defquestion NAME :definition (OP ACTIVITY", "(duration x d)", "d is the wall-clock duration of x in nanoseconds.",
		"(calls* a b)", "(parameter x n v)", "example: (parameter x 1 v)", `"example.com/m/pkg.(*T).M"`} {
		if !strings.Contains(out, want) {
			t.Errorf("pmm help language lacks %q", want)
		}
	}
	code, out, _ = runPMM(t, ".", "help")
	if code != exitOK || strings.Contains(out, "docs/LANGUAGE.md") || !strings.Contains(out, "pmm help language") || !strings.Contains(out, "Exit status: 0") {
		t.Errorf("pmm help: exit %d, a path only a clone has, or no pointer to pmm help language or exit status:\n%s", code, out)
	}
	if code, _, errOut := runPMM(t, ".", "help", "languag"); code != exitUsage || !strings.Contains(errOut, `did you mean "language"?`) {
		t.Errorf("pmm help languag: exit %d\n%s", code, errOut)
	}
	for _, c := range commands() {
		code, out, _ := runPMM(t, ".", "help", c.name)
		if code != exitOK {
			t.Errorf("pmm help %s: exit %d", c.name, code)
		}
		for _, seed := range []string{"seed", "Monitor-", "SmartMonitor", "Liao"} {
			if strings.Contains(out, seed) {
				t.Errorf("pmm help %s speaks the seed's words (%q):\n%s", c.name, seed, out)
			}
		}
		// A path only a clone has is said to be one.
		if n := strings.Count(out, "docs/"); n != len(regexp.MustCompile(`docs/\S+\s+in\s+pmm's\s+repository`).FindAllString(out, -1)) {
			t.Errorf("pmm help %s names a file of docs/ as if the user had it:\n%s", c.name, out)
		}
		// Flags in one style, the go command's: -json, never --json.
		if strings.Contains(out, " --") && !strings.Contains(out, "[-- ") && !strings.Contains(out, " -- ") {
			t.Errorf("pmm help %s writes a flag with two dashes:\n%s", c.name, out)
		}
	}
	_, out, _ = runPMM(t, ".", "help", "test")
	containsAll(t, "pmm help test", out, "Flags:", "go test", "-tags")
}

// TestVersion: pmm version of a built pmm says what go version -m says
// of the binary: its module version, or devel and its commit.
func TestVersion(t *testing.T) {
	bin := pmmBin(t)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	var modVersion, revision string
	for _, line := range strings.Split(string(info), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "mod" && f[1] == "pmm.dev/pmm" {
			modVersion = f[2]
		}
		if len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision=") {
			revision = strings.TrimPrefix(f[1], "vcs.revision=")
		}
	}
	want := "pmm version " + modVersion + " "
	if modVersion == "(devel)" {
		want = "pmm version devel " + revision
	}
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("pmm version says %q, want it to begin with %q (go version -m:\n%s)", out, want, info)
	}
}

// TestAnswerTableUnitsAndValues: pmm answer's tables name the unit of
// durations and events in the header, print averages as plain decimals,
// and quote a value holding a newline, which would break the alignment.
func TestAnswerTableUnitsAndValues(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an instrumented program")
	}
	dir := t.TempDir()
	writeFile(t, dir, "go.mod", "module example.com/units\n\ngo 1.26\n")
	writeFile(t, dir, "main.go", `package main

import "fmt"

func F(s string, n int) int { return len(s) + n }

func main() {
	t := F("a\nb", 3930000) + F("a\nb", 3930000) + F("c", 1) + F("c", 2)
	fmt.Println(t)
}
`)
	writeFile(t, dir, "questions.pmm", `
(defevent fcall :definition ((x s n) s.t. (and (function-execution x "main.F") (parameter x 1 s) (parameter x 2 n))))
(defevent timed :definition ((x d) s.t. (and (function-execution x "main.F") (duration x d))))
(defquestion f-calls :definition ((x s d) s.t. (exists (n) (and (fcall x s n) (duration x d)))))
(defquestion mean-n :definition (average fcall (output input output)))
(defquestion total-time :definition (sum timed (output output)))
(defquestion n-calls :definition (count timed (output output)))
`)
	for _, args := range [][]string{{"instrument", "./...", "questions.pmm"}, {"run", "."}} {
		if code, out, errOut := runPMM(t, dir, args...); code != exitOK {
			t.Fatalf("pmm %s: exit %d\n%s%s", args[0], code, out, errOut)
		}
	}
	code, out, errOut := runPMM(t, dir, "answer")
	if code != exitOK {
		t.Fatalf("pmm answer: exit %d\n%s", code, errOut)
	}
	blocks := map[string][]string{} // each answer's lines: title, header, rows
	for _, b := range strings.Split(strings.TrimSpace(out), "\n\n") {
		lines := strings.Split(b, "\n")
		blocks[strings.Fields(lines[0])[0]] = lines
	}
	for q, want := range map[string]string{
		"f-calls":    "x (event id) s d (ns)",
		"mean-n":     "s average",
		"total-time": "sum (ns)",
		"n-calls":    "count",
	} {
		if len(blocks[q]) < 2 {
			t.Fatalf("no answer %s in:\n%s", q, out)
		}
		if got := strings.Join(strings.Fields(blocks[q][1]), " "); got != want {
			t.Errorf("header of %s: %q, want %q", q, got, want)
		}
	}
	// Four calls, a line each: the newline of "a\nb" is escaped, as %q
	// writes it, and every row lines up under the header.
	calls := blocks["f-calls"]
	if len(calls) != 2+4 {
		t.Fatalf("calls: %d lines, want a title, a header and 4 rows:\n%s", len(calls), strings.Join(calls, "\n"))
	}
	column := strings.Index(calls[1], "s  ")
	for _, row := range calls[2:] {
		if !strings.HasPrefix(row[column:], `"a\nb"`) && !strings.HasPrefix(row[column:], "c ") {
			t.Errorf("calls: row %q has no s value at the column of the header (%d)", row, column)
		}
	}
	// The averages, by hand: (3930000+3930000)/2 and (1+2)/2.
	mean := strings.Join(blocks["mean-n"][2:], "\n")
	for _, want := range []string{`"a\nb"  3930000`, `c       1.5`} {
		if !strings.Contains(mean, want) {
			t.Errorf("mean-n lacks %q:\n%s", want, mean)
		}
	}
	if strings.Contains(out, "e+") {
		t.Errorf("a number with an exponent:\n%s", out)
	}
	// The sum and the count are kept in cells: pmm stats says how many of
	// F's 4 executions were added, which its recorded column cannot count.
	_, statsOut, _ := runPMM(t, dir, "stats")
	containsAll(t, "pmm stats", statsOut, "total-time: kept in cells: 4 executions added to 1 cell", "n-calls: kept in cells: 4 executions added to 1 cell")
	// The CSV is the data: its header has no units, its values no quotes
	// but CSV's own.
	_, csvOut, _ := runPMM(t, dir, "answer", "-format", "csv", "mean-n")
	if !strings.HasPrefix(csvOut, "s,average\n") || !strings.Contains(csvOut, "\"a\nb\",3930000\n") {
		t.Errorf("pmm answer -format csv mean-n:\n%s", csvOut)
	}
}

// readmeMainCommand returns the main command of README.md: the line of
// its first sh block that begins with "go install".
func readmeMainCommand(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "```sh\n")
	if !ok {
		t.Fatal("README.md has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(line, "go install ") {
			return line
		}
	}
	t.Fatalf("README.md's first sh block has no go install line:\n%s", block)
	return ""
}

// copyRepo copies pmm's repository, as a clone has it, without .git and
// what pmm left in .pmm directories.
func copyRepo(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := "../.."
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == ".pmm") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestREADMEMainCommand runs the README's main command, as it stands
// there, in a copy of the repository with a PATH that has go and the
// system's tools but no pmm: with GOBIN set, and with GOBIN unset, where
// go install writes to GOPATH/bin. Its answer must count the repeated
// calls the example program counts by hand.
func TestREADMEMainCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("installs pmm and builds and runs an instrumented program")
	}
	line := readmeMainCommand(t)
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	modCache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		// vars are the environment's settings of the install directory;
		// bin is where go install must put pmm.
		vars func(tmp string) (vars []string, bin string)
	}{
		{"GOBIN", func(tmp string) ([]string, string) {
			return []string{"GOBIN=" + filepath.Join(tmp, "gobin")}, filepath.Join(tmp, "gobin")
		}},
		{"GOPATH", func(tmp string) ([]string, string) {
			return []string{"GOBIN=", "GOPATH=" + filepath.Join(tmp, "gopath")}, filepath.Join(tmp, "gopath", "bin")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := copyRepo(t)
			vars, bin := tc.vars(t.TempDir())
			var env []string
			for _, kv := range os.Environ() {
				switch k, _, _ := strings.Cut(kv, "="); k {
				case "PATH", "GOBIN", "GOPATH", "GOMODCACHE", "PWD":
				default:
					env = append(env, kv)
				}
			}
			env = append(env, vars...)
			env = append(env, "GOMODCACHE="+strings.TrimSpace(string(modCache)), "PATH="+filepath.Dir(goTool)+":/usr/bin:/bin")
			sh := exec.Command("sh", "-c", line)
			sh.Dir, sh.Env = repo, env
			out, err := sh.CombinedOutput()
			if err != nil {
				t.Fatalf("README's main command: %v\n%s\n%s", err, line, out)
			}
			if _, err := os.Stat(filepath.Join(bin, "pmm")); err != nil {
				t.Errorf("go install did not write %s: %v", filepath.Join(bin, "pmm"), err)
			}
			hand := exec.Command("go", "run", ".", "-hand")
			hand.Dir = filepath.Join(repo, "testdata", "cache")
			handOut, err := hand.CombinedOutput()
			if err != nil {
				t.Fatalf("go run . -hand: %v\n%s", err, handOut)
			}
			_, repeats, ok := strings.Cut(string(handOut), "repeats ")
			repeats, _, _ = strings.Cut(repeats, "\n")
			if !ok || repeats == "0" {
				t.Fatalf("the hand-instrumented run counted no repeats:\n%s", handOut)
			}
			containsAll(t, "the output of README's main command", string(out),
				"cacheable-count (1 row)\ncount\n"+repeats+"\n", "cacheable-calls ("+repeats+" rows)", "sum (ns)")
		})
	}
}
