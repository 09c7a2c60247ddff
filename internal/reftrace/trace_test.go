package reftrace

import (
	"strings"
	"testing"
)

// TestReadRegions: a begin record with a label is a region's execution,
// in the order of begins with the functions' executions, with the
// execution it runs in; a region's record with a caller or results, and
// a second end, are errors.
func TestReadRegions(t *testing.T) {
	tr, err := Read(strings.NewReader(`{"k":"end","id":2,"seq":3}
{"k":"begin","id":1,"seq":1,"fn":"main.main","g":1}
{"k":"begin","id":2,"seq":2,"fn":"main.main","label":"loop","in":1,"g":1}
{"k":"end","id":1,"seq":4}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Execs) != 2 || tr.Execs[0].IsRegion() || !tr.Execs[1].IsRegion() {
		t.Fatalf("executions %+v, want main's then its region's", tr.Execs)
	}
	r := tr.Execs[1]
	if r.Label != "loop" || r.In != 1 || r.Func != "main.main" || r.Goroutine != 1 || !r.Ended || r.BeginSeq != 2 || r.EndSeq != 3 {
		t.Errorf("the region's execution is %+v", r)
	}
	for _, bad := range []string{
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","label":"loop","caller":1,"g":1}`,
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","label":"loop","in":1,"g":1}
{"k":"end","id":2,"seq":3,"panicked":true}`,
		`{"k":"begin","id":2,"seq":2,"fn":"main.main","label":"loop","in":1,"g":1}
{"k":"end","id":2,"seq":3}
{"k":"end","id":2,"seq":4}`,
	} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("Read accepts\n%s", bad)
		}
	}
}
