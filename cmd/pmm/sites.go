package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"pmm.dev/pmm/static"
)

func sitesCommand() *command {
	return &command{
		name:    "sites",
		summary: "build the static database of a module's sites, print or query it",
		usage:   "[--sql QUERY] [--json] [--tests] [--tags T] [--callgraph vta|cha|static] [--db PATH] [PATTERNS]",
		detail: `
Sites builds .pmm/static.db, the static-analysis database of the packages
matching PATTERNS (default ./...): function definitions and call sites with
their positions, the call graph's callees of every call, and the relations
static approximation uses (calls_static, callgraph_edges, callback_edges
(what code outside the module may call back), calls_star_static,
spawns_static, contains_static). docs/STATIC.md describes the schema.

When no Go file, go.mod, go.sum, build tag or GOFLAGS changed since the
last build, the database is reused. Only .pmm/ is written.

Without --sql, sites prints the number of rows of each table and lists the
definitions and call sites. With --sql, it runs the query on the database
and prints the rows as a table, or as a JSON array of objects with --json.

Example:

	pmm sites ./...
	pmm sites --sql "SELECT name, file, line FROM functions WHERE kind = 'closure'"
	sqlite3 .pmm/static.db 'SELECT * FROM spawns_static'
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			query := fs.String("sql", "", "run `QUERY` on the database and print its rows")
			asJSON := fs.Bool("json", false, "print the rows of --sql as JSON")
			analysis := defineAnalysisFlags(fs)
			return func(e *env, args []string) int {
				if *asJSON && *query == "" {
					fmt.Fprintln(e.stderr, "pmm sites: --json needs --sql")
					return exitUsage
				}
				ctx := context.Background()
				res, db, code := analysis.open(ctx, e, "sites", args)
				if db == nil {
					return code
				}
				defer db.Close()
				if *query != "" {
					header, rows, err := queryRows(ctx, db, *query)
					if err != nil {
						fmt.Fprintf(e.stderr, "pmm sites: --sql: %v\n", err)
						return exitUsage
					}
					if *asJSON {
						err = printJSON(e.stdout, header, rows)
					} else {
						err = printTable(e.stdout, header, rows)
					}
					if err != nil {
						fmt.Fprintf(e.stderr, "pmm sites: %v\n", err)
						return exitFailure
					}
					return exitOK
				}
				if err := printSitesSummary(ctx, e.stdout, db, res); err != nil {
					fmt.Fprintf(e.stderr, "pmm sites: %v\n", err)
					return exitFailure
				}
				return exitOK
			}
		},
	}
}

// queryRows runs query and returns its column names and rows.
func queryRows(ctx context.Context, db *sql.DB, query string, args ...any) ([]string, [][]any, error) {
	rs, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rs.Close()
	header, err := rs.Columns()
	if err != nil {
		return nil, nil, err
	}
	var rows [][]any
	for rs.Next() {
		row := make([]any, len(header))
		ptrs := make([]any, len(header))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		for i, v := range row {
			if b, ok := v.([]byte); ok {
				row[i] = string(b)
			}
		}
		rows = append(rows, row)
	}
	return header, rows, rs.Err()
}

// printTable prints rows in aligned columns under a header; NULL is "-".
func printTable(w io.Writer, header []string, rows [][]any) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = "-"
			if v != nil {
				cells[i] = fmt.Sprint(v)
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// printJSON prints rows as a JSON array of objects whose keys keep the
// order of the columns.
func printJSON(w io.Writer, header []string, rows [][]any) error {
	var b strings.Builder
	b.WriteString("[")
	for i, row := range rows {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for j, name := range header {
			key, _ := json.Marshal(name)
			value, err := json.Marshal(row[j])
			if err != nil {
				return err
			}
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s: %s", key, value)
		}
		b.WriteString("}")
	}
	b.WriteString("\n]\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// summaryQueries list the module's definitions and call sites.
const (
	definitionsQuery = `
		SELECT file || ':' || line AS position, kind, name
		FROM functions WHERE defined AND file IS NOT NULL ORDER BY id`
	callSitesQuery = `
		SELECT c.file || ':' || c.line AS position, c.kind, c.via, coalesce(d.name, '-') AS caller,
			coalesce((SELECT group_concat(callee_name, ', ') FROM call_targets WHERE call_id = c.id), c.method, '?') AS callees
		FROM calls c LEFT JOIN functions d ON d.id = c.caller_id ORDER BY c.id`
)

func printSitesSummary(ctx context.Context, w io.Writer, db *sql.DB, res *static.Result) error {
	state := "built"
	if res.Reused {
		state = "reused"
	}
	fmt.Fprintf(w, "%s (%s) for %s\n\n", res.Path, state, res.ModulePath)
	var counts [][]any
	// Not calls_star_static: counting a closure costs as much as listing it
	// (a minute on a 30,000-line module, whose functions may call back
	// every exported method through fmt and reflection).
	for _, table := range []string{"files", "functions", "calls", "call_targets", "callback_targets", "callback_sets", "contains_static", "spawns_static"} {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			return err
		}
		counts = append(counts, []any{table, n})
	}
	if err := printTable(w, []string{"table", "rows"}, counts); err != nil {
		return err
	}
	for _, part := range []struct{ title, query string }{
		{"Definitions", definitionsQuery},
		{"Call sites", callSitesQuery},
	} {
		header, rows, err := queryRows(ctx, db, part.query)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\n%s:\n\n", part.title)
		if err := printTable(w, header, rows); err != nil {
			return err
		}
	}
	return nil
}
