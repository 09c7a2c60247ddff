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
	"math"
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
spawns_static, contains_static), the sites of the parts of bodies
(regions, blocking, and goroutines: the go statements), and the allocation sites
(allocations; with -escape, whether the compiler's escape analysis puts
each on the heap). docs/STATIC.md in pmm's repository
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
	r, err := queryRowReader(ctx, db, query, args...)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var rows [][]any
	for r.Next() {
		rows = append(rows, slices.Clone(r.Row()))
	}
	return r.header, rows, r.Err()
}

// rowIter yields rows one at a time: Row is valid until the next Next.
type rowIter interface {
	Next() bool
	Row() []any
	Err() error
}

// rowReader reads the rows of a query as SQLite produces them, each into
// the same slice.
type rowReader struct {
	rs      *sql.Rows
	header  []string
	scanned []any
	ptrs    []any
	row     []any
	err     error
}

// queryRowReader runs query.
func queryRowReader(ctx context.Context, db *sql.DB, query string, args ...any) (*rowReader, error) {
	rs, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	cols, err := rs.Columns()
	if err != nil {
		rs.Close()
		return nil, err
	}
	r := &rowReader{rs: rs, header: cols, scanned: make([]any, len(cols)), ptrs: make([]any, len(cols)), row: make([]any, len(cols))}
	for i := range r.scanned {
		r.ptrs[i] = &r.scanned[i]
	}
	return r, nil
}

func (r *rowReader) Next() bool {
	if r.err != nil || !r.rs.Next() {
		return false
	}
	if r.err = r.rs.Scan(r.ptrs...); r.err != nil {
		return false
	}
	for i, v := range r.scanned {
		if b, ok := v.([]byte); ok {
			v = string(b)
		}
		r.row[i] = v
	}
	return true
}

func (r *rowReader) Row() []any { return r.row }

func (r *rowReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.rs.Err()
}

func (r *rowReader) Close() error { return r.rs.Close() }

// dropColumn returns header and rows without the column name (the run
// of an answer), if there is one.
func dropColumn(header []string, rows rowIter, name string) ([]string, rowIter) {
	i := slices.Index(header, name)
	if i < 0 {
		return header, rows
	}
	return slices.Delete(slices.Clone(header), i, i+1), &withoutColumn{rows: rows, drop: i, row: make([]any, len(header)-1)}
}

// withoutColumn is rows without their column drop, each into one slice.
type withoutColumn struct {
	rows rowIter
	drop int
	row  []any
}

func (w *withoutColumn) Next() bool {
	if !w.rows.Next() {
		return false
	}
	row := w.rows.Row()
	copy(w.row, row[:w.drop])
	copy(w.row[w.drop:], row[w.drop+1:])
	return true
}

func (w *withoutColumn) Row() []any { return w.row }
func (w *withoutColumn) Err() error { return w.rows.Err() }

// sliceRows is a rowIter over rows held in memory.
type sliceRows struct {
	rows [][]any
	next int
}

func (s *sliceRows) Next() bool { s.next++; return s.next <= len(s.rows) }
func (s *sliceRows) Row() []any { return s.rows[s.next-1] }
func (s *sliceRows) Err() error { return nil }

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

// appendCell appends the text of v as a table prints it (tableCell).
func appendCell(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		if needsQuoting(v) {
			return strconv.AppendQuote(b, v)
		}
		return append(b, v...)
	case int64:
		return strconv.AppendInt(b, v, 10)
	}
	return append(b, tableCell(v)...)
}

// printTable prints rows in aligned columns under a header; NULL is "-".
func printTable(w io.Writer, header []string, rows [][]any) error {
	t, err := readTable(header, &sliceRows{rows: rows})
	if err != nil {
		return err
	}
	return t.write(w)
}

// textTable is the text of a table's cells, header first, read in full:
// aligning a column needs its widest cell. The texts are kept in chunks
// of tableChunk cells, each one buffer with the cells' ends, not a string
// per cell (at a million rows, the strings and their headers took
// several times the memory of the text); chunks, not one buffer, so
// that growing it does not copy what was read, nor need twice its size.
type textTable struct {
	cols   int
	chunks []tableChunk
	lens   []int // the cells of each row, header first; nil if every row has cols
	plain  bool  // no cell holds a tabwriter control character
	rows   int   // without the header
	cells  int
}

// tableChunk holds the text of chunkCells cells (fewer in the last).
type tableChunk struct {
	text []byte
	ends [chunkCells]uint32 // where each cell's text ends in text
}

const chunkCells = 4096

// add appends the text of v (appendCell) as the next cell; a header's
// name is a string.
func (t *textTable) add(v any) {
	j := t.cells % chunkCells
	if j == 0 {
		t.chunks = append(t.chunks, tableChunk{})
	}
	c := &t.chunks[len(t.chunks)-1]
	c.text = appendCell(c.text, v)
	c.ends[j] = uint32(len(c.text))
	t.cells++
}

// readTable reads the cells of rows under header.
func readTable(header []string, rows rowIter) (*textTable, error) {
	t := &textTable{cols: len(header)}
	for _, h := range header {
		t.add(h)
	}
	for rows.Next() {
		row := rows.Row()
		if len(row) != t.cols && t.lens == nil {
			t.lens = make([]int, t.rows+1, t.rows+2)
			for i := range t.lens {
				t.lens[i] = t.cols
			}
		}
		if t.lens != nil {
			t.lens = append(t.lens, len(row))
		}
		for _, v := range row {
			if v == nil {
				v = "-"
			}
			t.add(v)
		}
		t.rows++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	t.plain = t.lens == nil
	for _, c := range t.chunks {
		t.plain = t.plain && !bytes.ContainsAny(c.text, tabwriterControls)
	}
	return t, nil
}

// cell is the text of cell i.
func (t *textTable) cell(i int) []byte {
	c, j := &t.chunks[i/chunkCells], i%chunkCells
	start := uint32(0)
	if j > 0 {
		start = c.ends[j-1]
	}
	return c.text[start:c.ends[j]]
}

// write prints t as text/tabwriter aligns it (no minimum width, two
// spaces of padding, the last column unpadded); tabwriter itself only
// prints tables whose cells hold its control characters or whose rows
// differ in length: at a million rows it keeps a cell structure per
// value and costs several times the alignment below.
func (t *textTable) write(w io.Writer) error {
	if !t.plain || t.cols == 0 {
		return t.writeTabwriter(w)
	}
	n := t.cols
	widths := make([]int, n-1) // the last column is not padded
	for i := 0; i < t.cells; i++ {
		if col := i % n; col < n-1 {
			widths[col] = max(widths[col], utf8.RuneCount(t.cell(i))+tablePadding)
		}
	}
	bw := bufio.NewWriter(w)
	spaces := strings.Repeat(" ", slices.Max(append(widths, 0)))
	for i := 0; i < t.cells; i++ {
		c := t.cell(i)
		bw.Write(c)
		if col := i % n; col < n-1 {
			bw.WriteString(spaces[:widths[col]-utf8.RuneCount(c)])
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

// writeTabwriter prints t through text/tabwriter, for any rows.
func (t *textTable) writeTabwriter(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, tablePadding, ' ', 0)
	cell := 0
	for r := 0; r <= t.rows; r++ {
		n := t.cols
		if t.lens != nil {
			n = t.lens[r]
		}
		for j := 0; j < n; j++ {
			if j > 0 {
				tw.Write([]byte{'\t'})
			}
			tw.Write(t.cell(cell))
			cell++
		}
		tw.Write([]byte{'\n'})
	}
	return tw.Flush()
}

// printJSON prints rows as a JSON array of objects whose keys keep the
// order of the columns, one object a line.
func printJSON(w io.Writer, header []string, rows [][]any) error {
	return writeJSONRows(w, header, &sliceRows{rows: rows}, jsonLayout{row: "\n  {", firstField: "", field: ", ", rowEnd: "}", end: "\n]\n", empty: "[\n]\n"})
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

// writeJSONRows writes rows as a JSON array of objects in layout, each
// row as it comes. A float that JSON cannot hold (an infinity) is the
// string "+Inf" or "-Inf", as in the lists pmm records.
func writeJSONRows(w io.Writer, header []string, rows rowIter, layout jsonLayout) error {
	rowEnd := layout.rowEnd
	if len(header) == 0 {
		rowEnd = "}" // an empty object is {} in every layout
	}
	keys := make([]string, len(header))
	for j, name := range header {
		key, _ := json.Marshal(name)
		keys[j] = string(key) + ": "
	}
	bw := bufio.NewWriter(w)
	n := 0
	var b []byte
	for rows.Next() {
		b = b[:0]
		if n == 0 {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		n++
		b = append(b, layout.row...)
		for j, v := range rows.Row() {
			if j > 0 {
				b = append(b, layout.field...)
			} else {
				b = append(b, layout.firstField...)
			}
			b = append(b, keys[j]...)
			var err error
			if b, err = appendJSONValue(b, v); err != nil {
				return err
			}
		}
		b = append(b, rowEnd...)
		bw.Write(b)
	}
	if err := rows.Err(); err != nil {
		bw.Flush()
		return err
	}
	if n == 0 {
		bw.WriteString(layout.empty)
	} else {
		bw.WriteString(layout.end)
	}
	return bw.Flush()
}

// appendJSONValue appends the JSON of a value SQLite returns.
func appendJSONValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case int64:
		return strconv.AppendInt(b, v, 10), nil
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return strconv.AppendQuote(b, strconv.FormatFloat(v, 'g', -1, 64)), nil
		}
	}
	value, err := json.Marshal(v)
	return append(b, value...), err
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
	for _, table := range []string{"files", "functions", "calls", "call_targets", "callback_targets", "callback_sets", "contains_static", "spawns_static", "allocations"} {
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
