package load

import (
	"cmp"
	"fmt"
	"slices"
)

// copyRows is the number of rows of a copy (Table.Copies) sorted at a
// time: 16 MiB of values for a copy of two columns. A run whose table
// has fewer rows inserts its copy in the key's order, each row at the
// right edge of the B-tree; a longer one inserts each further sorted
// part in order too, each goroutine's rows (say) one run of neighbours.
var copyRows = 1 << 19 // a variable for the tests

// A copyLoader fills a copy of a table (Table.Copies): the decoding
// goroutine gathers the values of each row of the table in the copy's
// order, sorts up to copyRows of them at a time and hands them on, in
// that order, in batches of the copy's tableLoader.
type copyLoader struct {
	tl   *tableLoader // the copy's
	cols [2]int       // the table's columns, in the copy's order
	rows []copyRow    // not sorted yet
	keys []uint64     // sortPacked's
}

// copyRow is a row of a copy: its two values in the copy's order.
type copyRow [2]value

// newCopyLoader creates the copy cp of src's table if it is missing,
// filled with the rows the table holds already (those of runs loaded by
// an earlier pmm, which had an index in its place), and drops the index
// it replaces.
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
	have, err := tableColumns(c, cp.Name)
	if err != nil {
		return nil, err
	}
	if cl.tl, err = newTableLoader(c, t, run); err != nil {
		return nil, err
	}
	cl.tl.copy = true
	if len(have) == 0 {
		cols := "run"
		for _, col := range t.Columns {
			cols += ", " + quote(col.Name)
		}
		if err := c.exec("INSERT OR IGNORE INTO " + quote(cp.Name) + " (" + cols + ") SELECT " + cols + " FROM " + quote(src.table.Name) + " ORDER BY " + cols); err != nil {
			return nil, err
		}
	}
	if cp.Replaces != "" && !slices.ContainsFunc(src.table.Indexes, func(x Index) bool { return x.Name == cp.Replaces }) {
		if err := c.exec("DROP INDEX IF EXISTS " + quote(cp.Replaces)); err != nil {
			return nil, err
		}
	}
	return cl, nil
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
	return cl.flush(stop, send)
}

// flush sorts the rows gathered so far and puts them into batches of the
// copy, sending each that is full; it reports false if stop was closed.
// The order is only the inserts' speed: a value that is not an integer
// (an id beyond int64, bound as a float) sorts by its bits.
func (cl *copyLoader) flush(stop <-chan struct{}, send func(*tableLoader) bool) bool {
	if !cl.sortPacked() {
		slices.SortFunc(cl.rows, func(a, b copyRow) int {
			if c := cmp.Compare(a[0].i, b[0].i); c != 0 {
				return c
			}
			return cmp.Compare(a[1].i, b[1].i)
		})
	}
	tl := cl.tl
	for i := range cl.rows {
		if tl.cur == nil && !tl.newBatch(stop) {
			return false
		}
		tl.cur.vals = append(tl.cur.vals, cl.rows[i][0], cl.rows[i][1])
		tl.cur.rows++
		if tl.cur.full() && !send(tl) {
			return false
		}
	}
	cl.rows = cl.rows[:0]
	return true
}

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
