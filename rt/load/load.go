// Package load loads the logs that an instrumented program's runtime
// (package pmmrt) wrote during a run into the SQLite database pmm.db: one
// row in the runs table for the run, one row per tuple in the table of its
// question relation, each tagged with the run's id.
package load

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
	"pmm.dev/pmm/rt/pmmrt"
)

// Column is a column of a stored relation.
type Column struct {
	Name string
	// Type is the column's declared type: "INTEGER", "REAL", "TEXT",
	// "BLOB", or "" for none (any value).
	Type string
	// ID marks a column of identifiers that are unique only within one
	// process: event ids (pmmrt.NextID) and goroutine ids. The loader adds
	// the process's index in the run (0, 1, ... by start time) shifted
	// left by ProcessShift, so that they are unique within the run and
	// unchanged for its first process.
	ID bool
}

// ProcessShift is the shift of the process index added to ID columns.
const ProcessShift = 40

// Table is a stored relation: the tuples that the runtime emits with
// table id ID. Its SQL table has the extra first column run.
type Table struct {
	ID      uint16
	Name    string
	Columns []Column
}

// Run describes the run whose logs are loaded.
type Run struct {
	Command    string
	GoVersion  string
	Start, End time.Time
	ExitStatus int
}

// Stats counts what Load read.
type Stats struct {
	Run       int64 // the id of the run's row in runs
	Processes int
	Segments  int
	Tuples    map[string]int64 // rows inserted, by table name
	// Torn counts the records that were reserved but never committed
	// (their writer was killed while writing them); they are skipped.
	Torn int64
	// UnknownTable counts records whose table id is not in the tables.
	UnknownTable int64
	// Malformed counts records whose fields did not decode or did not
	// match their table's columns (missing fields are stored as NULL,
	// extra ones dropped), and segments whose records end in garbage.
	Malformed int64
}

// Tables of pmm.db that Load owns, besides the stored relations.
const schema = `
CREATE TABLE IF NOT EXISTS runs (
	id INTEGER PRIMARY KEY,
	start TEXT,   -- UTC, RFC 3339 with nanoseconds
	end TEXT,
	command TEXT,
	go_version TEXT,
	exit_status INTEGER
);
CREATE TABLE IF NOT EXISTS run_processes (
	run INTEGER,
	process INTEGER, -- the index added to ID columns (<< 40)
	pid INTEGER,
	start TEXT,
	program TEXT,
	segments INTEGER,
	tuples INTEGER,
	torn INTEGER
);`

// timeFormat is how times are stored: text that sorts, and that SQLite's
// date functions read.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

// Load creates pmm.db at dbPath if needed, with the runs table and the
// given tables, inserts a row for run, then loads every log segment in
// logDir (tagged with the new run's id) and removes the segments. All of
// it is one transaction: a failed load leaves the database and the logs
// as they were.
func Load(dbPath, logDir string, tables []Table, run Run) (*Stats, error) {
	ctx := context.Background()
	procs, notSegments, err := readDir(logDir)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, pragma := range []string{
		"PRAGMA synchronous = OFF", // the transaction is atomic all the same; a machine crash may lose the load
		"PRAGMA cache_size = -131072",
	} {
		if _, err := db.ExecContext(ctx, pragma); err != nil {
			return nil, err
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return nil, err
	}
	byID := make(map[uint16]*tableLoader, len(tables))
	for i := range tables {
		t := &tables[i]
		if byID[t.ID] != nil {
			return nil, fmt.Errorf("load: table id %d used twice", t.ID)
		}
		tl, err := newTableLoader(ctx, tx, t)
		if err != nil {
			return nil, err
		}
		defer tl.close()
		byID[t.ID] = tl
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO runs (start, end, command, go_version, exit_status) VALUES (?, ?, ?, ?, ?)",
		run.Start.UTC().Format(timeFormat), run.End.UTC().Format(timeFormat), run.Command, run.GoVersion, run.ExitStatus)
	if err != nil {
		return nil, err
	}
	stats := &Stats{Tuples: make(map[string]int64)}
	if stats.Run, err = res.LastInsertId(); err != nil {
		return nil, err
	}
	for _, tl := range byID {
		tl.run = stats.Run
	}
	for index, p := range procs {
		if err := loadProcess(ctx, tx, p, int64(index), stats.Run, byID, stats); err != nil {
			return nil, err
		}
	}
	for _, tl := range byID {
		if err := tl.flush(ctx); err != nil {
			return nil, err
		}
		stats.Tuples[tl.table.Name] = tl.rows
	}
	stats.Processes = len(procs)
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	for _, p := range procs {
		for _, s := range p.segments {
			os.Remove(s.path)
		}
	}
	for _, path := range notSegments {
		os.Remove(path)
	}
	return stats, nil
}

// process is the segments of one process, in order.
type process struct {
	header   pmmrt.SegmentHeader // of its first segment
	segments []segmentFile
}

type segmentFile struct {
	path   string
	header pmmrt.SegmentHeader
}

// readDir reads the headers of the segments in dir and groups them by
// process, ordered by start time. It also returns the log files that hold no
// records: segments prepared but never used, and files whose writer died
// before writing the header.
func readDir(dir string) (procs []*process, notSegments []string, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.pmmlog"))
	if err != nil {
		return nil, nil, err
	}
	type key struct {
		pid, start int64
		tag        uint64
	}
	byKey := make(map[key]*process)
	for _, path := range paths {
		h, err := readHeader(path)
		if errors.Is(err, pmmrt.ErrNotSegment) || (err == nil && h.Seq == pmmrt.UnusedSegment) {
			notSegments = append(notSegments, path) // holds no records
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		k := key{h.PID, h.Start, h.Process}
		p := byKey[k]
		if p == nil {
			p = &process{header: h}
			byKey[k] = p
			procs = append(procs, p)
		}
		p.segments = append(p.segments, segmentFile{path, h})
	}
	sort.Slice(procs, func(i, j int) bool {
		a, b := procs[i].header, procs[j].header
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if a.PID != b.PID {
			return a.PID < b.PID
		}
		return a.Process < b.Process
	})
	for _, p := range procs {
		sort.Slice(p.segments, func(i, j int) bool { return p.segments[i].header.Seq < p.segments[j].header.Seq })
		p.header = p.segments[0].header
	}
	return procs, notSegments, nil
}

func readHeader(path string) (pmmrt.SegmentHeader, error) {
	f, err := os.Open(path)
	if err != nil {
		return pmmrt.SegmentHeader{}, err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := f.ReadAt(buf, 0)
	return pmmrt.ParseSegment(buf[:n])
}

// loadProcess inserts the tuples of the segments of one process.
func loadProcess(ctx context.Context, tx *sql.Tx, p *process, index, runID int64, byID map[uint16]*tableLoader, stats *Stats) error {
	var tuples, torn int64
	for _, s := range p.segments {
		data, err := os.ReadFile(s.path)
		if err != nil {
			return err
		}
		sc := pmmrt.NewScanner(data, s.header)
		for sc.Next() {
			rec := sc.Record()
			tl := byID[rec.Table]
			if tl == nil {
				stats.UnknownTable++
				continue
			}
			if !tl.add(rec, index<<ProcessShift) {
				stats.Malformed++
			}
			tuples++
			if tl.full() {
				if err := tl.flush(ctx); err != nil {
					return err
				}
			}
		}
		torn += int64(sc.Torn)
		if sc.Corrupt {
			stats.Malformed++
		}
		stats.Segments++
	}
	stats.Torn += torn
	_, err := tx.ExecContext(ctx, "INSERT INTO run_processes VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		runID, index, p.header.PID, time.Unix(0, p.header.Start).UTC().Format(timeFormat),
		p.header.Program, len(p.segments), tuples, torn)
	return err
}

// quote quotes an SQL identifier.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// batchRows is the number of rows of one multi-row INSERT.
const batchRows = 64

// tableLoader inserts the rows of one table in batches.
type tableLoader struct {
	table  *Table
	run    int64
	batch  *sql.Stmt // inserts batchRows rows
	tx     *sql.Tx
	insert string // the statement's text without VALUES rows
	args   []interface{}
	n      int // rows in args
	rows   int64
	text   []byte // scratch for rendering lists
}

func newTableLoader(ctx context.Context, tx *sql.Tx, t *Table) (*tableLoader, error) {
	if err := createTable(ctx, tx, t); err != nil {
		return nil, err
	}
	var cols strings.Builder
	cols.WriteString("INSERT INTO " + quote(t.Name) + " (run")
	for _, c := range t.Columns {
		cols.WriteString(", " + quote(c.Name))
	}
	cols.WriteString(") VALUES ")
	tl := &tableLoader{table: t, tx: tx, insert: cols.String()}
	stmt, err := tx.PrepareContext(ctx, tl.statement(batchRows))
	if err != nil {
		return nil, err
	}
	tl.batch = stmt
	tl.args = make([]interface{}, 0, batchRows*(1+len(t.Columns)))
	return tl, nil
}

// statement returns the INSERT of rows rows.
func (tl *tableLoader) statement(rows int) string {
	row := "(?" + strings.Repeat(", ?", len(tl.table.Columns)) + ")"
	return tl.insert + row + strings.Repeat(", "+row, rows-1)
}

// createTable creates t's table, or adds the columns it lacks (the
// questions changed since an earlier run: earlier rows get NULL).
func createTable(ctx context.Context, tx *sql.Tx, t *Table) error {
	rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", t.Name)
	if err != nil {
		return err
	}
	have := make(map[string]bool)
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		have[name] = true
	}
	rows.Close()
	if len(have) == 0 {
		var b strings.Builder
		b.WriteString("CREATE TABLE " + quote(t.Name) + " (run INTEGER")
		for _, c := range t.Columns {
			b.WriteString(", " + quote(c.Name) + " " + c.Type)
		}
		b.WriteString(")")
		_, err := tx.ExecContext(ctx, b.String())
		return err
	}
	for _, c := range t.Columns {
		if !have[c.Name] {
			if _, err := tx.ExecContext(ctx, "ALTER TABLE "+quote(t.Name)+" ADD COLUMN "+quote(c.Name)+" "+c.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

func (tl *tableLoader) full() bool { return tl.n == batchRows }

// flush inserts the rows accumulated.
func (tl *tableLoader) flush(ctx context.Context) error {
	if tl.n == 0 {
		return nil
	}
	var err error
	if tl.n == batchRows {
		_, err = tl.batch.ExecContext(ctx, tl.args...)
	} else {
		_, err = tl.tx.ExecContext(ctx, tl.statement(tl.n), tl.args...)
	}
	tl.rows += int64(tl.n)
	tl.n, tl.args = 0, tl.args[:0]
	return err
}

func (tl *tableLoader) close() { tl.batch.Close() }

// add appends the values of one record, its ID columns offset by idBase;
// it reports false if the record does not match the table.
func (tl *tableLoader) add(rec *pmmrt.Record, idBase int64) bool {
	ok := true
	tl.args = append(tl.args, tl.run)
	cols := tl.table.Columns
	var f pmmrt.Field
	i := 0
	for ; ; i++ {
		more, err := rec.NextField(&f)
		if err != nil {
			ok = false
			break
		}
		if !more || f.Kind == pmmrt.KindFieldsLost {
			break
		}
		if i >= len(cols) {
			ok = false
			if f.Kind == pmmrt.KindListBegin {
				tl.list(rec) // skip it
			}
			continue
		}
		tl.args = append(tl.args, tl.value(rec, &f, cols[i].ID, idBase))
	}
	for ; i < len(cols); i++ {
		tl.args = append(tl.args, nil)
	}
	tl.n++
	return ok
}

// value converts a field into the value to bind.
func (tl *tableLoader) value(rec *pmmrt.Record, f *pmmrt.Field, id bool, idBase int64) interface{} {
	switch f.Kind {
	case pmmrt.KindInt:
		if id {
			return f.Int + idBase
		}
		return f.Int
	case pmmrt.KindBool:
		return f.Int
	case pmmrt.KindUint:
		if f.Uint > math.MaxInt64 {
			return float64(f.Uint)
		}
		if id {
			return int64(f.Uint) + idBase
		}
		return int64(f.Uint)
	case pmmrt.KindFloat:
		if math.IsNaN(f.Float) {
			return nil
		}
		return f.Float
	case pmmrt.KindString:
		if f.Cut > 0 {
			return string(f.Data) + cutMarker(f.Cut)
		}
		return string(f.Data)
	case pmmrt.KindBytes:
		if f.Cut > 0 {
			return append(append([]byte(nil), f.Data...), cutMarker(f.Cut)...)
		}
		return f.Data
	case pmmrt.KindListBegin:
		return tl.list(rec)
	}
	return nil
}

// cutMarker is appended to a string or []byte value that was truncated
// to pmmrt.MaxString bytes.
func cutMarker(n int) string { return "…[truncated from " + strconv.Itoa(n) + " bytes]" }

// list renders the list whose ListBegin was just read as canonical text:
// JSON, except that []byte elements are strings of hexadecimal digits
// prefixed with 0x and non-finite floats are the strings "NaN", "+Inf"
// and "-Inf"; a list that lost elements (pmmrt.MaxRecord) ends in "…".
func (tl *tableLoader) list(rec *pmmrt.Record) string {
	b := append(tl.text[:0], '[')
	first := true
	depth := 1
	var f pmmrt.Field
	for depth > 0 {
		more, err := rec.NextField(&f)
		if err != nil || !more {
			break
		}
		if f.Kind == pmmrt.KindListEnd {
			b = append(b, ']')
			depth--
			first = false
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		switch f.Kind {
		case pmmrt.KindInt:
			b = strconv.AppendInt(b, f.Int, 10)
		case pmmrt.KindUint:
			b = strconv.AppendUint(b, f.Uint, 10)
		case pmmrt.KindFloat:
			switch {
			case math.IsNaN(f.Float):
				b = append(b, `"NaN"`...)
			case math.IsInf(f.Float, 1):
				b = append(b, `"+Inf"`...)
			case math.IsInf(f.Float, -1):
				b = append(b, `"-Inf"`...)
			default:
				b = strconv.AppendFloat(b, f.Float, 'g', -1, 64)
			}
		case pmmrt.KindBool:
			b = strconv.AppendBool(b, f.Int == 1)
		case pmmrt.KindString:
			b = appendJSONString(b, f.Data, f.Cut)
		case pmmrt.KindBytes:
			b = append(b, `"0x`...)
			for _, c := range f.Data {
				b = append(b, hex[c>>4], hex[c&15])
			}
			if f.Cut > 0 {
				b = append(b, cutMarker(f.Cut)...)
			}
			b = append(b, '"')
		case pmmrt.KindNull:
			b = append(b, "null"...)
		case pmmrt.KindListBegin:
			b = append(b, '[')
			depth++
			first = true
		case pmmrt.KindFieldsLost:
			b = append(b, `"…"`...)
		}
	}
	tl.text = b
	return string(b)
}

const hex = "0123456789abcdef"

// appendJSONString appends s as a JSON string.
func appendJSONString(b, s []byte, cut int) []byte {
	b = append(b, '"')
	for len(s) > 0 {
		c := s[0]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		case c < utf8.RuneSelf:
			b = append(b, c)
		default:
			r, size := utf8.DecodeRune(s)
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[:size]...)
			}
			s = s[size:]
			continue
		}
		s = s[1:]
	}
	if cut > 0 {
		b = append(b, cutMarker(cut)...)
	}
	return append(b, '"')
}
