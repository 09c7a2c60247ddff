package load

import (
	"errors"
	"fmt"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// conn is a connection to SQLite through modernc's C API (the package
// that its database/sql driver wraps), used by Load alone. Below
// database/sql a value is bound without boxing it into an interface, a
// text without a C copy per value (bound in place from a buffer of the
// batch, SQLITE_STATIC), and without the driver's look-up of each
// parameter's name: about half of the cost of loading went there.
// A conn is used by one goroutine at a time (it is opened NOMUTEX).
type conn struct {
	tls *libc.TLS
	db  uintptr
	// buf is C memory for the texts of one batch, bound in place.
	buf    uintptr
	bufLen int
}

func openConn(path string) (*conn, error) {
	return openConnFlags(path, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_CREATE)
}

// openConnFlags opens path with flags (sqlite3_open_v2's), NOMUTEX.
func openConnFlags(path string, flags int32) (*conn, error) {
	c := &conn{tls: libc.NewTLS()}
	name := c.cstring(path)
	defer c.free(name)
	pdb := c.malloc(8)
	defer c.free(pdb)
	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, pdb, flags|sqlite3.SQLITE_OPEN_NOMUTEX, 0)
	c.db = cptr(pdb)
	if rc != sqlite3.SQLITE_OK {
		err := c.error(rc)
		c.close()
		return nil, fmt.Errorf("load: open %s: %w", path, err)
	}
	sqlite3.Xsqlite3_extended_result_codes(c.tls, c.db, 1)
	return c, nil
}

func (c *conn) close() {
	if c.buf != 0 {
		c.free(c.buf)
	}
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	c.tls.Close()
}

// malloc allocates n bytes of C memory (never returns 0: SQLite's
// allocator fails only when the process is out of memory).
func (c *conn) malloc(n int) uintptr {
	if n == 0 {
		n = 1
	}
	p := sqlite3.Xsqlite3_malloc64(c.tls, uint64(n))
	if p == 0 {
		panic("load: SQLite is out of memory")
	}
	return p
}

// scratch returns c's buffer, grown to n bytes at least. Growing it
// frees the old one: statements whose texts were bound in it are not
// stepped again before they are bound anew.
func (c *conn) scratch(n int) uintptr {
	if n > c.bufLen {
		if c.buf != 0 {
			c.free(c.buf)
		}
		c.bufLen = max(n, 64<<10)
		c.buf = c.malloc(c.bufLen)
	}
	return c.buf
}

func (c *conn) free(p uintptr) { sqlite3.Xsqlite3_free(c.tls, p) }

func (c *conn) cstring(s string) uintptr {
	p := c.malloc(len(s) + 1)
	b := cmem(p, len(s)+1)
	copy(b, s)
	b[len(s)] = 0
	return p
}

// error is the error of result code rc, with SQLite's message.
func (c *conn) error(rc int32) error {
	msg := libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc))
	if c.db != 0 {
		if m := libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)); m != "" && m != msg {
			msg += ": " + m
		}
	}
	return &sqliteError{code: rc, msg: msg}
}

// sqliteError is an error SQLite returned.
type sqliteError struct {
	code int32 // the (extended) result code
	msg  string
}

func (e *sqliteError) Error() string { return fmt.Sprintf("sqlite: %s (%d)", e.msg, e.code) }

// isBusy reports whether err is SQLite's SQLITE_BUSY.
func isBusy(err error) bool {
	var se *sqliteError
	return errors.As(err, &se) && se.code&0xff == sqlite3.SQLITE_BUSY
}

// exec runs the statements in sql.
func (c *conn) exec(sql string) error {
	p := c.cstring(sql)
	defer c.free(p)
	if rc := sqlite3.Xsqlite3_exec(c.tls, c.db, p, 0, 0, 0); rc != sqlite3.SQLITE_OK {
		return c.error(rc)
	}
	return nil
}

// stmt is a prepared statement.
type stmt struct {
	c   *conn
	p   uintptr
	err error // the first error of binding, returned by step
}

func (c *conn) prepare(sql string) (*stmt, error) {
	p := c.cstring(sql)
	defer c.free(p)
	pp := c.malloc(8)
	defer c.free(pp)
	if rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, p, -1, pp, 0); rc != sqlite3.SQLITE_OK {
		return nil, c.error(rc)
	}
	return &stmt{c: c, p: cptr(pp)}, nil
}

func (s *stmt) close() {
	if s != nil && s.p != 0 {
		sqlite3.Xsqlite3_finalize(s.c.tls, s.p)
		s.p = 0
	}
}

// Binding: i counts from 1. An error (an index out of range, a value
// too big) is kept and returned by the next step.

func (s *stmt) bound(rc int32) {
	if rc != sqlite3.SQLITE_OK && s.err == nil {
		s.err = s.c.error(rc)
	}
}

func (s *stmt) bindInt64(i int, v int64) {
	s.bound(sqlite3.Xsqlite3_bind_int64(s.c.tls, s.p, int32(i), v))
}

func (s *stmt) bindFloat(i int, v float64) {
	s.bound(sqlite3.Xsqlite3_bind_double(s.c.tls, s.p, int32(i), v))
}

func (s *stmt) bindNull(i int) { s.bound(sqlite3.Xsqlite3_bind_null(s.c.tls, s.p, int32(i))) }

// bindText binds the n bytes at p, which must stay unchanged until the
// statement is stepped and reset (SQLITE_STATIC: SQLite does not copy).
func (s *stmt) bindText(i int, p uintptr, n int) {
	s.bound(sqlite3.Xsqlite3_bind_text(s.c.tls, s.p, int32(i), p, int32(n), sqlite3.SQLITE_STATIC))
}

// bindBlob is bindText for a BLOB.
func (s *stmt) bindBlob(i int, p uintptr, n int) {
	s.bound(sqlite3.Xsqlite3_bind_blob(s.c.tls, s.p, int32(i), p, int32(n), sqlite3.SQLITE_STATIC))
}

// bindString binds a copy of v (SQLITE_TRANSIENT): for statements that
// run once.
func (s *stmt) bindString(i int, v string) {
	p := s.c.cstring(v)
	defer s.c.free(p)
	s.bound(sqlite3.Xsqlite3_bind_text(s.c.tls, s.p, int32(i), p, int32(len(v)), sqlite3.SQLITE_TRANSIENT))
}

// step runs the statement to its next row, reporting whether there is
// one; after the last row, or an error, it resets the statement.
func (s *stmt) step() (bool, error) {
	if err := s.err; err != nil {
		s.err = nil
		sqlite3.Xsqlite3_reset(s.c.tls, s.p)
		return false, err
	}
	switch rc := sqlite3.Xsqlite3_step(s.c.tls, s.p); rc {
	case sqlite3.SQLITE_ROW:
		return true, nil
	case sqlite3.SQLITE_DONE:
		sqlite3.Xsqlite3_reset(s.c.tls, s.p)
		return false, nil
	default:
		err := s.c.error(rc)
		sqlite3.Xsqlite3_reset(s.c.tls, s.p)
		return false, err
	}
}

// exec runs a statement that returns no rows.
func (s *stmt) exec() error {
	row, err := s.step()
	if row {
		sqlite3.Xsqlite3_reset(s.c.tls, s.p)
	}
	return err
}

func (s *stmt) columnInt64(i int) int64 {
	return sqlite3.Xsqlite3_column_int64(s.c.tls, s.p, int32(i))
}

func (s *stmt) columnText(i int) string {
	p := sqlite3.Xsqlite3_column_text(s.c.tls, s.p, int32(i))
	n := sqlite3.Xsqlite3_column_bytes(s.c.tls, s.p, int32(i))
	if p == 0 {
		return ""
	}
	return string(cmem(p, int(n)))
}

// cmem returns the n bytes of C memory at p. C memory (SQLite's
// allocator maps it, outside the Go heap) does not move and is not
// collected, so a Go pointer to it is valid; unsafe.Add rather than a
// conversion of p because vet cannot know where p points.
func cmem(p uintptr, n int) []byte { return unsafe.Slice((*byte)(unsafe.Add(nil, p)), n) }

// cptr reads the pointer stored at p, an out parameter in C memory.
func cptr(p uintptr) uintptr { return *(*uintptr)(unsafe.Add(nil, p)) }
