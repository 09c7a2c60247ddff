package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"pmm.dev/pmm/static"
)

func sitesCommand() *command {
	return &command{
		name:    "sites",
		summary: "build the static database of a module's sites, print or query it",
		usage:   "[-sql QUERY] [-json] [-tests] [-tags T] [-callgraph vta|cha|static] [-db PATH] [PATTERNS]",
		detail: `
Sites builds .pmm/static.db, the static-analysis database of the packages
matching PATTERNS (default ./...): function definitions and call sites with
their positions, the call graph's callees of every call, and the relations
static approximation uses (calls_static, callgraph_edges, callback_edges
(what code outside the module may call back), calls_star_static,
spawns_static, contains_static). docs/STATIC.md in pmm's repository
describes the schema; the database holds it too: pmm sites -sql
"SELECT sql FROM sqlite_master".

When no Go file, go.mod, go.sum, build tag or GOFLAGS changed since the
last build, the database is reused. Only .pmm/ is written.

Without -sql, sites prints the number of rows of each table and lists the
definitions and call sites. With -sql, it runs the query on the database
and prints the rows as a table, or as a JSON array of objects with -json.

Example:

	pmm sites ./...
	pmm sites -sql "SELECT name, file, line FROM functions WHERE kind = 'closure'"
	sqlite3 .pmm/static.db 'SELECT * FROM spawns_static'
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			query := fs.String("sql", "", "run `QUERY` on the database and print its rows")
			asJSON := fs.Bool("json", false, "print the rows of -sql as JSON")
			analysis := defineAnalysisFlags(fs)
			return func(e *env, args []string) int {
				if *asJSON && *query == "" {
					fmt.Fprintln(e.stderr, "pmm sites: -json needs -sql")
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
						fmt.Fprintf(e.stderr, "pmm sites: -sql: %v\n", err)
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
	scanned := make([]any, len(header))
	ptrs := make([]any, len(header))
	for i := range scanned {
		ptrs[i] = &scanned[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([]any, len(header))
		for i, v := range scanned {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			row[i] = v
		}
		rows = append(rows, row)
	}
	return header, rows, rs.Err()
}

// cellText is a value as the answers print it (fmt.Sprint, but floats
// as plain decimals), without fmt's reflection for the types SQLite
// returns most.
func cellText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case float64:
		// Plain decimals, never 3.93e+06: a column of averages in one format.
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// printTable prints rows in aligned columns under a header; NULL is "-".
// The output is text/tabwriter's (no minimum width, two spaces of
// padding); tabwriter itself only formats tables whose cells hold its
// control characters or whose rows differ in length: at a million rows
// it keeps a cell structure per value and costs several times the
// alignment below.
func printTable(w io.Writer, header []string, rows [][]any) error {
	n := len(header)
	cells := make([]string, 0, n*(len(rows)+1))
	cells = append(cells, header...)
	plain := true
	for _, row := range rows {
		plain = plain && len(row) == n
		for _, v := range row {
			text := "-"
			if v != nil {
				text = tableCell(v)
			}
			cells = append(cells, text)
		}
	}
	for _, c := range cells {
		plain = plain && !strings.ContainsAny(c, tabwriterControls)
	}
	if !plain || n == 0 {
		return printTabwriter(w, header, rows, cells)
	}
	widths := make([]int, n-1) // the last column is not padded
	for i, c := range cells {
		if col := i % n; col < n-1 {
			widths[col] = max(widths[col], utf8.RuneCountInString(c)+tablePadding)
		}
	}
	bw := bufio.NewWriter(w)
	spaces := strings.Repeat(" ", slices.Max(append(widths, 0)))
	for i, c := range cells {
		bw.WriteString(c)
		if col := i % n; col < n-1 {
			bw.WriteString(spaces[:widths[col]-utf8.RuneCountInString(c)])
		} else {
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// tablePadding is the spaces after the widest cell of a column.
const tablePadding = 2

// tabwriterControls are the characters text/tabwriter does not print as
// text: cell and line separators and its escape.
const tabwriterControls = "\t\n\v\f\xff"

// printTabwriter is printTable through text/tabwriter, for any rows;
// cells are the header's then the rows' texts, in order.
func printTabwriter(w io.Writer, header []string, rows [][]any, cells []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, tablePadding, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	cells = cells[len(header):]
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(cells[:len(row)], "\t"))
		cells = cells[len(row):]
	}
	return tw.Flush()
}

// printJSON prints rows as a JSON array of objects whose keys keep the
// order of the columns, one object a line.
func printJSON(w io.Writer, header []string, rows [][]any) error {
	return writeJSONRows(w, header, rows, jsonLayout{row: "\n  {", firstField: "", field: ", ", rowEnd: "}", end: "\n]\n", empty: "[\n]\n"})
}

// jsonLayout is where writeJSONRows puts its line breaks and indents.
type jsonLayout struct {
	row               string // before each object, after the "[" or ","
	firstField, field string // before an object's first and other fields
	rowEnd            string // after an object's last field
	end               string // after the last object
	empty             string // the whole array when there are no rows
}

// indentedJSONLayout is the layout of encoding/json's Encoder with
// SetIndent("", "  ") for an array nested depth levels deep.
func indentedJSONLayout(depth int) jsonLayout {
	p := strings.Repeat("  ", depth)
	return jsonLayout{row: "\n" + p + "  {", firstField: "\n" + p + "    ", field: ",\n" + p + "    ", rowEnd: "\n" + p + "  }", end: "\n" + p + "]", empty: "[]"}
}

// writeJSONRows writes rows as a JSON array of objects in layout.
func writeJSONRows(w io.Writer, header []string, rows [][]any, layout jsonLayout) error {
	if len(rows) == 0 {
		_, err := io.WriteString(w, layout.empty)
		return err
	}
	rowEnd := layout.rowEnd
	if len(header) == 0 {
		rowEnd = "}" // an empty object is {} in every layout
	}
	keys := make([]string, len(header))
	for j, name := range header {
		key, _ := json.Marshal(name)
		keys[j] = string(key) + ": "
	}
	var bw bytes.Buffer // nothing is written when a value has no JSON
	bw.WriteString("[")
	var num []byte
	for i, row := range rows {
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString(layout.row)
		for j, key := range keys {
			if j > 0 {
				bw.WriteString(layout.field)
			} else {
				bw.WriteString(layout.firstField)
			}
			bw.WriteString(key)
			switch v := row[j].(type) {
			case nil:
				bw.WriteString("null")
			case int64:
				num = strconv.AppendInt(num[:0], v, 10)
				bw.Write(num)
			default:
				value, err := json.Marshal(v)
				if err != nil {
					return err
				}
				bw.Write(value)
			}
		}
		bw.WriteString(rowEnd)
	}
	bw.WriteString(layout.end)
	_, err := w.Write(bw.Bytes())
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
