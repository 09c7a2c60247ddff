package load

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
)

// copyRows is the number of rows of a copy (Table.Copies) sorted in
// memory at a time: 8 MiB. The sorted parts of a longer run are
// written to a temporary file, 16 bytes a row, and merged at the end.
var copyRows = 1 << 18 // a variable for the tests

// A copyLoader fills a copy of a table (Table.Copies): the decoding
// goroutine gathers the values of each row of the table in the copy's
// order, sorts up to copyRows of them at a time, spills each sorted
// part but the last to a temporary file, and at the end of the load
// hands them all on, merged in the key's order, in batches of the
// copy's tableLoader: each row is inserted at the right edge of the
// copy's B-tree.
type copyLoader struct {
	tl   *tableLoader // the copy's
	cols [2]int       // the table's columns, in the copy's order
	rows []copyRow    // not sorted yet
	keys []uint64     // sortPacked's
	file *os.File     // sorted runs of rows, spilled
	runs [][2]int64   // their offsets in file and rows
	err  error        // reading back a run
}

// copyRow is a row of a copy: its two values in the copy's order.
type copyRow [2]value

// newCopyLoader creates the copy cp of src's table if it is missing,
// fills it with the rows of the runs the table holds and it does not
// (fillCopy), and drops the index it replaces.
func newCopyLoader(c *conn, src *tableLoader, cp Copy, run int64) (*copyLoader, error) {
	if len(cp.Columns) != 2 || len(src.table.Columns) != 2 {
		return nil, fmt.Errorf("load: the copy %s of %s: a copy is of a table of two columns, in the other order", cp.Name, src.table.Name)
	}
	t := &Table{Name: cp.Name, Key: cp.Columns}
	cl := &copyLoader{}
	for k, name := range cp.Columns {
		i := slices.IndexFunc(src.table.Columns, func(c Column) bool { return c.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("load: the column %s of the copy %s is not one of %s's", name, cp.Name, src.table.Name)
		}
		t.Columns = append(t.Columns, src.table.Columns[i])
		cl.cols[k] = i
	}
	var err error
	if cl.tl, err = newTableLoader(c, t, run); err != nil {
		return nil, err
	}
	cl.tl.copy = true
	if err := fillCopy(c, src.table.Name, t); err != nil {
		return nil, err
	}
	if cp.Replaces != "" && !slices.ContainsFunc(src.table.Indexes, func(x Index) bool { return x.Name == cp.Replaces }) {
		if err := c.exec("DROP INDEX IF EXISTS " + quote(cp.Replaces)); err != nil {
			return nil, err
		}
	}
	return cl, nil
}

// fillCopy inserts into copy t the rows of table of every run that has
// rows in table and none in the copy: runs loaded by an earlier pmm
// (which had an index in the copy's place), or merged from a database
// of one. Two look-ups per run, and a sort of the rows of each run
// filled.
func fillCopy(c *conn, table string, t *Table) error {
	st, err := c.prepare("SELECT id FROM runs WHERE EXISTS (SELECT 1 FROM " + quote(table) + " AS t WHERE t.run = runs.id) AND NOT EXISTS (SELECT 1 FROM " + quote(t.Name) + " AS c WHERE c.run = runs.id)")
	if err != nil {
		return err
	}
	var runs []int64
	for {
		ok, err := st.step()
		if err != nil {
			st.close()
			return err
		}
		if !ok {
			break
		}
		runs = append(runs, st.columnInt64(0))
	}
	st.close()
	cols := "run"
	for _, col := range t.Columns {
		cols += ", " + quote(col.Name)
	}
	for _, r := range runs {
		if err := c.exec("INSERT OR IGNORE INTO " + quote(t.Name) + " (" + cols + ") SELECT " + cols + " FROM " + quote(table) + " WHERE run = " + strconv.FormatInt(r, 10) + " ORDER BY " + cols); err != nil {
			return err
		}
	}
	return nil
}

// add takes the last row of b, a batch of the copied table; it reports
// false if stop was closed while the copy's rows waited for a batch.
func (cl *copyLoader) add(b *batch, stop <-chan struct{}, send func(*tableLoader) bool) bool {
	if cl.rows == nil {
		cl.rows = make([]copyRow, 0, copyRows) // memory the OS gives as it is used
	}
	row := b.vals[len(b.vals)-2:]
	cl.rows = append(cl.rows, copyRow{row[cl.cols[0]], row[cl.cols[1]]})
	if len(cl.rows) < copyRows {
		return true
	}
	if cl.sort() && cl.spill() == nil {
		cl.rows = cl.rows[:0]
		return true
	}
	return cl.emitRows(stop, send) // in order after the rows before them, not among them
}

// sort sorts the rows gathered so far, reporting whether they are all
// integers (sortPacked, or else by comparisons). The order is only the
// inserts' speed: a value that is not an integer (an id beyond int64,
// bound as a float) sorts by its bits.
func (cl *copyLoader) sort() (ints bool) {
	if cl.sortPacked() {
		return true
	}
	slices.SortFunc(cl.rows, func(a, b copyRow) int {
		if c := cmp.Compare(a[0].i, b[0].i); c != 0 {
			return c
		}
		return cmp.Compare(a[1].i, b[1].i)
	})
	return !slices.ContainsFunc(cl.rows, func(r copyRow) bool { return r[0].kind != kindInt || r[1].kind != kindInt })
}

// spill appends the sorted rows, integers, to the copy's temporary file
// as one more run, 16 bytes a row.
func (cl *copyLoader) spill() error {
	if cl.file == nil {
		f, err := os.CreateTemp("", "pmm-copy-*")
		if err != nil {
			return err
		}
		cl.file = f
	}
	start, _ := cl.file.Seek(0, io.SeekEnd)
	w := bufio.NewWriterSize(cl.file, 1<<16)
	var buf [16]byte
	for _, r := range cl.rows {
		binary.LittleEndian.PutUint64(buf[:8], uint64(r[0].i))
		binary.LittleEndian.PutUint64(buf[8:], uint64(r[1].i))
		w.Write(buf[:])
	}
	if err := w.Flush(); err != nil {
		cl.file.Truncate(start) // the run is not one
		return err
	}
	cl.runs = append(cl.runs, [2]int64{start, int64(len(cl.rows))})
	return nil
}

// flush hands on every row of the copy not handed on yet, in order: the
// rows in memory, sorted, merged with the runs spilled to the temporary
// file. It reports false if stop was closed or a run could not be read
// back (cl.err).
func (cl *copyLoader) flush(stop <-chan struct{}, send func(*tableLoader) bool) bool {
	cl.sort()
	if len(cl.runs) == 0 {
		return cl.emitRows(stop, send)
	}
	m := &copyMerge{}
	if c := (&copyCursor{rows: cl.rows}); c.next() == nil {
		m.push(c)
	}
	for _, run := range cl.runs {
		c := &copyCursor{r: bufio.NewReaderSize(io.NewSectionReader(cl.file, run[0], 16*run[1]), 1<<16), n: run[1]}
		if err := c.next(); err != nil {
			cl.err = err
			return false
		}
		m.push(c)
	}
	for len(m.cursors) > 0 {
		c := m.cursors[0]
		if !cl.emit(c.row, stop, send) {
			return false
		}
		if err := c.next(); err == io.EOF {
			m.pop()
		} else if err != nil {
			cl.err = err
			return false
		} else {
			m.fix()
		}
	}
	cl.rows, cl.runs = cl.rows[:0], nil
	return true
}

// emitRows hands on the rows in memory, in their order.
func (cl *copyLoader) emitRows(stop <-chan struct{}, send func(*tableLoader) bool) bool {
	for _, r := range cl.rows {
		if !cl.emit(r, stop, send) {
			return false
		}
	}
	cl.rows = cl.rows[:0]
	return true
}

// emit puts row into a batch of the copy, sending the batch once full;
// it reports false if stop was closed.
func (cl *copyLoader) emit(row copyRow, stop <-chan struct{}, send func(*tableLoader) bool) bool {
	tl := cl.tl
	if tl.cur == nil && !tl.newBatch(stop) {
		return false
	}
	tl.cur.vals = append(tl.cur.vals, row[0], row[1])
	tl.cur.rows++
	return !tl.cur.full() || send(tl)
}

// close closes the copy's statements and removes its temporary file.
func (cl *copyLoader) close() {
	cl.tl.close()
	if cl.file != nil {
		cl.file.Close()
		os.Remove(cl.file.Name())
	}
}

// A copyCursor reads one sorted run of a copy: from the temporary file
// (r, n rows left) or from memory (rows).
type copyCursor struct {
	row  copyRow
	r    *bufio.Reader
	n    int64
	rows []copyRow
}

// next reads the cursor's next row into row, io.EOF after its last.
func (c *copyCursor) next() error {
	if c.r == nil {
		if len(c.rows) == 0 {
			return io.EOF
		}
		c.row, c.rows = c.rows[0], c.rows[1:]
		return nil
	}
	if c.n == 0 {
		return io.EOF
	}
	var buf [16]byte
	if _, err := io.ReadFull(c.r, buf[:]); err != nil {
		return fmt.Errorf("load: reading back the sorted rows of a copy: %w", err)
	}
	c.n--
	c.row = copyRow{{kind: kindInt, i: int64(binary.LittleEndian.Uint64(buf[:8]))}, {kind: kindInt, i: int64(binary.LittleEndian.Uint64(buf[8:]))}}
	return nil
}

// A copyMerge is a heap of cursors, the one at the least row first.
type copyMerge struct{ cursors []*copyCursor }

func (m *copyMerge) Len() int { return len(m.cursors) }
func (m *copyMerge) Less(i, j int) bool {
	a, b := m.cursors[i].row, m.cursors[j].row
	return a[0].i < b[0].i || a[0].i == b[0].i && a[1].i < b[1].i
}
func (m *copyMerge) Swap(i, j int) { m.cursors[i], m.cursors[j] = m.cursors[j], m.cursors[i] }
func (m *copyMerge) Push(x any)    { m.cursors = append(m.cursors, x.(*copyCursor)) }
func (m *copyMerge) Pop() any {
	c := m.cursors[len(m.cursors)-1]
	m.cursors = m.cursors[:len(m.cursors)-1]
	return c
}
func (m *copyMerge) push(c *copyCursor) { heap.Push(m, c) }
func (m *copyMerge) pop()               { heap.Pop(m) }
func (m *copyMerge) fix()               { heap.Fix(m, 0) }

// sortPacked sorts the rows as one integer each, their values less the
// least of each column side by side, when they are all integers whose
// ranges fit (the first column's in 24 bits, the second's in 40: the
// goroutines and ids of one process's part of a run), and reports
// whether it did: sorting integers costs a fraction of sorting rows by
// a comparison function.
func (cl *copyLoader) sortPacked() bool {
	if len(cl.rows) == 0 {
		return true
	}
	lo, hi := cl.rows[0], cl.rows[0]
	for _, r := range cl.rows {
		if r[0].kind != kindInt || r[1].kind != kindInt {
			return false
		}
		lo[0].i, hi[0].i = min(lo[0].i, r[0].i), max(hi[0].i, r[0].i)
		lo[1].i, hi[1].i = min(lo[1].i, r[1].i), max(hi[1].i, r[1].i)
	}
	const low = 40
	if uint64(hi[0].i-lo[0].i) >= 1<<(64-low) || uint64(hi[1].i-lo[1].i) >= 1<<low || hi[0].i-lo[0].i < 0 || hi[1].i-lo[1].i < 0 {
		return false
	}
	keys := cl.keys[:0]
	for _, r := range cl.rows {
		keys = append(keys, uint64(r[0].i-lo[0].i)<<low|uint64(r[1].i-lo[1].i))
	}
	slices.Sort(keys)
	for i, k := range keys {
		cl.rows[i][0].i = int64(k>>low) + lo[0].i
		cl.rows[i][1].i = int64(k&(1<<low-1)) + lo[1].i
	}
	cl.keys = keys
	return true
}
