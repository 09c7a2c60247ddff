package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/schema"
)

func statsCommand() *command {
	return &command{
		name:    "stats",
		summary: "print how many entries each site checked and recorded",
		usage:   "[-run N] [-json]",
		detail: `
Stats prints, for the last run (or run N), each instrumentation site with
the questions it records for, the entries it checked (the times its
instrumentation ran with recording on) and the entries it recorded (the
events that passed its tests and whose tuples it stored), then the
totals: how much the tests at the sites saved of what recording every
event would store.
Sites whose run-time filters may drop an execution count their entries
checked in the site_counts table of .pmm/pmm.db; elsewhere every entry
checked is recorded. The entries recorded are the executions in the stored
relations. An aggregate question that run time decides records no tuple:
its executions are added to cells, one per group, and stats prints the
cells and the additions of each such question after the table, then the
answers of the run that are incomplete (see pmm help answer). A site
whose only work is a count grouped by its function's name (or
constants) adds to its cell and counts nothing else: it shows 0 entries
checked, and its executions are among the additions of its question.

Example:

	pmm stats
	pmm stats -json
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			runID := fs.Int64("run", 0, "the `run` (default: the last)")
			asJSON := fs.Bool("json", false, "print JSON")
			return func(e *env, args []string) int {
				if len(args) > 0 {
					fmt.Fprintln(e.stderr, "pmm stats: takes no arguments")
					return exitUsage
				}
				p, code := readProject(e, "stats")
				if p == nil {
					return code
				}
				st, err := readStats(p, *runID)
				if err != nil {
					fmt.Fprintf(e.stderr, "pmm stats: %v\n", err)
					return exitFailure
				}
				if *asJSON {
					enc := json.NewEncoder(e.stdout)
					enc.SetIndent("", "  ")
					if err := enc.Encode(st); err != nil {
						fmt.Fprintf(e.stderr, "pmm stats: %v\n", err)
						return exitFailure
					}
					return exitOK
				}
				header := []string{"site", "function", "kind", "position", "questions", "checked", "recorded"}
				var rows [][]any
				for _, s := range st.Sites {
					kind := strings.TrimSpace(strings.Join([]string{s.Kind, s.Label, s.Operand}, " ")) // "region outer", "blocking lock s.mu"
					rows = append(rows, []any{s.Site, s.Function, kind, s.Position, strings.Join(s.Questions, " "), s.Checked, s.Recorded})
				}
				rows = append(rows, []any{"total", "", "", "", "", st.Checked, st.Recorded})
				fmt.Fprintf(e.stdout, "run %d\n", st.Run)
				if err := printTable(e.stdout, header, rows); err != nil {
					fmt.Fprintf(e.stderr, "pmm stats: %v\n", err)
					return exitFailure
				}
				for _, c := range st.Cells {
					fmt.Fprintf(e.stdout, "%s: kept in cells: %d executions added to %s (recorded as no tuple, so not counted above)\n", c.Question, c.Added, plural(int(c.Cells), "cell"))
				}
				if len(st.Incomplete) > 0 {
					fmt.Fprintf(e.stdout, "%d of %d answers are incomplete (%s): pmm answer says why\n", len(st.Incomplete), len(p.Questions), strings.Join(st.Incomplete, ", "))
				}
				return exitOK
			}
		},
	}
}

// runStats are the counters of one run.
type runStats struct {
	Run      int64       `json:"run"`
	Sites    []siteStats `json:"sites"`
	Checked  int64       `json:"checked"`
	Recorded int64       `json:"recorded"`
	// Cells are the aggregate questions kept in cells in this run.
	Cells []cellStats `json:"cells,omitempty"`
	// Incomplete are the questions whose answers in this run are
	// incomplete (pmm answer says why).
	Incomplete []string `json:"incomplete,omitempty"`
}

// cellStats are the cells of one aggregate question: one per group, and
// the executions added to them.
type cellStats struct {
	Question string `json:"question"`
	Cells    int64  `json:"cells"`
	Added    int64  `json:"added"`
}

type siteStats struct {
	Site      int      `json:"site"`
	Function  string   `json:"function"`
	Kind      string   `json:"kind"`
	Label     string   `json:"label,omitempty"`   // a region's label, a blocking operation's kind
	Operand   string   `json:"operand,omitempty"` // a blocking operation's operand
	Position  string   `json:"position"`
	Questions []string `json:"questions"`
	Checked   int64    `json:"checked"`
	Recorded  int64    `json:"recorded"`
}

func readStats(p *plan.Project, run int64) (*runStats, error) {
	dbPath := filepath.Join(pmmDir(p.Root), "pmm.db")
	if _, err := os.Stat(dbPath); err != nil {
		return nil, fmt.Errorf("nothing recorded yet: run pmm run or pmm test first")
	}
	db, err := openAnswers(dbPath, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ctx := context.Background()
	if run == 0 {
		if err := db.QueryRowContext(ctx, "SELECT coalesce(max(id), 0) FROM runs").Scan(&run); err != nil {
			return nil, err
		}
	}
	// Entries recorded: the executions of each site in the stored
	// relations (each question has its own; one execution, one id).
	var execs []string
	for _, t := range p.Tables {
		if schema.IsExecutions(t.Prim) {
			execs = append(execs, "SELECT site, id FROM "+t.Name+" WHERE run = ?")
		}
	}
	recorded, err := siteCounts(ctx, db, "SELECT site, count(DISTINCT id) FROM ("+strings.Join(execs, " UNION ")+") GROUP BY site", len(execs), run)
	if err != nil {
		return nil, err
	}
	// Entries checked: counted by the sites with run-time filters; at the
	// others, every entry checked is recorded.
	checked, err := siteCounts(ctx, db, "SELECT site, checked FROM site_counts WHERE run = ?", 1, run)
	if err != nil {
		return nil, err
	}
	st := &runStats{Run: run}
	for _, t := range p.Tables {
		if t.Prim != schema.KindCells {
			continue
		}
		c := cellStats{Question: t.Question}
		err := db.QueryRowContext(ctx, "SELECT count(*), coalesce(sum(p.count), 0) FROM "+t.Name+" AS c JOIN "+schema.CellsTable+
			" AS p ON p.run = c.run AND p.cell = c.cell WHERE c.run = ?", run).Scan(&c.Cells, &c.Added)
		if err != nil {
			return nil, err
		}
		if c.Cells > 0 {
			st.Cells = append(st.Cells, c)
		}
	}
	for _, q := range p.Questions {
		notes, err := incompleteNotes(ctx, db, q, run, false)
		if err != nil {
			return nil, err
		}
		if len(notes) > 0 {
			st.Incomplete = append(st.Incomplete, q)
		}
	}
	for _, s := range p.Sites {
		c := [2]int64{recorded[s.Site], recorded[s.Site]}
		if s.Filtered {
			c[0] = checked[s.Site]
		}
		st.Sites = append(st.Sites, siteStats{Site: s.Site, Function: s.Function, Kind: s.Kind, Label: s.Label, Operand: s.Operand,
			Position: fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col), Questions: s.Questions, Checked: c[0], Recorded: c[1]})
		st.Checked += c[0]
		st.Recorded += c[1]
	}
	return st, nil
}

// siteCounts runs a query of (site, count) rows; args is its one argument,
// repeated n times.
func siteCounts(ctx context.Context, db *sql.DB, query string, n int, arg any) (map[int]int64, error) {
	out := map[int]int64{}
	if n == 0 {
		return out, nil
	}
	args := make([]any, n)
	for i := range args {
		args[i] = arg
	}
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		if strings.Contains(err.Error(), "no such table: site_counts") {
			return out, nil // nothing counted
		}
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var site int
		var c int64
		if err := rows.Scan(&site, &c); err != nil {
			return nil, err
		}
		out[site] = c
	}
	return out, rows.Err()
}
