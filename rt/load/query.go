package load

import (
	"fmt"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Rows are the rows of a query that Query runs on a database, read
// through SQLite's C API as Load writes: pmm answer reads millions of
// rows this way. database/sql's driver takes the connection's mutex for
// each value it reads and converts every value twice on its way to the
// caller; here the connection is opened NOMUTEX, used by one goroutine,
// and each value is read once.
type Rows struct {
	c    *conn
	st   *stmt
	cols []string
	row  []any
	err  error
}

// Query runs query on the database at path, opened read-only, with args
// bound to its parameters ?1, ?2, ...: integers or strings. Like a
// load, it waits up to busyTimeoutMS for a writer; in WAL mode it reads
// while a run loads.
func Query(path, query string, args ...any) (*Rows, error) {
	c, err := openConnFlags(path, sqlite3.SQLITE_OPEN_READONLY)
	if err != nil {
		return nil, err
	}
	if err := c.exec("PRAGMA busy_timeout = " + busyTimeoutMS); err != nil {
		c.close()
		return nil, err
	}
	st, err := c.prepare(query)
	if err != nil {
		c.close()
		return nil, err
	}
	for i, a := range args {
		switch a := a.(type) {
		case int64:
			st.bindInt64(i+1, a)
		case int:
			st.bindInt64(i+1, int64(a))
		case string:
			st.bindString(i+1, a)
		default:
			st.close()
			c.close()
			return nil, fmt.Errorf("load: Query: argument %d has type %T; want an integer or a string", i+1, a)
		}
	}
	r := &Rows{c: c, st: st}
	n := int(sqlite3.Xsqlite3_column_count(c.tls, st.p))
	for i := 0; i < n; i++ {
		r.cols = append(r.cols, libc.GoString(sqlite3.Xsqlite3_column_name(c.tls, st.p, int32(i))))
	}
	r.row = make([]any, n)
	return r, nil
}

// Columns returns the names of the columns.
func (r *Rows) Columns() []string { return r.cols }

// Next reads the next row, reporting whether there is one.
func (r *Rows) Next() bool {
	if r.err != nil || r.st == nil {
		return false
	}
	ok, err := r.st.step()
	if err != nil || !ok {
		r.err = err
		return false
	}
	tls, p := r.c.tls, r.st.p
	for i := range r.row {
		switch sqlite3.Xsqlite3_column_type(tls, p, int32(i)) {
		case sqlite3.SQLITE_INTEGER:
			r.row[i] = r.st.columnInt64(i)
		case sqlite3.SQLITE_FLOAT:
			r.row[i] = sqlite3.Xsqlite3_column_double(tls, p, int32(i))
		case sqlite3.SQLITE_NULL:
			r.row[i] = nil
		default: // TEXT, and a BLOB as its bytes
			r.row[i] = r.st.columnText(i)
		}
	}
	return true
}

// Row returns the values of the row Next read: int64, float64, string
// (a BLOB's bytes too) or nil. The slice is reused by the next Next.
func (r *Rows) Row() []any { return r.row }

// Err returns the error that ended the rows, if any.
func (r *Rows) Err() error { return r.err }

// Close ends the query and closes the database.
func (r *Rows) Close() error {
	if r.st != nil {
		r.st.close()
		r.st = nil
		r.c.close()
	}
	return nil
}
