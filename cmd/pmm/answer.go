package main

import (
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
	"strings"

	"pmm.dev/pmm/rt/load"
	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/static"
)

func answerCommand() *command {
	return &command{
		name:    "answer",
		summary: "print the answers of the questions",
		usage:   "[-run N | -all-runs] [-format table|csv|json | -json] [NAME...]",
		detail: `
Answer prints the answer of each question (or of the questions NAME...) for
the last run, a given run, or all runs. Each answer is a view of
.pmm/pmm.db named after its question, with dashes as underscores, so plain
SQL works too:

	sqlite3 .pmm/pmm.db 'select * from cacheable_calls'

Every view has a run column; the runs table lists the runs (id, start,
end, command, go version, exit status, the signal that killed the
program, the directory its logs came from).

An answer is incomplete when pmm knows it could not record the question's
events exactly: a site it could not instrument, a call that may run
several functions it cannot tell apart, executions of a function outside
the module called from outside it, records lost. Under such an answer's
table each reason is printed, "incomplete: REASON (FILE:LINE:COL)", and
at the end "N of M answers are incomplete"; the exit status is still 0.
The reasons are the table pmm_incomplete(run, question, reason, position);
a question without a row there is answered exactly. With -format json
(or -json) the output is one document whose answers each have
"incomplete": [] or the reasons; with csv the notes go to stderr.

Example:

	pmm answer
	pmm answer -format csv cacheable-calls
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			runID := fs.Int64("run", 0, "answer for run `N` (default: the last run)")
			all := fs.Bool("all-runs", false, "answer for every run")
			formatName := fs.String("format", "table", "output `format`: table, csv or json")
			asJSON := fs.Bool("json", false, "the same as -format json")
			return func(e *env, args []string) int {
				if *asJSON {
					*formatName = "json"
				}
				switch *formatName {
				case "table", "csv", "json":
				default:
					fmt.Fprintf(e.stderr, "pmm answer: unknown -format %q (want table, csv or json)\n", *formatName)
					return exitUsage
				}
				if *all && *runID != 0 {
					fmt.Fprintln(e.stderr, "pmm answer: -run and -all-runs exclude each other")
					return exitUsage
				}
				p, code := readProject(e, "answer")
				if p == nil {
					return code
				}
				names := args
				if len(names) == 0 {
					names = p.Questions
				}
				dbPath := filepath.Join(pmmDir(p.Root), "pmm.db")
				if _, err := os.Stat(dbPath); err != nil {
					fmt.Fprintln(e.stderr, "pmm answer: nothing recorded yet: run pmm run or pmm test first")
					return exitUsage
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
				var answers []jsonAnswer
				var answerRows []string // the rows of each of answers, as JSON
				incomplete := 0
				for i, name := range names {
					view := schema.SQLName(name)
					if !known[view] {
						fmt.Fprintf(e.stderr, "pmm answer: no question %s (the questions are %v)\n", name, p.Questions)
						return exitUsage
					}
					query := "SELECT * FROM " + view
					var qargs []any
					if !*all {
						query += " WHERE run = ?"
						qargs = append(qargs, run)
					}
					header, rows, err := queryRows(ctx, db, query, qargs...)
					if err != nil {
						fmt.Fprintf(e.stderr, "pmm answer: %s: %v\n", name, err)
						return exitFailure
					}
					if !*all {
						header, rows = dropColumn(header, rows, "run")
					}
					notes, err := incompleteNotes(ctx, db, name, run, *all)
					if err != nil {
						fmt.Fprintf(e.stderr, "pmm answer: %s: %v\n", name, err)
						return exitFailure
					}
					if len(notes) > 0 {
						incomplete++
					}
					switch *formatName {
					case "json":
						var text string
						if text, err = answerRowsJSON(header, rows); err == nil {
							answers = append(answers, jsonAnswer{Question: name, Rows: json.RawMessage(rowsPlaceholder), Incomplete: notes})
							answerRows = append(answerRows, text)
						}
					case "csv":
						err = printCSV(e.stdout, header, rows)
						for _, n := range notes { // stdout is the data
							fmt.Fprintf(e.stderr, "pmm answer: %s: %s\n", name, n.label(*all))
						}
					default:
						if i > 0 {
							fmt.Fprintln(e.stdout)
						}
						mark := ""
						if len(notes) > 0 {
							mark = ", incomplete"
						}
						fmt.Fprintf(e.stdout, "%s (%s%s)\n", name, plural(len(rows), "row"), mark)
						if err = printTable(e.stdout, withUnits(header, p.Units[name]), rows); err == nil {
							for _, n := range notes {
								fmt.Fprintln(e.stdout, n.label(*all))
							}
						}
					}
					if err != nil {
						fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
						return exitFailure
					}
				}
				summary := fmt.Sprintf("%d of %d answers are incomplete", incomplete, len(names))
				switch {
				case *formatName == "json":
					doc := jsonAnswers{Answers: answers, Incomplete: incomplete, Questions: len(names)}
					if !*all {
						doc.Run = run
					}
					if err := encodeAnswers(e.stdout, doc, answerRows); err != nil {
						fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
						return exitFailure
					}
					if incomplete > 0 {
						fmt.Fprintf(e.stderr, "pmm answer: %s\n", summary)
					}
				case incomplete == 0:
				case *formatName == "csv":
					fmt.Fprintf(e.stderr, "pmm answer: %s\n", summary)
				default:
					fmt.Fprintf(e.stdout, "\n%s\n", summary)
				}
				return exitOK
			}
		},
	}
}

// jsonAnswers is the output of pmm answer --format json: every answer,
// and how many are incomplete.
type jsonAnswers struct {
	Run        int64        `json:"run,omitempty"` // the run answered; absent with -all-runs
	Answers    []jsonAnswer `json:"answers"`
	Incomplete int          `json:"incomplete"` // the answers with notes
	Questions  int          `json:"questions"`
}

// answerRowsDepth is how deep an answer's rows are in jsonAnswers: the
// document, its answers, the answer.
const answerRowsDepth = 3

// rowsPlaceholder stands for an answer's rows while encoding/json encodes
// the document: through it, the Encoder would compact and indent the rows
// again, which took longer than writing them.
const rowsPlaceholder = "null"

// answerRowsJSON is an answer's rows laid out for their place in
// jsonAnswers (encodeAnswers).
func answerRowsJSON(header []string, rows [][]any) (string, error) {
	var b strings.Builder
	err := writeJSONRows(&b, header, rows, indentedJSONLayout(answerRowsDepth))
	return b.String(), err
}

// encodeAnswers writes doc as encoding/json's Encoder indented by two
// spaces writes it, with rows[i], already laid out for its depth
// (indentedJSONLayout), as the rows of answer i.
func encodeAnswers(w io.Writer, doc jsonAnswers, rows []string) error {
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
	for _, r := range rows {
		at := bytes.Index(out, placeholder)
		if at < 0 {
			return errors.New("no place for the rows of an answer in the encoded answers")
		}
		if _, err := w.Write(out[:at+len(placeholder)-len(rowsPlaceholder)]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, r); err != nil {
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

// label is the note as pmm answer prints it under a table, with its run
// when the answer is of every run.
func (n incompleteNote) label(allRuns bool) string {
	if allRuns {
		return fmt.Sprintf("incomplete in run %d: %s", n.Run, withPosition(n.Reason, n.Position))
	}
	return "incomplete: " + withPosition(n.Reason, n.Position)
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

// printCSV prints rows as CSV under a header; NULL is an empty field.
func printCSV(out io.Writer, header []string, rows [][]any) error {
	w := csv.NewWriter(out)
	w.Write(header) //nolint:errcheck // Flush reports it
	for _, r := range rows {
		rec := make([]string, len(r))
		for j, v := range r {
			if v != nil {
				rec[j] = cellText(v)
			}
		}
		w.Write(rec) //nolint:errcheck // Flush reports it
	}
	w.Flush()
	return w.Error()
}

// dropColumn removes the column name from header and rows, in place in
// rows (a copy of a million rows would cost as much as printing them).
func dropColumn(header []string, rows [][]any, name string) ([]string, [][]any) {
	idx := -1
	for i, h := range header {
		if h == name {
			idx = i
		}
	}
	if idx < 0 {
		return header, rows
	}
	for i, r := range rows {
		rows[i] = append(r[:idx], r[idx+1:]...)
	}
	h := append(append([]string(nil), header[:idx]...), header[idx+1:]...)
	return h, rows
}

func cleanCommand() *command {
	return &command{
		name:    "clean",
		summary: "remove the instrumentation (the answers stay)",
		usage:   "[-all]",
		detail: `
Clean removes the instrumentation pmm instrument wrote (.pmm/overlay,
.pmm/overlay.json, .pmm/plan.json, .pmm/bin, .pmm/logs). The answers in
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
				targets := []string{"overlay", "overlay.json", "plan.json", "bin", "logs"}
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
