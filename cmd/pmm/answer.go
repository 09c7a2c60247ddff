package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/static"
)

func answerCommand() *command {
	return &command{
		name:    "answer",
		summary: "print the answers of the questions",
		usage:   "[--run N | --all-runs] [--format table|csv|json] [NAME...]",
		detail: `
Answer prints the answer of each question (or of the questions NAME...) for
the last run, a given run, or all runs. Each answer is a view of
.pmm/pmm.db named after its question, with dashes as underscores, so plain
SQL works too:

	sqlite3 .pmm/pmm.db 'select * from cacheable_calls'

Every view has a run column; the runs table lists the runs (id, start,
end, command, go version, exit status).

Example:

	pmm answer
	pmm answer --format csv cacheable-calls
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			runID := fs.Int64("run", 0, "answer for run `N` (default: the last run)")
			all := fs.Bool("all-runs", false, "answer for every run")
			formatName := fs.String("format", "table", "output `format`: table, csv or json")
			return func(e *env, args []string) int {
				switch *formatName {
				case "table", "csv", "json":
				default:
					fmt.Fprintf(e.stderr, "pmm answer: unknown --format %q (want table, csv or json)\n", *formatName)
					return exitUsage
				}
				if *all && *runID != 0 {
					fmt.Fprintln(e.stderr, "pmm answer: --run and --all-runs exclude each other")
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
					switch *formatName {
					case "json":
						err = printJSON(e.stdout, header, rows)
					case "csv":
						w := csv.NewWriter(e.stdout)
						w.Write(header) //nolint:errcheck // Flush reports it
						for _, r := range rows {
							rec := make([]string, len(r))
							for j, v := range r {
								if v != nil {
									rec[j] = fmt.Sprint(v)
								}
							}
							w.Write(rec) //nolint:errcheck // Flush reports it
						}
						w.Flush()
						err = w.Error()
					default:
						if i > 0 {
							fmt.Fprintln(e.stdout)
						}
						fmt.Fprintf(e.stdout, "%s (%s)\n", name, plural(len(rows), "row"))
						err = printTable(e.stdout, header, rows)
					}
					if err != nil {
						fmt.Fprintf(e.stderr, "pmm answer: %v\n", err)
						return exitFailure
					}
				}
				return exitOK
			}
		},
	}
}

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
	cut := func(r []any) []any { return append(append([]any(nil), r[:idx]...), r[idx+1:]...) }
	var out [][]any
	for _, r := range rows {
		out = append(out, cut(r))
	}
	h := append(append([]string(nil), header[:idx]...), header[idx+1:]...)
	return h, out
}

func cleanCommand() *command {
	return &command{
		name:    "clean",
		summary: "remove the instrumentation (Monitor-Off)",
		usage:   "[--all]",
		detail: `
Clean removes the instrumentation pmm instrument wrote (.pmm/overlay,
.pmm/overlay.json, .pmm/plan.json, .pmm/bin, .pmm/logs). The answers in
.pmm/pmm.db and the static database stay, unless --all removes .pmm/
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
