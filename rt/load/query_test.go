package load

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"
)

// TestQuery reads rows of every SQLite type through Query, with
// arguments, and checks them against the values inserted; and that a
// bad query and a bad argument are errors.
func TestQuery(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	if _, err := db.Exec(`CREATE TABLE v (run INTEGER, i INTEGER, f REAL, s TEXT, b BLOB);
		INSERT INTO v VALUES (1, -7, 2.5, 'é"', x'00ff41'), (1, 1099511627776, NULL, '', NULL), (2, 0, 1e300, 'x', NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("INSERT INTO v VALUES (1, NULL, ?, NULL, NULL)", math.Inf(1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	path := filepath.Join(dir, "pmm.db")
	r, err := Query(path, "SELECT i, f, s, b, run AS r FROM v WHERE run = ? AND s IS NOT ?2 ORDER BY rowid", int64(1), "nothing")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for r.Next() {
		got = append(got, fmt.Sprintf("%#v", r.Row()))
		for _, v := range r.Row() {
			switch v.(type) {
			case nil, int64, float64, string:
			default:
				t.Errorf("a value of type %T", v)
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	want := []string{
		`[]interface {}{-7, 2.5, "é\"", "\x00\xffA", 1}`,
		`[]interface {}{1099511627776, interface {}(nil), "", interface {}(nil), 1}`,
		`[]interface {}{interface {}(nil), +Inf, interface {}(nil), interface {}(nil), 1}`,
	}
	if fmt.Sprint(r.Columns()) != "[i f s b r]" || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("columns %v, rows\n%v\nwant\n%v", r.Columns(), got, want)
	}
	if _, err := Query(path, "SELECT nothing FROM v"); err == nil {
		t.Error("a query of a missing column: no error")
	}
	if _, err := Query(path, "SELECT ?", 1.5); err == nil {
		t.Error("a float argument: no error")
	}
}
