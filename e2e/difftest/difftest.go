// Package difftest is the differential test of pmm against the reference
// semantics (issue 10): random programs and questions from
// internal/progen, answered by the reference evaluator (internal/refeval)
// over the trace of each program's traced twin, and by pmm in each of its
// four modes; every answer of every mode is compared with the reference.
package difftest

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"pmm.dev/pmm/internal/progen"
	"pmm.dev/pmm/internal/refeval"
	"pmm.dev/pmm/internal/reftrace"
	"pmm.dev/pmm/internal/sourcedeps"
	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/spec"
)

// Modes are pmm's four ways of instrumenting.
var Modes = []string{"straightforward", "static", "runtime", "combined"}

// The outcome of one question in one mode.
const (
	Equal    = "equal"
	Differs  = "differs"
	Flagged  = "flagged"           // pmm marked the answer incomplete (pmm_incomplete)
	NoAnswer = "pmm-no-view"       // the view is missing or cannot be read
	InstrErr = "instrument-failed" // pmm instrument failed
	BuildErr = "build-failed"      // the generated code does not compile
	RunErr   = "run-failed"        // the instrumented program failed

	NoReference = "no-reference" // the reference evaluator has no answer: a bug of the generator or of refeval
)

// Result is the outcome of one question of one program in one mode.
type Result struct {
	Seed     int64
	Question string
	Kind     string // the template: "calls", "cache-count", ...
	Mode     string
	Outcome  string
	Detail   string // what pmm said, or the two answers
}

// Env is what a differential run needs: pmm's binary and a scratch
// directory.
type Env struct {
	PMM     string // path of the pmm binary
	Dir     string // scratch directory; each program gets a subdirectory
	Timeout time.Duration
}

// BuildPMM builds the pmm binary of the module at root into dir.
// It reads the module's sources first, so that go test's cached result
// of the caller depends on them (internal/sourcedeps).
func BuildPMM(root, dir string) (string, error) {
	if err := sourcedeps.Read(root); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "pmm")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/pmm")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/pmm: %v\n%s", err, out)
	}
	return bin, nil
}

// Reference runs the traced twin of p in dir and evaluates the questions
// of p over its trace, each on its own (notes says where the whole file
// gives another answer). The answers may be partial, with an error that
// says why some questions have none.
func (e *Env) Reference(p *progen.Program, dir string) (answers map[string]*refeval.Answer, notes []string, err error) {
	twin := filepath.Join(dir, "twin")
	if err := p.WriteTwin(twin); err != nil {
		return nil, nil, err
	}
	trace := filepath.Join(dir, "trace.jsonl")
	if _, err := e.command(twin, []string{progen.TraceEnv + "=" + trace}, "go", "run", "."); err != nil {
		return nil, nil, fmt.Errorf("the traced twin: %v", err)
	}
	tr, err := reftrace.ReadFile(trace)
	if err != nil {
		return nil, nil, err
	}
	return isolatedAnswers(p.Questions, p.QuestionNames, tr)
}

// isolatedAnswers evaluates each question with only the definitions it
// uses, with an evaluator of its own, so that no question's answer
// depends on the others of the file. It also evaluates the whole file and
// returns, as notes, the questions whose answer differs there: the
// reference evaluator then keeps state between questions, a bug of
// internal/refeval (seen: a calls question answered with no row after a
// calls* question of the same file, see docs/EVALUATION.md).
func isolatedAnswers(questions string, names []string, tr *reftrace.Trace) (answers map[string]*refeval.Answer, notes []string, err error) {
	whole, err := ReferenceAnswers(questions, tr)
	if whole == nil {
		return nil, nil, err
	}
	defs := strings.Split(strings.TrimSpace(questions), "\n\n")
	answers = map[string]*refeval.Answer{}
	var errs []error
	for _, q := range names {
		alone, err := ReferenceAnswers(usedDefs(defs, q), tr)
		if alone == nil || alone[q] == nil {
			errs = append(errs, fmt.Errorf("%s: %v", q, err))
			continue
		}
		answers[q] = alone[q]
		if w := whole[q]; w == nil || strings.Join(w.Canonical(), "\n") != strings.Join(alone[q].Canonical(), "\n") {
			notes = append(notes, fmt.Sprintf("the reference answers %s differently in the whole file: %s alone, %s there",
				q, short(alone[q].Canonical()), short(whole[q].Canonical())))
		}
	}
	return answers, notes, errors.Join(errs...)
}

// usedDefs is the text of the definitions of q and of those it uses,
// directly or not, in their order in the file.
func usedDefs(defs []string, q string) string {
	name := func(d string) string {
		f := strings.Fields(d)
		if len(f) < 2 {
			return ""
		}
		return f[1]
	}
	uses := func(d, n string) bool {
		return regexp.MustCompile(`[\s(]` + regexp.QuoteMeta(n) + `[\s)]`).MatchString(d)
	}
	need := map[string]bool{q: true}
	for changed := true; changed; {
		changed = false
		for _, d := range defs {
			if !need[name(d)] {
				continue
			}
			for _, o := range defs {
				if n := name(o); !need[n] && uses(d, n) {
					need[n], changed = true, true
				}
			}
		}
	}
	var out []string
	for _, d := range defs {
		if need[name(d)] {
			out = append(out, d)
		}
	}
	return strings.Join(out, "\n\n")
}

// ReferenceAnswers evaluates the questions of a PMM file over a trace:
// nil if the file does not compile, else the answers, and an error
// naming the questions the reference could not answer.
func ReferenceAnswers(questions string, tr *reftrace.Trace) (map[string]*refeval.Answer, error) {
	prog, err := spec.Compile(spec.Source{Name: "questions.pmm", Text: []byte(questions)})
	if err != nil {
		return nil, err
	}
	return refeval.Evaluate(prog, tr)
}

// Program generates the program of seed, answers its questions with the
// reference and with pmm in every mode, and returns one Result per
// question and mode, and the notes of the reference (Reference).
func (e *Env) Program(seed int64, feat progen.Features) ([]Result, []string, error) {
	return e.Generated(seed, progen.Generate(seed, feat), Modes)
}

// Generated is Program for a generated program p of seed (which may have
// been edited), in the given modes.
func (e *Env) Generated(seed int64, p *progen.Program, modes []string) ([]Result, []string, error) {
	dir := filepath.Join(e.Dir, fmt.Sprintf("seed%d", seed))
	ref, notes, err := e.Reference(p, dir)
	if ref == nil {
		return nil, nil, fmt.Errorf("seed %d: reference: %v", seed, err)
	}
	// A question the reference cannot answer (err says why) is reported
	// as such, the others compared.
	var results []Result
	for i, mode := range modes {
		mdir := filepath.Join(dir, mode)
		if err := p.WritePlain(mdir); err != nil {
			return nil, nil, err
		}
		if i > 0 {
			// The same sources: pmm reuses the static database (its
			// fingerprint says whether it may).
			reuseStatic(filepath.Join(dir, modes[0]), mdir)
		}
		for _, r := range e.Compare(mdir, mode, p.QuestionNames, ref) {
			r.Seed = seed
			if r.Outcome == NoReference && err != nil {
				r.Detail = err.Error()
			}
			results = append(results, r)
		}
	}
	return results, notes, nil
}

// reuseStatic copies the static database pmm built in one copy of a
// module into another copy, if there is one.
func reuseStatic(from, to string) {
	data, err := os.ReadFile(filepath.Join(from, ".pmm", "static.db"))
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Join(to, ".pmm"), 0o755) == nil {
		os.WriteFile(filepath.Join(to, ".pmm", "static.db"), data, 0o644)
	}
}

// Compare instruments the module in dir (a plain program and its
// questions.pmm) in mode, runs it, and compares the view of each
// question with the reference answer.
func (e *Env) Compare(dir, mode string, questions []string, ref map[string]*refeval.Answer) []Result {
	all := func(outcome, detail string) []Result {
		var rs []Result
		for _, q := range questions {
			rs = append(rs, Result{Question: q, Kind: Kind(q), Mode: mode, Outcome: outcome, Detail: detail})
		}
		return rs
	}
	// A random question may match no function: its answer, empty, is
	// compared like any other.
	if out, err := e.command(dir, nil, e.PMM, "instrument", "-allow-empty", "-mode", mode, "./...", "questions.pmm"); err != nil {
		return all(InstrErr, firstLines(out, 6))
	}
	if out, err := e.command(dir, nil, e.PMM, "run", "."); err != nil {
		if buildFailure.MatchString(out) {
			return all(BuildErr, firstLines(out, 6))
		}
		return all(RunErr, firstLines(out, 6))
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, ".pmm", "pmm.db"))
	if err != nil {
		return all(NoAnswer, err.Error())
	}
	defer db.Close()
	flagged := incomplete(db)
	var rs []Result
	for _, q := range questions {
		r := Result{Question: q, Kind: Kind(q), Mode: mode}
		a := ref[q]
		switch {
		case a == nil:
			r.Outcome, r.Detail = NoReference, "the reference has no answer"
		case flagged[q] != "":
			r.Outcome, r.Detail = Flagged, flagged[q]
		default:
			got, err := view(db, q, a)
			want := a.Canonical()
			switch {
			case err != nil:
				r.Outcome, r.Detail = NoAnswer, err.Error()
			case strings.Join(got, "\n") == strings.Join(want, "\n"):
				r.Outcome = Equal
			default:
				r.Outcome, r.Detail = Differs, fmt.Sprintf("pmm %s, reference %s", short(got), short(want))
			}
		}
		rs = append(rs, r)
	}
	return rs
}

// buildFailure recognizes compiler errors in pmm run's output.
var buildFailure = regexp.MustCompile(`(?m)(\.go:\d+:\d+: |^# example\.com/gen)`)

// view reads the rows of q's view of the last run, canonical.
func view(db *sql.DB, q string, a *refeval.Answer) ([]string, error) {
	name := schema.SQLName(q)
	rows, err := db.QueryContext(context.Background(),
		fmt.Sprintf("SELECT * FROM %s WHERE run = (SELECT max(id) FROM runs)", name))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return a.CanonicalView(out)
}

// incomplete reads pmm_incomplete, where pmm says which answers it
// cannot guarantee, if the database has it: question → reason.
func incomplete(db *sql.DB) map[string]string {
	out := map[string]string{}
	rows, err := db.Query("SELECT question, reason FROM pmm_incomplete WHERE run = (SELECT max(id) FROM runs)")
	if err != nil {
		return out
	}
	defer rows.Close()
	for rows.Next() {
		var q, reason string
		if rows.Scan(&q, &reason) == nil {
			out[q] = reason
			out[schema.SQLName(q)] = reason
		}
	}
	return out
}

// Kind is the template of a generated question: "q3-calls-star" → "calls-star".
func Kind(q string) string {
	if i := strings.IndexByte(q, '-'); i >= 0 {
		return q[i+1:]
	}
	return q
}

func (e *Env) command(dir string, env []string, name string, args ...string) (string, error) {
	ctx := context.Background()
	if e.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("timed out after %v", e.Timeout)
	}
	if err != nil {
		return out.String(), fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, firstLines(out.String(), 20))
	}
	return out.String(), nil
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "\n")
}

func short(rows []string) string {
	s := "[" + strings.Join(rows, "; ") + "]"
	if len(s) > 200 {
		s = s[:200] + "...]"
	}
	return s
}

// Summary is the table of a differential run: outcomes per mode, and
// each failure class (outcome, template, mode) with a count and one
// example.
func Summary(results []Result, programs int) string {
	var b strings.Builder
	questions := map[string]bool{}
	for _, r := range results {
		questions[fmt.Sprint(r.Seed, r.Question)] = true
	}
	fmt.Fprintf(&b, "%d programs, %d questions, %d modes: %d answers\n\n", programs, len(questions), len(Modes), len(results))
	outcomes := []string{Equal, Flagged, Differs, NoAnswer, InstrErr, BuildErr, RunErr, NoReference}
	fmt.Fprintf(&b, "| mode | %s |\n|---|%s\n", strings.Join(outcomes, " | "), strings.Repeat("---|", len(outcomes)))
	for _, mode := range append(append([]string{}, Modes...), "all") {
		counts := map[string]int{}
		for _, r := range results {
			if r.Mode == mode || mode == "all" {
				counts[r.Outcome]++
			}
		}
		var cells []string
		for _, o := range outcomes {
			cells = append(cells, fmt.Sprint(counts[o]))
		}
		fmt.Fprintf(&b, "| %s | %s |\n", mode, strings.Join(cells, " | "))
	}
	type class struct{ outcome, kind, mode string }
	count := map[class]int{}
	example := map[class]Result{}
	for _, r := range results {
		if r.Outcome == Equal {
			continue
		}
		c := class{r.Outcome, r.Kind, r.Mode}
		if r.Outcome == InstrErr || r.Outcome == BuildErr || r.Outcome == RunErr {
			c.kind = "(every question)"
		}
		if count[c] == 0 {
			example[c] = r
		}
		count[c]++
	}
	var classes []class
	for c := range count {
		classes = append(classes, c)
	}
	sort.Slice(classes, func(i, j int) bool {
		a, b := classes[i], classes[j]
		if a.outcome != b.outcome {
			return a.outcome < b.outcome
		}
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		return a.mode < b.mode
	})
	if len(classes) > 0 {
		fmt.Fprintf(&b, "\n| outcome | question template | mode | answers | example |\n|---|---|---|---|---|\n")
	}
	for _, c := range classes {
		ex := example[c]
		detail := strings.ReplaceAll(firstLines(ex.Detail, 2), "\n", " ⏎ ")
		fmt.Fprintf(&b, "| %s | %s | %s | %d | seed %d %s: %s |\n", c.outcome, c.kind, c.mode, count[c], ex.Seed, ex.Question, detail)
	}
	return b.String()
}
