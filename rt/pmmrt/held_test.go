package pmmrt

import (
	"reflect"
	"testing"

	"pmm.dev/pmm/rt/logfmt"
)

// TestHeld checks that held tuples reach the log only when released, in
// the order they were held, once, and that a Held dropped unreleased
// writes nothing.
func TestHeld(t *testing.T) {
	dir := useTestLog(t, true, 1<<16, 1<<16)
	var kept, dropped Held
	var r Rec
	r.Int(-4)
	r.Str("held")
	kept.Emit(1, &r)
	if len(r.Fields()) != 0 {
		t.Fatal("Held.Emit did not reset the Rec")
	}
	var inner Held
	inner.Emit2(2, 5, -6)
	inner.MoveTo(&kept)
	inner.Release() // moved: nothing left
	kept.Emit3(3, 7, 8, -9)
	dropped.Emit2(9, 1, 1)
	Emit2(4, 1, 2) // written at once, before the held tuples
	kept.Release()
	kept.Release() // nothing left to write
	kept.Emit2(5, 10, 11)
	kept.Release()
	Close()
	want := []decoded{
		{4, []logfmt.Field{fInt(1), fInt(2)}},
		{1, []logfmt.Field{fInt(-4), fStr("held")}},
		{2, []logfmt.Field{fInt(5), fInt(-6)}},
		{3, []logfmt.Field{fInt(7), fInt(8), fInt(-9)}},
		{5, []logfmt.Field{fInt(10), fInt(11)}},
	}
	segs := readSegments(t, dir)
	if len(segs) != 1 {
		t.Fatalf("%d segments, want 1", len(segs))
	}
	if got := segs[0].recs; !reflect.DeepEqual(got, want) {
		t.Errorf("records\n got %+v\nwant %+v", got, want)
	}
}
