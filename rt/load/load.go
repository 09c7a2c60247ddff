// Package load loads the logs that an instrumented program's runtime
// (package pmmrt) wrote during a run into the SQLite database pmm.db: one
// row in the runs table for the run, one row per tuple in the table of its
// question relation, each tagged with the run's id. Query reads rows
// back through the same C API, for pmm answer.
package load

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	sqlite3 "modernc.org/sqlite/lib"
	"pmm.dev/pmm/rt/logfmt"
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
	// unchanged for its first process; from an implied id (negative:
	// logfmt.FormatPoint) it subtracts it, so that the implied ids of
	// process i are in [-(i+1)<<ProcessShift, -i<<ProcessShift).
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
	// Key, if any, is the table's primary key after run: the table is
	// created WITHOUT ROWID, stored in the key's order, and a row equal
	// on the key to one the table holds is not inserted again. Every
	// column of the key must have a value: a record that leaves one of
	// them NULL is counted as malformed and not inserted.
	Key []string
	// Indexes are created, if missing, at the end of the load.
	Indexes []Index
	// Copies are tables of their own that hold the table's rows again,
	// keyed by run then their columns (all of the table's, in another
	// order): the loader sorts the rows of each in memory, copyRows at a
	// time, and inserts them in its key's order, where an index in that
	// order would be one sort by SQLite at the end of the load. A table
	// with copies must have a Key.
	Copies []Copy
}

// Copy is a table that holds the rows of another in another order
// (Table.Copies).
type Copy struct {
	Name    string
	Columns []string
	// Replaces names the index an earlier pmm made in the copy's order,
	// which the loader drops: the copy is read in its place.
	Replaces string
}

// Index is an index of a table on its run column, then Columns.
type Index struct {
	Name    string
	Columns []string
}

// Run describes the run whose logs are loaded.
type Run struct {
	Command    string
	GoVersion  string
	Start, End time.Time
	ExitStatus int
	// Signal names the signal that killed the program ("interrupt",
	// "terminated", ...), empty when it exited.
	Signal string
	// Source names the directory the run's logs were written to, unique
	// per run: a run whose source is already in runs was loaded (pmm
	// died after the commit, before it removed the logs), and Load
	// returns ErrLoaded instead of loading it twice. Empty: no check.
	Source string
	// Questions are the names of the questions; a record the load loses
	// (torn, malformed) makes each of their answers incomplete.
	Questions []string
	// Walks are, by walk (logfmt.WalkKey), the questions that ask for
	// it: a walk that met what it cannot walk (the processes' notes,
	// logfmt.IncompleteFileSuffix) makes their answers incomplete.
	Walks map[string][]string
	// Incomplete are the reasons, known before the run, why answers may
	// be incomplete (pmm instrument's), stored in IncompleteTable.
	Incomplete []Incomplete
	// Outside, when not nil, is what code outside the module allocated,
	// stored in OutsideCallsTable and OutsideFunctionsTable.
	Outside *Outside
	// Inserted, when not nil, counts the tuples inserted so far, a batch
	// at a time, for a progress display that reads it while Load runs.
	Inserted *atomic.Int64
}

// ErrLoaded is the error of Load for a run whose Source was loaded
// already; Stats.Run is that run's id, and the logs can be removed.
var ErrLoaded = errors.New("load: these logs were loaded already")

// Incomplete is a reason why the answer of a question may be incomplete
// or inexact; Position is a site's file:line:col, or "" (stored as NULL).
type Incomplete struct {
	Question, Reason, Position string
}

// IncompleteTable holds, per run, the reasons why answers may be
// incomplete: a question without a row is answered exactly.
const IncompleteTable = "pmm_incomplete"

// Stats counts what Load read.
type Stats struct {
	Run       int64 // the id of the run's row in runs
	Processes int
	Segments  int
	Tuples    map[string]int64 // rows loaded, by table name (a keyed table stores one of equal rows)
	// Torn counts the records that were reserved but never committed
	// (their writer was killed while writing them); they are skipped.
	Torn int64
	// UnknownTable counts records whose table id is not in the tables.
	UnknownTable int64
	// Malformed counts records whose fields did not decode or did not
	// match their table's columns (missing fields are stored as NULL,
	// extra ones dropped), segments whose records end in garbage, and
	// counted aggregate cells of an unknown kind.
	Malformed int64
	// Cells counts the rows inserted into CellsTable.
	Cells int64
	// CellFilesSkipped counts the aggregate chunk files of processes that
	// left no log segment: they are not loaded and stay in the log
	// directory.
	CellFilesSkipped int
	// Stopped are the reasons why processes of the run stopped recording
	// (their stop files, logfmt.StopFileSuffix), one per reason.
	Stopped []string
	// WalksIncomplete are, by walk (logfmt.WalkKey), the reasons why
	// heap walks of the run counted less than is reachable (their note
	// files, logfmt.IncompleteFileSuffix), one per walk.
	WalksIncomplete map[string]string
}

// Tables of pmm.db that Load owns, besides the stored relations.
const schema = `
CREATE TABLE IF NOT EXISTS runs (
	id INTEGER PRIMARY KEY,
	start TEXT,   -- UTC, RFC 3339 with nanoseconds
	end TEXT,
	command TEXT,
	go_version TEXT,
	exit_status INTEGER,
	signal TEXT,  -- the signal that killed the program, or NULL
	source TEXT   -- the directory of the run's logs: a run is loaded once
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
);
CREATE TABLE IF NOT EXISTS pmm_incomplete (
	run INTEGER,
	question TEXT,
	reason TEXT,
	position TEXT -- file:line:col of the site, NULL when no one site
);`

// timeFormat is how times are stored: text that sorts, and that SQLite's
// date functions read.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

// Load creates pmm.db at dbPath if needed, with the runs table and the
// given tables, inserts a row for run, then loads every log segment in
// logDir (tagged with the new run's id) and the aggregate cells of their
// processes (into CellsTable), and removes the files. All of it is one
// transaction: a failed load leaves the database and the logs as they
// were.
//
// One goroutine decodes the segments into batches of rows while the
// calling one inserts the batches, each with one multi-row INSERT.
func Load(dbPath, logDir string, tables []Table, run Run) (*Stats, error) {
	procs, notSegments, err := readDir(logDir)
	if err != nil {
		return nil, err
	}
	stopped, stopFiles, err := readStopFiles(logDir)
	if err != nil {
		return nil, err
	}
	walks, walkFiles, err := readWalkNotes(logDir)
	if err != nil {
		return nil, err
	}
	notSegments = append(append(notSegments, stopFiles...), walkFiles...)
	seen := make(map[uint16]bool, len(tables))
	for i := range tables {
		if seen[tables[i].ID] {
			return nil, fmt.Errorf("load: table id %d used twice", tables[i].ID)
		}
		seen[tables[i].ID] = true
	}
	c, err := openConn(dbPath)
	if err != nil {
		return nil, err
	}
	defer c.close()
	// page_size applies to a new pmm.db only: 16 KiB pages split a
	// quarter as often as 4 KiB ones (up to a quarter less insert CPU
	// for rows with texts, in the noise for integer rows).
	// synchronous=OFF: the transaction is atomic all the same (if pmm
	// dies, the rollback journal undoes it at the next open and the logs
	// are still there); only a machine crash may lose or damage the load.
	// WAL: pmm answer reads while a run loads. busy_timeout: loads of
	// runs made at the same time in one module wait for each other.
	// The memory of the load is bounded, whatever the size of the run:
	// the page cache (cache_size) spills to the WAL, the sorter of
	// CREATE INDEX (which keeps about as much in memory as the page
	// cache) to temporary files (temp_store), and no file is mapped
	// (mmap_size).
	if err := c.exec("PRAGMA busy_timeout = " + busyTimeoutMS + "; PRAGMA page_size = 16384"); err != nil {
		return nil, err
	}
	if err := c.wal(); err != nil {
		return nil, err
	}
	if err := c.exec("PRAGMA synchronous = OFF; PRAGMA cache_size = -" + strconv.Itoa(cacheKiB) +
		"; PRAGMA temp_store = FILE; PRAGMA mmap_size = 0; BEGIN IMMEDIATE"); err != nil {
		return nil, err
	}
	committed := false
	defer func() {
		if !committed {
			c.exec("ROLLBACK")
		}
	}()
	if err := c.exec(schema + outsideSchema); err != nil {
		return nil, err
	}
	if err := migrateRuns(c); err != nil {
		return nil, err
	}
	stats := &Stats{Tuples: make(map[string]int64), Processes: len(procs), Stopped: stopped, WalksIncomplete: walks}
	if run.Source != "" {
		if id, err := runOfSource(c, run.Source); err != nil {
			return nil, err
		} else if id != 0 {
			stats.Run = id
			return stats, ErrLoaded
		}
	}
	if stats.Run, err = insertRun(c, run); err != nil {
		return nil, err
	}
	byID := make(map[uint16]*tableLoader, len(tables))
	for i := range tables {
		tl, err := newTableLoader(c, &tables[i], stats.Run)
		if err != nil {
			return nil, err
		}
		defer tl.close()
		byID[tables[i].ID] = tl
		for _, cp := range tables[i].Copies {
			cl, err := newCopyLoader(c, tl, cp, stats.Run)
			if err != nil {
				return nil, err
			}
			defer cl.close()
			tl.copies = append(tl.copies, cl)
		}
	}
	if err := createIndexes(c, tables, true); err != nil {
		return nil, err
	}

	batches := make(chan *batch, batchQueue)
	stop := make(chan struct{})
	decoded := make(chan decodeResult, 1)
	go func() { decoded <- decode(procs, byID, batches, stop) }()
	var insertErr error
	for b := range batches {
		if insertErr == nil {
			if insertErr = b.tl.insert(b); insertErr != nil {
				close(stop) // the decoder ends, closing batches
			} else if run.Inserted != nil && !b.tl.copy {
				run.Inserted.Add(int64(b.rows))
			}
		}
		b.reset()
		b.tl.free <- b
	}
	d := <-decoded
	if insertErr != nil {
		return nil, insertErr
	}
	if d.err != nil {
		return nil, d.err
	}
	stats.Segments, stats.Torn, stats.UnknownTable, stats.Malformed = d.segments, d.torn, d.unknown, d.malformed
	for _, tl := range byID {
		stats.Tuples[tl.table.Name] = tl.inserted
	}
	if err := indexTables(c, tables, stats.Tuples); err != nil {
		return nil, err
	}
	if err := insertProcesses(c, procs, d.procs, stats.Run); err != nil {
		return nil, err
	}
	cells, err := loadCells(c, logDir, procs, stats.Run)
	if err != nil {
		return nil, err
	}
	stats.Cells, stats.CellFilesSkipped = cells.stored, cells.skipped
	stats.Malformed += cells.malformed
	if err := insertIncomplete(c, stats.Run, append(run.Incomplete, lost(stats, run.Questions, run.Walks)...)); err != nil {
		return nil, err
	}
	if err := insertOutside(c, stats.Run, run.Outside); err != nil {
		return nil, err
	}
	if err := c.exec("COMMIT"); err != nil {
		return nil, err
	}
	committed = true
	// Only now: until the commit, the logs are the data.
	for _, p := range procs {
		for _, s := range p.segments {
			os.Remove(s.path)
		}
	}
	for _, path := range notSegments {
		os.Remove(path)
	}
	for _, path := range cells.files {
		os.Remove(path)
	}
	if run.Outside != nil {
		for _, path := range run.Outside.Files {
			os.Remove(path)
		}
	}
	return stats, nil
}

// cacheKiB is the page cache of the load, in KiB: it bounds the memory
// of the load (the sorter of CREATE INDEX takes as much again), and more
// gains little, since the rows are appended to their tables and to
// indexes led by event ids (createIndexes).
const cacheKiB = 16 << 10

// analysisRows is the number of rows ANALYZE reads of each index
// (PRAGMA analysis_limit): enough for the planner to tell (run, id)
// from (run), at a cost that does not grow with the table.
const analysisRows = 1000

// createIndexes creates the indexes of tables that are missing: before
// the rows are inserted (first) those led by the table's first column
// when it is an event id, after them (!first) the others. The runtime
// draws event ids in increasing order and records most tuples soon
// after the id is drawn, so the rows reach an index led by the id
// nearly in its order: each insert lands at the right edge of the
// B-tree, where its pages are in the cache; measured, that costs about
// a quarter less CPU than the sort of CREATE INDEX after the insert,
// whose comparisons all start with the run column, equal in every row
// of the load. Other orders (a goroutine, then an id) are one sort at
// the end.
func createIndexes(c *conn, tables []Table, first bool) error {
	for _, t := range tables {
		for _, x := range t.Indexes {
			if idFirst(&t, x) != first {
				continue
			}
			cols := []string{"run"}
			for _, col := range x.Columns {
				cols = append(cols, quote(col))
			}
			if err := c.exec("CREATE INDEX IF NOT EXISTS " + quote(x.Name) + " ON " + quote(t.Name) + " (" + strings.Join(cols, ", ") + ")"); err != nil {
				return err
			}
		}
	}
	return nil
}

// idFirst reports whether index x of t is led by t's first column, an
// ID column.
func idFirst(t *Table, x Index) bool {
	return len(x.Columns) > 0 && len(t.Columns) > 0 && t.Columns[0].ID && x.Columns[0] == t.Columns[0].Name
}

// indexTables creates the indexes of tables that are still missing
// (createIndexes) and gathers the query planner's statistics (ANALYZE)
// of each table that at least doubled since they were last gathered.
// Without them the planner takes (run = ?) for a selective key and
// reads the rows of a nested execution by a range of ids rather than by
// its id.
func indexTables(c *conn, tables []Table, inserted map[string]int64) error {
	if err := createIndexes(c, tables, false); err != nil {
		return err
	}
	if err := c.exec("PRAGMA analysis_limit = " + strconv.Itoa(analysisRows)); err != nil {
		return err
	}
	analyze := func(table string, n int64) error {
		before, err := analyzedRows(c, table)
		if err != nil || n < before {
			return err
		}
		return c.exec("ANALYZE " + quote(table))
	}
	for _, t := range tables {
		n := inserted[t.Name]
		if len(t.Indexes) == 0 && len(t.Key) == 0 || n == 0 {
			continue
		}
		if err := analyze(t.Name, n); err != nil {
			return err
		}
		for _, cp := range t.Copies {
			if err := analyze(cp.Name, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// analyzedRows returns the rows table had when ANALYZE last read it, 0
// if never.
func analyzedRows(c *conn, table string) (int64, error) {
	st, err := c.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")
	if err != nil {
		return 0, err
	}
	ok, err := st.step()
	exists := ok && st.columnInt64(0) > 0
	st.close()
	if err != nil || !exists {
		return 0, err
	}
	if st, err = c.prepare("SELECT stat FROM sqlite_stat1 WHERE tbl = ? AND idx IS NOT NULL LIMIT 1"); err != nil {
		return 0, err
	}
	defer st.close()
	st.bindString(1, table)
	if ok, err = st.step(); err != nil || !ok {
		return 0, err
	}
	rows, _, _ := strings.Cut(st.columnText(0), " ")
	n, _ := strconv.ParseInt(rows, 10, 64)
	return n, nil
}

// busyTimeoutMS is how long a load waits for another one to commit.
const busyTimeoutMS = "600000"

// busyTimeout is busyTimeoutMS.
const busyTimeout = 600 * time.Second

// wal puts the database in WAL mode (a no-op when it is). SQLite changes
// a database's journal mode under an exclusive lock that it tries once,
// without the busy handler: a load that begins while another holds a
// lock on a database not yet in WAL mode (the first runs in a module,
// loaded at the same time) got SQLITE_BUSY at once, and lost its run's
// load. So it tries again, as the busy handler would wait, for up to
// busyTimeout.
func (c *conn) wal() error {
	deadline := time.Now().Add(busyTimeout)
	for delay := time.Millisecond; ; delay = min(2*delay, 100*time.Millisecond) {
		err := c.exec("PRAGMA journal_mode = WAL")
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(delay)
	}
}

func insertRun(c *conn, run Run) (int64, error) {
	st, err := c.prepare("INSERT INTO runs (start, end, command, go_version, exit_status, signal, source) VALUES (?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return 0, err
	}
	defer st.close()
	st.bindString(1, run.Start.UTC().Format(timeFormat))
	st.bindString(2, run.End.UTC().Format(timeFormat))
	st.bindString(3, run.Command)
	st.bindString(4, run.GoVersion)
	st.bindInt64(5, int64(run.ExitStatus))
	bindOptional(st, 6, run.Signal)
	bindOptional(st, 7, run.Source)
	if err := st.exec(); err != nil {
		return 0, err
	}
	return sqlite3.Xsqlite3_last_insert_rowid(c.tls, c.db), nil
}

// bindOptional binds s, or NULL when it is empty.
func bindOptional(st *stmt, i int, s string) {
	if s == "" {
		st.bindNull(i)
	} else {
		st.bindString(i, s)
	}
}

// runOfSource returns the id of the run loaded from source, 0 if none.
func runOfSource(c *conn, source string) (int64, error) {
	st, err := c.prepare("SELECT id FROM runs WHERE source = ?")
	if err != nil {
		return 0, err
	}
	defer st.close()
	st.bindString(1, source)
	ok, err := st.step()
	if err != nil || !ok {
		return 0, err
	}
	return st.columnInt64(0), nil
}

// migrateRuns adds the columns that a pmm.db made by an earlier pmm
// lacks, and the index that makes a source name one run.
func migrateRuns(c *conn) error {
	cols, err := tableColumns(c, "runs")
	if err != nil {
		return err
	}
	for _, col := range []string{"signal", "source"} {
		if !slices.Contains(cols, col) {
			if err := c.exec("ALTER TABLE runs ADD COLUMN " + col + " TEXT"); err != nil {
				return err
			}
		}
	}
	return c.exec("CREATE UNIQUE INDEX IF NOT EXISTS runs_source ON runs (source)")
}

// lost returns, for each question, what the load could not read.
func lost(st *Stats, questions []string, walks map[string][]string) []Incomplete {
	var what []string
	if st.Torn > 0 {
		what = append(what, fmt.Sprintf("%d torn (a process was killed while writing them)", st.Torn))
	}
	if n := st.Malformed + st.UnknownTable; n > 0 {
		what = append(what, fmt.Sprintf("%d malformed", n))
	}
	if st.CellFilesSkipped > 0 {
		what = append(what, fmt.Sprintf("%d files of aggregate cells of processes that left no log", st.CellFilesSkipped))
	}
	var reasons []string
	if len(what) > 0 {
		reasons = append(reasons, "records of the run were lost: "+strings.Join(what, ", "))
	}
	for _, r := range st.Stopped {
		reasons = append(reasons, "recording stopped: "+r)
	}
	var out []Incomplete
	for _, reason := range reasons {
		for _, q := range questions {
			out = append(out, Incomplete{Question: q, Reason: reason})
		}
	}
	keys := make([]string, 0, len(st.WalksIncomplete))
	for k := range st.WalksIncomplete {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, q := range walks[k] {
			out = append(out, Incomplete{Question: q, Reason: st.WalksIncomplete[k]})
		}
	}
	return out
}

// readWalkNotes returns, by walk, the reasons of the notes processes
// leave when a heap walk could not walk everything, and the files.
func readWalkNotes(dir string) (reasons map[string]string, files []string, err error) {
	if files, err = filepath.Glob(filepath.Join(dir, "*"+logfmt.IncompleteFileSuffix)); err != nil {
		return nil, nil, err
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		if reasons == nil {
			reasons = map[string]string{}
		}
		key, reason := logfmt.ReadWalkNote(data)
		reasons[key] = reason
	}
	return reasons, files, nil
}

// readStopFiles returns the distinct reasons of the stop files in dir,
// which processes leave when they stop recording, and the files.
func readStopFiles(dir string) (reasons, files []string, err error) {
	if files, err = filepath.Glob(filepath.Join(dir, "*"+logfmt.StopFileSuffix)); err != nil {
		return nil, nil, err
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		reason := logfmt.StopFileReason(data)
		if !slices.Contains(reasons, reason) {
			reasons = append(reasons, reason)
		}
	}
	return reasons, files, nil
}

func insertIncomplete(c *conn, runID int64, rs []Incomplete) error {
	st, err := c.prepare("INSERT INTO " + IncompleteTable + " (run, question, reason, position) VALUES (?, ?, ?, ?)")
	if err != nil {
		return err
	}
	defer st.close()
	for _, r := range rs {
		st.bindInt64(1, runID)
		st.bindString(2, r.Question)
		st.bindString(3, r.Reason)
		bindOptional(st, 4, r.Position)
		if err := st.exec(); err != nil {
			return err
		}
	}
	return nil
}

func insertProcesses(c *conn, procs []*process, counts []processCounts, runID int64) error {
	st, err := c.prepare("INSERT INTO run_processes VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	defer st.close()
	for i, p := range procs {
		st.bindInt64(1, runID)
		st.bindInt64(2, int64(i))
		st.bindInt64(3, p.header.PID)
		st.bindString(4, time.Unix(0, p.header.Start).UTC().Format(timeFormat))
		st.bindString(5, p.header.Program)
		st.bindInt64(6, int64(len(p.segments)))
		st.bindInt64(7, counts[i].tuples)
		st.bindInt64(8, counts[i].torn)
		if err := st.exec(); err != nil {
			return err
		}
	}
	return nil
}

// process is the segments of one process, in order.
type process struct {
	header   logfmt.SegmentHeader // of its first segment
	segments []segmentFile
}

type segmentFile struct {
	path   string
	header logfmt.SegmentHeader
}

// readDir reads the headers of the segments in dir and groups them by
// process, ordered by start time. It also returns the log files that hold no
// records: segments prepared but never used, and files whose writer died
// before writing the header.
func readDir(dir string) (procs []*process, notSegments []string, err error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+logfmt.SegmentFileSuffix))
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
		if errors.Is(err, logfmt.ErrNotSegment) || (err == nil && h.Seq == logfmt.UnusedSegment) {
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

func readHeader(path string) (logfmt.SegmentHeader, error) {
	f, err := os.Open(path)
	if err != nil {
		return logfmt.SegmentHeader{}, err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := f.ReadAt(buf, 0)
	return logfmt.ParseSegment(buf[:n])
}

// processCounts is what decode counts in one process's segments.
type processCounts struct{ tuples, torn int64 }

type decodeResult struct {
	procs                    []processCounts
	segments                 int
	torn, unknown, malformed int64
	err                      error
}

// decode reads the segments of procs in order and sends their rows to
// out in batches, each table's in order; it closes out when done, or
// when stop is closed.
func decode(procs []*process, byID map[uint16]*tableLoader, out chan<- *batch, stop <-chan struct{}) (d decodeResult) {
	defer close(out)
	d.procs = make([]processCounts, len(procs))
	var data []byte // the segment, reused: rows are copied out of it
	var err error
	send := func(tl *tableLoader) bool {
		tl.cur.sortByKey()
		select {
		case out <- tl.cur:
			tl.cur = nil
			return true
		case <-stop:
			return false
		}
	}
	for index, p := range procs {
		idBase := int64(index) << ProcessShift
		var implied int64 // the process's records whose ids are implied, so far
		for _, s := range p.segments {
			data, err = readFile(s.path, data)
			if err != nil {
				d.err = err
				return d
			}
			sc := logfmt.NewScanner(data, s.header)
			sc.Implied = implied
			for sc.Next() {
				rec := sc.Record()
				tl := byID[rec.Table]
				if tl == nil {
					d.unknown++
					continue
				}
				if tl.cur == nil && !tl.newBatch(stop) {
					return d
				}
				rows := tl.cur.rows
				if !tl.cur.add(rec, idBase) {
					d.malformed++
				}
				d.procs[index].tuples++
				if tl.cur.rows > rows {
					for _, cl := range tl.copies {
						if !cl.add(tl.cur, stop, send) {
							return d
						}
					}
				}
				if tl.cur.full() && !send(tl) {
					return d
				}
			}
			d.procs[index].torn += int64(sc.Torn)
			d.torn += int64(sc.Torn)
			if sc.Corrupt {
				d.malformed++
			}
			d.malformed += int64(sc.Unnumbered)
			implied = sc.Implied
			d.segments++
		}
	}
	for _, tl := range byID {
		if tl.cur != nil && !send(tl) {
			return d
		}
		for _, cl := range tl.copies {
			if !cl.flush(stop, send) || cl.tl.cur != nil && !send(cl.tl) {
				d.err = cl.err
				return d
			}
		}
	}
	return d
}

// readFile reads the file at path into buf's memory if it fits.
func readFile(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return buf, err
	}
	if n := int(fi.Size()); cap(buf) < n {
		buf = make([]byte, n)
	} else {
		buf = buf[:n]
	}
	_, err = io.ReadFull(f, buf)
	return buf, err
}

// quote quotes an SQL identifier.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

const (
	// batchRows is the number of rows of one multi-row INSERT.
	batchRows = 1024
	// batchText is the size of texts and blobs beyond which a batch is
	// inserted before it has batchRows rows (so that huge values do not
	// make huge batches).
	batchText = 1 << 20
	// batchesPerTable bounds the batches of one table that are being
	// filled, queued or inserted; batchQueue is the queue's length.
	batchesPerTable = 4
	batchQueue      = 8
	// maxVariables is SQLite's default limit of parameters of a
	// statement (SQLITE_MAX_VARIABLE_NUMBER).
	maxVariables = 32766
)

// tableLoader inserts the rows of one table. The decoding goroutine
// owns cur and batches; the inserting one, the statement and rows.
type tableLoader struct {
	table    *Table
	c        *conn
	rows     int    // rows of a full batch
	prefix   string // the statement's text without VALUES rows
	row      string // the VALUES row: the run, then a parameter per column
	full     *stmt  // inserts rows rows; prepared for the first full batch
	key      []int  // the columns of the table's key
	inserted int64
	copies   []*copyLoader // the table's Copies
	sorting  []copyRow     // sortByKey's rows
	sortKeys []uint64      // and its keys
	copy     bool          // the table is a copy of another

	cur     *batch      // being filled
	batches int         // allocated
	free    chan *batch // inserted, to reuse
}

func newTableLoader(c *conn, t *Table, run int64) (*tableLoader, error) {
	if err := createTable(c, t); err != nil {
		return nil, err
	}
	var cols strings.Builder
	if len(t.Key) > 0 {
		cols.WriteString("INSERT OR IGNORE INTO " + quote(t.Name) + " (run")
	} else {
		cols.WriteString("INSERT INTO " + quote(t.Name) + " (run")
	}
	for _, col := range t.Columns {
		cols.WriteString(", " + quote(col.Name))
	}
	cols.WriteString(") VALUES ")
	tl := &tableLoader{
		table:  t,
		c:      c,
		rows:   batchRows,
		prefix: cols.String(),
		// The run is a literal: one parameter less to bind per row.
		row:  "(" + strconv.FormatInt(run, 10) + strings.Repeat(", ?", len(t.Columns)) + ")",
		free: make(chan *batch, batchesPerTable),
	}
	for _, k := range t.Key {
		i := slices.IndexFunc(t.Columns, func(c Column) bool { return c.Name == k })
		if i < 0 {
			return nil, fmt.Errorf("load: the key column %s of %s is not one of its columns", k, t.Name)
		}
		tl.key = append(tl.key, i)
	}
	if n := len(t.Columns); n*tl.rows > maxVariables {
		tl.rows = max(1, maxVariables/n)
	}
	return tl, nil
}

// statement returns the INSERT of n rows.
func (tl *tableLoader) statement(n int) string {
	return tl.prefix + tl.row + strings.Repeat(", "+tl.row, n-1)
}

func (tl *tableLoader) close() { tl.full.close() }

// newBatch makes tl.cur an empty batch, reporting false if stop was
// closed while it waited for one.
func (tl *tableLoader) newBatch(stop <-chan struct{}) bool {
	if tl.batches < batchesPerTable {
		tl.batches++
		tl.cur = &batch{tl: tl, max: tl.rows, vals: make([]value, 0, tl.rows*len(tl.table.Columns))}
		return true
	}
	select {
	case tl.cur = <-tl.free:
		return true
	case <-stop:
		return false
	}
}

// insert inserts the rows of b.
func (tl *tableLoader) insert(b *batch) error {
	st := tl.full
	if st == nil || b.rows != tl.rows {
		var err error
		if st, err = tl.c.prepare(tl.statement(b.rows)); err != nil {
			return err
		}
		if b.rows == tl.rows {
			tl.full = st // for the next full batches
		} else {
			defer st.close() // the table's last batch, or one cut short by batchText
		}
	}
	text := tl.c.scratch(len(b.text))
	copy(cmem(text, len(b.text)), b.text)
	for i := range b.vals {
		v := &b.vals[i]
		switch v.kind {
		case kindNull:
			st.bindNull(i + 1)
		case kindInt:
			st.bindInt64(i+1, v.i)
		case kindFloat:
			st.bindFloat(i+1, math.Float64frombits(uint64(v.i)))
		case kindText:
			st.bindText(i+1, text+uintptr(v.i), int(v.n))
		case kindBlob:
			st.bindBlob(i+1, text+uintptr(v.i), int(v.n))
		}
	}
	if err := st.exec(); err != nil {
		return err
	}
	tl.inserted += int64(b.rows)
	return nil
}

// createTable creates t's table, or adds the columns it lacks (the
// questions changed since an earlier run: earlier rows get NULL).
func createTable(c *conn, t *Table) error {
	cols, err := tableColumns(c, t.Name)
	if err != nil {
		return err
	}
	have := make(map[string]bool, len(cols))
	for _, col := range cols {
		have[col] = true
	}
	if len(have) == 0 {
		var b strings.Builder
		b.WriteString("CREATE TABLE " + quote(t.Name) + " (run INTEGER")
		for _, col := range t.Columns {
			b.WriteString(", " + quote(col.Name) + " " + col.Type)
		}
		if len(t.Key) > 0 {
			b.WriteString(", PRIMARY KEY (run")
			for _, k := range t.Key {
				b.WriteString(", " + quote(k))
			}
			b.WriteString(")) WITHOUT ROWID")
		} else {
			b.WriteString(")")
		}
		return c.exec(b.String())
	}
	for _, col := range t.Columns {
		if !have[col.Name] {
			if err := c.exec("ALTER TABLE " + quote(t.Name) + " ADD COLUMN " + quote(col.Name) + " " + col.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

// tableColumns returns the names of the columns of table, none if there
// is no such table.
func tableColumns(c *conn, table string) ([]string, error) {
	st, err := c.prepare("SELECT name FROM pragma_table_info(?)")
	if err != nil {
		return nil, err
	}
	defer st.close()
	st.bindString(1, table)
	var cols []string
	for {
		row, err := st.step()
		if err != nil {
			return nil, err
		}
		if !row {
			return cols, nil
		}
		cols = append(cols, st.columnText(0))
	}
}

// A value is one field of a row, ready to bind.
type value struct {
	i    int64 // kindInt: the value; kindFloat: its bits; kindText, kindBlob: offset in batch.text
	n    int32 // kindText, kindBlob: length
	kind uint8
}

const (
	kindNull = iota
	kindInt
	kindFloat
	kindText
	kindBlob
)

// A batch is rows of one table, decoded.
type batch struct {
	tl   *tableLoader
	max  int // rows of a full batch
	rows int
	vals []value // rows × columns
	text []byte  // the texts and blobs of vals
}

// sortByKey sorts the rows of a batch of a keyed table of two columns
// by its key, when they are not in that order already. Rows in order
// are inserted at the right edge of the B-tree, or next to the row
// inserted before, where rows out of order are each searched for from
// the root: the rows of ends and durations come in the order the
// executions end, not in the order of their ids (the order of their
// begins). Rows that belong before those of earlier batches are
// searched for all the same; the order is only the inserts' speed.
func (b *batch) sortByKey() {
	key := b.tl.key
	if len(key) != 2 || len(b.tl.table.Columns) != 2 || b.rows < 2 || b.tl.copy {
		return
	}
	k0, k1 := key[0], key[1]
	inOrder := true
	for r := 2; r < 2*b.rows; r += 2 {
		if c := cmp.Compare(b.vals[r+k0].i, b.vals[r-2+k0].i); c < 0 || c == 0 && b.vals[r+k1].i < b.vals[r-2+k1].i {
			inOrder = false
			break
		}
	}
	if inOrder {
		return
	}
	rows := b.tl.sorting[:0]
	for r := 0; r < b.rows; r++ {
		rows = append(rows, copyRow{b.vals[2*r], b.vals[2*r+1]})
	}
	b.tl.sorting = rows
	// Sorted as integers when they fit: the key's first column less its
	// least in the batch, then the row's place (rows of one id stay in
	// the order they came).
	lo, hi := rows[0][k0].i, rows[0][k0].i
	for _, row := range rows {
		lo, hi = min(lo, row[k0].i), max(hi, row[k0].i)
	}
	const place = 15 // bits: rows of a batch < maxVariables/2
	if d := hi - lo; d >= 0 && d < 1<<(63-place) {
		keys := b.tl.sortKeys[:0]
		for r, row := range rows {
			keys = append(keys, uint64(row[k0].i-lo)<<place|uint64(r))
		}
		slices.Sort(keys)
		for r, k := range keys {
			row := rows[k&(1<<place-1)]
			b.vals[2*r], b.vals[2*r+1] = row[0], row[1]
		}
		b.tl.sortKeys = keys
		return
	}
	slices.SortFunc(rows, func(a, b copyRow) int {
		if c := cmp.Compare(a[k0].i, b[k0].i); c != 0 {
			return c
		}
		return cmp.Compare(a[k1].i, b[k1].i)
	})
	for r, row := range rows {
		b.vals[2*r], b.vals[2*r+1] = row[0], row[1]
	}
}

func (b *batch) full() bool { return b.rows == b.max || len(b.text) >= batchText }

func (b *batch) reset() { b.rows, b.vals, b.text = 0, b.vals[:0], b.text[:0] }

// add appends the values of one record, its ID columns offset by idBase;
// it reports false if the record does not match the table (and leaves
// it out if a column of the table's key has no value).
func (b *batch) add(rec *logfmt.Record, idBase int64) bool {
	ok := true
	cols := b.tl.table.Columns
	start := len(b.vals)
	b.vals = append(b.vals, make([]value, len(cols))...) // kindNull: missing fields are NULL
	row := b.vals[start:]
	var f logfmt.Field
	for i := 0; ; i++ {
		more, err := rec.NextField(&f)
		if err != nil {
			ok = false
			break
		}
		if !more || f.Kind == logfmt.KindFieldsLost {
			break
		}
		if i >= len(cols) {
			ok = false
			if f.Kind == logfmt.KindListBegin {
				n := len(b.text)
				b.text, _ = appendList(b.text, rec) // skip it
				b.text = b.text[:n]
			}
			continue
		}
		b.value(&row[i], rec, &f, cols[i].ID, idBase)
	}
	for _, k := range b.tl.key {
		if row[k].kind == kindNull {
			b.vals = b.vals[:start] // a key without a value: not a row
			return false
		}
	}
	b.rows++
	return ok
}

// value converts a field into the value to bind.
func (b *batch) value(v *value, rec *logfmt.Record, f *logfmt.Field, id bool, idBase int64) {
	switch f.Kind {
	case logfmt.KindInt:
		v.kind, v.i = kindInt, f.Int
		switch {
		case id && v.i < 0:
			v.i -= idBase // an implied id (logfmt.FormatPoint): below the process's range
		case id:
			v.i += idBase
		}
	case logfmt.KindBool:
		v.kind, v.i = kindInt, f.Int
	case logfmt.KindUint:
		switch {
		case f.Uint > math.MaxInt64:
			v.kind, v.i = kindFloat, int64(math.Float64bits(float64(f.Uint)))
		case id:
			v.kind, v.i = kindInt, int64(f.Uint)+idBase
		default:
			v.kind, v.i = kindInt, int64(f.Uint)
		}
	case logfmt.KindFloat:
		if !math.IsNaN(f.Float) {
			v.kind, v.i = kindFloat, int64(math.Float64bits(f.Float))
		}
	case logfmt.KindString, logfmt.KindBytes:
		n := len(b.text)
		b.text = append(b.text, f.Data...)
		if f.Cut > 0 {
			b.text = append(b.text, cutMarker(f.Cut)...)
		}
		v.kind, v.i, v.n = kindText, int64(n), int32(len(b.text)-n)
		if f.Kind == logfmt.KindBytes {
			v.kind = kindBlob
		}
	case logfmt.KindListBegin:
		n := len(b.text)
		var nan bool
		b.text, nan = appendList(b.text, rec)
		if nan {
			// A list holding a NaN is nil, as a NaN is: it equals no
			// list, not even itself, as Go's == has it.
			b.text = b.text[:n]
			break
		}
		v.kind, v.i, v.n = kindText, int64(n), int32(len(b.text)-n)
	}
}

// cutMarker is appended to a string or []byte value that was truncated
// to logfmt.MaxString bytes.
func cutMarker(n int) string { return "…[truncated from " + strconv.Itoa(n) + " bytes]" }

// appendList appends the list whose ListBegin was just read as canonical text:
// JSON, except that []byte elements are strings of hexadecimal digits
// prefixed with 0x and infinite floats are the strings "+Inf" and
// "-Inf"; a negative zero is 0, which Go's == finds equal to it; a list
// that lost elements (logfmt.MaxRecord) ends in "…". nan says whether
// an element was a NaN (written "NaN"), which no value equals.
func appendList(b []byte, rec *logfmt.Record) (_ []byte, nan bool) {
	b = append(b, '[')
	first := true
	depth := 1
	var f logfmt.Field
	for depth > 0 {
		more, err := rec.NextField(&f)
		if err != nil || !more {
			break
		}
		if f.Kind == logfmt.KindListEnd {
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
		case logfmt.KindInt:
			b = strconv.AppendInt(b, f.Int, 10)
		case logfmt.KindUint:
			b = strconv.AppendUint(b, f.Uint, 10)
		case logfmt.KindFloat:
			switch {
			case math.IsNaN(f.Float):
				b = append(b, `"NaN"`...)
				nan = true
			case f.Float == 0:
				b = append(b, '0') // -0 too
			case math.IsInf(f.Float, 1):
				b = append(b, `"+Inf"`...)
			case math.IsInf(f.Float, -1):
				b = append(b, `"-Inf"`...)
			default:
				b = strconv.AppendFloat(b, f.Float, 'g', -1, 64)
			}
		case logfmt.KindBool:
			b = strconv.AppendBool(b, f.Int == 1)
		case logfmt.KindString:
			b = appendJSONString(b, f.Data, f.Cut)
		case logfmt.KindBytes:
			b = append(b, `"0x`...)
			for _, c := range f.Data {
				b = append(b, hex[c>>4], hex[c&15])
			}
			if f.Cut > 0 {
				b = append(b, cutMarker(f.Cut)...)
			}
			b = append(b, '"')
		case logfmt.KindNull:
			b = append(b, "null"...)
		case logfmt.KindListBegin:
			b = append(b, '[')
			depth++
			first = true
		case logfmt.KindFieldsLost:
			b = append(b, `"…"`...)
		}
	}
	return b, nan
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
