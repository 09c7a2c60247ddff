package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/rt/load"
	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/static"
)

func answerCommand() *command {
	return &command{
		name:    "answer",
		summary: "print the answers of the questions",
		usage:   "[-run N | -all-runs] [-format table|csv|json|pprof|folded | -json] [-o FILE] [NAME...]",
		detail: `
Answer prints the answer of each question (or of the questions NAME...) for
the last run, a given run, or all runs. Each answer is a view of
.pmm/pmm.db named after its question, with dashes as underscores, so plain
SQL works too:

	sqlite3 .pmm/pmm.db 'select * from cacheable_calls'

Every view has a run column; the runs table lists the runs (id, start,
end, command, go version, exit status, the signal that killed the
program, the directory its logs came from).

With -all-runs, a question's rows come with their run; an aggregate is
answered over all the runs at once, without a run column: counts and
sums add, minima and maxima combine, and an average is the sum of every
run's values over the number of them (a run of 1000 calls weighs more
than a run of 10). It reads the view QUESTION__partials, the partial
results of each run. pmm merge brings the runs of other machines into
one database.

An answer is incomplete when pmm knows it could not record the question's
events exactly: a site it could not instrument, a call that may run
several functions it cannot tell apart, executions of a function outside
the module called from outside it, records lost. Under such an answer's
table each reason is printed, "incomplete: REASON (FILE:LINE:COL)" (a
reason met at many places once, with its first three positions and how
many more), and at the end "N of M answers are incomplete"; the exit
status is still 0.
An answer that leaves out what code outside the module allocated is
followed, in the table format, by what the run's heap profile says of
it: the tables pmm_outside_calls and pmm_outside_functions, each figure
labeled exact, a lower bound, or sampled (see pmm help run,
-exact-outside); -format json has them in its "outside" field.
The reasons are the table pmm_incomplete(run, question, reason, position);
a question without a row there is answered exactly. With -format json
(or -json) the output is one document whose answers each have
"incomplete": [] or the reasons; with csv the notes go to stderr.

Large answers: csv and json print each row as SQLite produces it, in
memory that does not grow with the answer; use them for answers of many
rows, or to read with other tools. A table is aligned on the widest cell
of each column, so it prints once every row is read, holding the text
of the answer in memory (about the size of the printed table). In JSON,
an infinite number is the string "+Inf" or "-Inf". Rows come in the
order SQLite produces them: for a given order, use SQL (sqlite3, above).

A profile: -format pprof -o FILE writes the answer of one question as a
profile.proto for go tool pprof (its -top, -http flame graph). Each row
is a sample of the function of its execution, under the executions the
question recorded it was called from: its calls, or, for a question that
records calls* (goroutines and ends), the recorded executions that
contain it on its goroutine. Functions are named as pprof names them
(main.Max[...] for every instantiation of a generic function). The
answers that are profiles:

	((x d) s.t. ... (duration x d))      one execution per row: samples
	                                     of executions/count and
	                                     duration/nanoseconds
	((x ...) s.t. ...)                   executions/count alone
	(count E (... input ...))            grouped by a function name
	(sum E (... input ... output))       (function-name x f), an
	                                     execution or a calling context
	                                     (calling-context x c): count, or
	                                     the summed duration in
	                                     nanoseconds

The answer's other columns are labels of the samples (pprof -tags,
-tagfocus); with -all-runs, a relation's run is one. An answer that is no
profile (an average, rows without one execution) is an error that says
why. An incomplete answer's reasons are the profile's comments
(go tool pprof -comments) and are printed to stderr.

Folded stacks: -format folded writes the answer of one question that has a
calling context (calling-context x c) in each row as the lines
"main.main;main.F;main.G N" that flamegraph.pl, speedscope and inferno
read: a count or a sum grouped by the context (N is the group's number;
the other groups' values, such as an allocation's type, are frames above
the context's), or rows of one event each (N is 1). Equal stacks add up.

-o FILE writes the output to FILE instead of stdout, in any format.

Example:

	pmm answer
	pmm answer -format csv cacheable-calls
	pmm answer -format pprof -o lookups.pprof lookups && go tool pprof -top lookups.pprof
	pmm answer -format folded allocs-per-context | flamegraph.pl > allocs.svg
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			runID := fs.Int64("run", 0, "answer for run `N` (default: the last run)")
			all := fs.Bool("all-runs", false, "answer for every run")
			formatName := fs.String("format", "table", "output `format`: table, csv, json, pprof or folded")
			asJSON := fs.Bool("json", false, "the same as -format json")
			outFile := fs.String("o", "", "write the output to `FILE` (needed with -format pprof)")
			return func(e *env, args []string) int {
				if *asJSON {
					*formatName = "json"
				}
				switch *formatName {
				case "table", "csv", "json":
				case "folded":
					if len(args) != 1 {
						fmt.Fprintln(e.stderr, "pmm answer: -format folded writes the stacks of one question: pmm answer -format folded [-o FILE] NAME")
						return exitUsage
					}
				case "pprof":
					if *outFile == "" || len(args) != 1 {
						fmt.Fprintln(e.stderr, "pmm answer: -format pprof writes the profile of one question to a file: pmm answer -format pprof -o FILE NAME")
						return exitUsage
					}
				default:
					fmt.Fprintf(e.stderr, "pmm answer: unknown -format %q (want table, csv, json, pprof or folded)\n", *formatName)
					return exitUsage
				}
				p, dbPath, code := readRecorded(e, "answer", *runID, *all)
				if p == nil {
					return code
				}
				names := args
				if len(names) == 0 {
					names = userQuestions(p)
				}
				db, err := openAnswers(dbPath, true)
				if err != nil {
					fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
					return exitFailure
				}
				defer db.Close()
				ctx := context.Background()
				run := *runID
				if !*all && run == 0 {
					if err := db.QueryRowContext(ctx, "SELECT coalesce(max(id), 0) FROM runs").Scan(&run); err != nil {
						fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
						return exitFailure
					}
				}
				known := map[string]bool{}
				for _, q := range p.Questions {
					known[schema.SQLName(q)] = true
				}
				notes := make([][]incompleteNote, len(names))
				incomplete := 0
				for i, name := range names {
					if !known[schema.SQLName(name)] {
						fmt.Fprintf(e.stderr, "pmm answer: no question %s (the questions are %v)\n", name, p.Questions)
						return exitUsage
					}
					if notes[i], err = incompleteNotes(ctx, db, name, run, *all); err != nil {
						fmt.Fprintf(e.stderr, "pmm answer: %s: %v\n", name, err)
						return exitFailure
					}
					if len(notes[i]) > 0 {
						incomplete++
					}
				}
				sections, err := outsideSections(ctx, db, p, names)
				if err != nil {
					fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
					return exitFailure
				}
				// The rows go to stdout (or -o FILE) as SQLite produces
				// them (a table's once all are read: its columns are as
				// wide as their widest cell).
				dest, err := newOutput(e, *outFile)
				if err != nil {
					fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
					return exitFailure
				}
				defer dest.discard()
				out := bufio.NewWriter(dest.w)
				defer out.Flush()
				done := func() int {
					if err := out.Flush(); err != nil {
						fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
						return exitFailure
					}
					if err := dest.commit(); err != nil {
						fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
						return exitFailure
					}
					return exitOK
				}
				// Read through SQLite's C API (load.Query): database/sql's
				// driver takes a mutex per value read, and converts each
				// value twice.
				read := func(name string) (header []string, rows rowIter, done func() error, err error) {
					return readAnswer(dbPath, p, name, run, *all)
				}
				summary := fmt.Sprintf("%d of %d answers are incomplete", incomplete, len(names))
				switch *formatName {
				case "pprof":
					header, rows, closeRows, err := read(names[0])
					if err == nil {
						err = writeProfile(ctx, out, db, p, names[0], header, rows, run, *all, notes[0])
						closeRows()
					}
					if err != nil {
						fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
						if errors.As(err, new(notAProfile)) {
							return exitUsage
						}
						return exitFailure
					}
					for _, l := range noteLabels(notes[0], *all) {
						fmt.Fprintf(e.stderr, "pmm answer: %s: %s\n", names[0], l)
					}
					return done()
				case "folded":
					header, rows, closeRows, err := read(names[0])
					if err == nil {
						err = writeFolded(out, names[0], header, p.Shapes[names[0]], rows)
						closeRows()
					}
					if err != nil {
						fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
						if errors.As(err, new(notFolded)) {
							return exitUsage
						}
						return exitFailure
					}
					for _, l := range noteLabels(notes[0], *all) {
						fmt.Fprintf(e.stderr, "pmm answer: %s: %s\n", names[0], l)
					}
					return done()
				case "json":
					doc := jsonAnswers{Incomplete: incomplete, Questions: len(names)}
					if !*all {
						doc.Run = run
					}
					for i, name := range names {
						doc.Answers = append(doc.Answers, jsonAnswer{Question: name, Rows: json.RawMessage(rowsPlaceholder), Incomplete: notes[i]})
					}
					for _, s := range sections {
						js, err := s.json(dbPath, run, *all)
						if err != nil {
							fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
							return exitFailure
						}
						doc.Outside = append(doc.Outside, js)
					}
					err := encodeAnswers(out, doc, func(i int, w io.Writer) error {
						header, rows, closeRows, err := read(names[i])
						if err != nil {
							return fmt.Errorf("%s: %w", names[i], err)
						}
						defer closeRows()
						return writeJSONRows(w, header, rows, indentedJSONLayout(answerRowsDepth))
					})
					if err != nil {
						out.Flush()
						fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
						return exitFailure
					}
					if incomplete > 0 {
						fmt.Fprintf(e.stderr, "pmm answer: %s\n", summary)
					}
					return done()
				}
				for i, name := range names {
					header, rows, closeRows, err := read(name)
					if err == nil {
						if *formatName == "csv" {
							err = printCSV(out, header, rows)
							out.Flush()
							for _, l := range noteLabels(notes[i], *all) { // stdout is the data
								fmt.Fprintf(e.stderr, "pmm answer: %s: %s\n", name, l)
							}
						} else {
							err = printAnswerTable(out, name, i > 0, withUnits(header, p.Units[name]), rows, notes[i], *all)
						}
						closeRows()
					}
					if err != nil {
						out.Flush()
						fmt.Fprintf(e.stderr, "pmm answer: %s: %v\n", name, err)
						return exitFailure
					}
				}
				for _, s := range sections {
					if *formatName == "csv" { // stdout is the data
						fmt.Fprintf(e.stderr, "pmm answer: %s: see pmm answer -format table, or SQL\n", s.Title)
						continue
					}
					header, rows, closeRows, err := s.read(dbPath, run, *all)
					if err == nil {
						err = printAnswerTable(out, s.Title, true, header, rows, nil, *all)
						closeRows()
					}
					if err != nil {
						out.Flush()
						fmt.Fprintf(e.stderr, "pmm answer: %s: %v\n", s.Title, err)
						return exitFailure
					}
				}
				switch {
				case incomplete == 0:
				case *formatName == "csv":
					fmt.Fprintf(e.stderr, "pmm answer: %s\n", summary)
				default:
					fmt.Fprintf(out, "\n%s\n", summary)
				}
				return done()
			}
		},
	}
}

// readRecorded checks -run N and -all-runs, and returns the project and
// the path of its pmm.db for command cmd, or nil and the exit code.
func readRecorded(e *env, cmd string, run int64, all bool) (*plan.Project, string, int) {
	if all && run != 0 {
		fmt.Fprintf(e.stderr, "pmm %s: -run and -all-runs exclude each other\n", cmd)
		return nil, "", exitUsage
	}
	p, code := readProject(e, cmd)
	if p == nil {
		return nil, "", code
	}
	dbPath := filepath.Join(pmmDir(p.Root), "pmm.db")
	if _, err := os.Stat(dbPath); err != nil {
		fmt.Fprintf(e.stderr, "pmm %s: nothing recorded yet: run pmm run or pmm test first\n", cmd)
		return nil, "", exitUsage
	}
	return p, dbPath, exitOK
}

// readAnswer reads the answer of question name in run, or in every run:
// a relation's rows with the run column first, an aggregate's partial
// results of every run combined (mergedAggregate).
func readAnswer(dbPath string, p *plan.Project, name string, run int64, all bool) (header []string, rows rowIter, done func() error, err error) {
	query := "SELECT * FROM " + schema.SQLName(name)
	var qargs []any
	switch op := p.Shapes[name].Aggregate; {
	case !all:
		query += " WHERE run = ?"
		qargs = append(qargs, run)
	case op != "":
		if query, err = mergedAggregate(dbPath, name, op); err != nil {
			return nil, nil, nil, err
		}
	}
	return queryRuns(dbPath, query, qargs, all)
}

// queryRuns runs query (with args) on pmm.db, its rows without the run
// column unless they are of every run (all).
func queryRuns(dbPath, query string, args []any, all bool) (header []string, rows rowIter, done func() error, err error) {
	r, err := load.Query(dbPath, query, args...)
	if err != nil {
		return nil, nil, nil, err
	}
	header, rows = r.Columns(), r
	if !all {
		header, rows = dropColumn(header, rows, "run")
	}
	return header, rows, r.Close, nil
}

// mergedAggregate is the query of the answer of aggregate question name
// (operation op) over every run: its partial results (schema.PartialsView)
// grouped by its keys, not by run. Counts and sums add, minima and
// maxima combine, and an average is the sum of the sums over the sum of
// the counts: each run weighs as much as it has tuples.
func mergedAggregate(dbPath, name, op string) (string, error) {
	view := schema.SQLName(name)
	r, err := load.Query(dbPath, "SELECT * FROM "+view+" LIMIT 0")
	if err != nil {
		return "", err
	}
	cols := r.Columns()
	r.Close()
	if len(cols) < 2 || cols[0] != "run" {
		return "", fmt.Errorf("the view %s has no run column", view)
	}
	var result string
	switch op {
	case "count":
		result = "sum(pmm_n)"
	case "sum":
		result = "sum(pmm_sum)"
	case "min":
		result = "min(pmm_min)"
	case "max":
		result = "max(pmm_max)"
	case "average":
		result = "CAST(sum(pmm_sum) AS REAL) / sum(pmm_n)"
	default:
		return "", fmt.Errorf("unknown aggregate %s", op)
	}
	var keys []string
	for _, c := range cols[1 : len(cols)-1] {
		keys = append(keys, `"`+c+`"`)
	}
	query := "SELECT " + strings.Join(append(slices.Clone(keys), result+` AS "`+cols[len(cols)-1]+`"`), ", ") + " FROM " + schema.PartialsView(name)
	if len(keys) > 0 {
		query += " GROUP BY " + strings.Join(keys, ", ")
	}
	// No tuple in any run is no answer, not a count of 0.
	return query + " HAVING count(*) > 0", nil
}

// output is where a command writes: stdout, or a file (-o FILE) that
// appears, whole, only when the command succeeds.
type output struct {
	w    io.Writer
	tmp  *os.File // the file being written, renamed to path by commit
	path string
}

// newOutput is stdout when path is "", else a temporary file next to
// path (relative to the command's directory).
func newOutput(e *env, path string) (*output, error) {
	if path == "" || path == "-" {
		return &output{w: e.stdout}, nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.dir, path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, err
	}
	return &output{w: f, tmp: f, path: path}, nil
}

// commit puts the file written in its place.
func (o *output) commit() error {
	if o.tmp == nil {
		return nil
	}
	f := o.tmp
	o.tmp = nil
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), o.path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// discard removes the file written, unless commit put it in place.
func (o *output) discard() {
	if o.tmp != nil {
		o.tmp.Close()
		os.Remove(o.tmp.Name())
	}
}

// jsonAnswers is the output of pmm answer -format json: every answer,
// and how many are incomplete.
type jsonAnswers struct {
	Run        int64        `json:"run,omitempty"` // the run answered; absent with -all-runs
	Answers    []jsonAnswer `json:"answers"`
	Incomplete int          `json:"incomplete"` // the answers with notes
	Questions  int          `json:"questions"`
	// Outside are the tables of allocations outside the module, when an
	// answer leaves them out (outsideSections).
	Outside []jsonSection `json:"outside,omitempty"`
}

// jsonSection is a table shown after the answers: its rows, each an
// object by column.
type jsonSection struct {
	Title string           `json:"title"`
	Rows  []map[string]any `json:"rows"`
}

// answerRowsDepth is how deep an answer's rows are in jsonAnswers: the
// document, its answers, the answer.
const answerRowsDepth = 3

// rowsPlaceholder stands for an answer's rows while encoding/json encodes
// the document: through it, the Encoder would compact and indent the rows
// again, which took longer than writing them.
const rowsPlaceholder = "null"

// printAnswerTable prints the answer of question name as a table under
// its title (after an empty line if it is not the first), then the
// reasons why it may be incomplete.
func printAnswerTable(w io.Writer, name string, notFirst bool, header []string, rows rowIter, notes []incompleteNote, allRuns bool) error {
	t, err := readTable(header, rows)
	if err != nil {
		return err
	}
	if notFirst {
		fmt.Fprintln(w)
	}
	mark := ""
	if len(notes) > 0 {
		mark = ", incomplete"
	}
	fmt.Fprintf(w, "%s (%s%s)\n", name, plural(t.rows, "row"), mark)
	if err := t.write(w); err != nil {
		return err
	}
	for _, l := range noteLabels(notes, allRuns) {
		fmt.Fprintln(w, l)
	}
	return nil
}

// encodeAnswers writes doc as encoding/json's Encoder indented by two
// spaces writes it, with the rows of answer i written by rows(i, w) in
// their place, laid out for their depth (indentedJSONLayout).
func encodeAnswers(w io.Writer, doc jsonAnswers, rows func(i int, w io.Writer) error) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	out := b.Bytes()
	// A key is quoted with plain quotes only where it is a key: inside a
	// string value, the quotes would be escaped.
	placeholder := []byte(`"rows": ` + rowsPlaceholder)
	for i := range doc.Answers {
		at := bytes.Index(out, placeholder)
		if at < 0 {
			return errors.New("no place for the rows of an answer in the encoded answers")
		}
		if _, err := w.Write(out[:at+len(placeholder)-len(rowsPlaceholder)]); err != nil {
			return err
		}
		if err := rows(i, w); err != nil {
			return err
		}
		out = out[at+len(placeholder):]
	}
	_, err := w.Write(out)
	return err
}

// jsonAnswer is one question's answer: its rows, and why it may be
// incomplete (empty when it is exact).
type jsonAnswer struct {
	Question   string           `json:"question"`
	Rows       json.RawMessage  `json:"rows"`
	Incomplete []incompleteNote `json:"incomplete"`
}

// incompleteNote is one reason why an answer may be incomplete: a row of
// pmm_incomplete.
type incompleteNote struct {
	Run      int64  `json:"run"`
	Reason   string `json:"reason"`
	Position string `json:"position,omitempty"`
}

// noteLabels are the notes as pmm answer prints them under a table, with
// their run when the answer is of every run, a reason met at several
// positions on one line (placedReasons).
func noteLabels(notes []incompleteNote, allRuns bool) []string {
	placed := make([]placedReason, len(notes))
	for i, n := range notes {
		placed[i] = placedReason{"incomplete: " + n.Reason, n.Position}
		if allRuns {
			placed[i].reason = fmt.Sprintf("incomplete in run %d: %s", n.Run, n.Reason)
		}
	}
	return placedReasons(placed)
}

// incompleteNotes returns the reasons why the answer of question q, in
// run (or in every run), may be incomplete. A database loaded before pmm
// knew them has no table: no notes.
func incompleteNotes(ctx context.Context, db *sql.DB, q string, run int64, all bool) ([]incompleteNote, error) {
	var exists int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", load.IncompleteTable).Scan(&exists); err != nil || exists == 0 {
		return nil, err
	}
	query := "SELECT DISTINCT reason, coalesce(position, ''), run FROM " + load.IncompleteTable + " WHERE question = ?"
	args := []any{q}
	if !all {
		query += " AND run = ?"
		args = append(args, run)
	}
	rows, err := db.QueryContext(ctx, query+" ORDER BY run, position, reason", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	notes := []incompleteNote{}
	for rows.Next() {
		var n incompleteNote
		if err := rows.Scan(&n.Reason, &n.Position, &n.Run); err != nil {
			return nil, err
		}
		notes = append(notes, n)
	}
	return notes, rows.Err()
}

// printCSV prints rows as CSV under a header, each row as it comes;
// NULL is an empty field.
func printCSV(out io.Writer, header []string, rows rowIter) error {
	w := csv.NewWriter(out)
	w.Write(header) //nolint:errcheck // Flush reports it
	var rec []string
	for rows.Next() {
		rec = rec[:0]
		for _, v := range rows.Row() {
			text := ""
			if v != nil {
				text = cellText(v)
			}
			rec = append(rec, text)
		}
		w.Write(rec) //nolint:errcheck // Flush reports it
	}
	w.Flush()
	if err := rows.Err(); err != nil {
		return err
	}
	return w.Error()
}

func cleanCommand() *command {
	return &command{
		name:    "clean",
		summary: "remove the instrumentation (the answers stay)",
		usage:   "[-all]",
		detail: `
Clean removes the instrumentation pmm instrument wrote (.pmm/overlay,
.pmm/overlay.json, .pmm/overlay.sum, .pmm/plan.json, .pmm/bin, .pmm/logs). The answers in
.pmm/pmm.db and the static database stay, unless -all removes .pmm/
entirely.
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			all := fs.Bool("all", false, "remove .pmm/ entirely, answers included")
			return func(e *env, args []string) int {
				root, err := static.ModuleRoot(e.dir)
				if err != nil {
					fmt.Fprintf(e.stderr, "pmm clean: %v\n", err)
					return exitUsage
				}
				dir := pmmDir(root)
				targets := []string{"overlay", "overlay.json", "overlay.sum", "plan.json", "bin", "logs"}
				if *all {
					targets = []string{""}
				}
				for _, t := range targets {
					if err := os.RemoveAll(filepath.Join(dir, t)); err != nil {
						fmt.Fprintf(e.stderr, "pmm clean: %v\n", err)
						return exitFailure
					}
				}
				return exitOK
			}
		},
	}
}
