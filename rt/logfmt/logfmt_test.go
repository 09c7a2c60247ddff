package logfmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// segment lays out a segment as the runtime writes one: the header, then
// each record's header and body, committed unless its table is in torn.
func segment(program string, records []testRecord) []byte {
	le := binary.LittleEndian
	data := make([]byte, SegHeaderSize, 1<<16)
	PutSegmentHeader(data, SegmentHeader{PID: 42, Start: 1e18, Process: 0xfeed, Seq: 3, Size: uint64(cap(data)), Program: program})
	for _, r := range records {
		rec := make([]byte, RoundRecord(RecHeaderSize+len(r.body)))
		PutHeader(rec, r.table, r.format)
		copy(rec[RecHeaderSize:], r.body)
		word := uint32(len(rec))
		if !r.torn {
			word |= CommitBit
		}
		le.PutUint32(rec, word)
		data = append(data, rec...)
	}
	return data[:cap(data)] // the rest never written: zeros
}

type testRecord struct {
	table  uint16
	format byte
	body   []byte
	torn   bool
}

// TestRoundTrip encodes records with Rec (and the two integer formats),
// lays them out in a segment, and decodes them with Scanner.
func TestRoundTrip(t *testing.T) {
	long := strings.Repeat("é", MaxString) // 2 bytes a rune: cut at a rune boundary
	var r Rec
	r.Int(-5)
	r.Str("héllo")
	r.ListBegin()
	r.Uint(math.MaxUint64)
	r.Float(1.5)
	r.Bool(true)
	r.Null()
	r.ListEnd()
	r.Bytes([]byte{1, 2})
	r.Str(long)
	r.ListBegin() // left open: Finish ends it
	r.Value(int8(-3))
	r.Finish()
	fields := append([]byte(nil), r.Fields()...)
	ints := make([]byte, 24)
	for i, v := range []int64{7, -8, 9} {
		binary.LittleEndian.PutUint64(ints[8*i:], uint64(v))
	}
	data := segment("prog", []testRecord{
		{3, FormatFields, fields, false},
		{4, FormatInt2, ints[:16], true},
		{5, FormatInt3, ints, false},
	})
	h, err := ParseSegment(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := (SegmentHeader{PID: 42, Start: 1e18, Process: 0xfeed, Seq: 3, Size: uint64(len(data)), Program: "prog"}); h != want {
		t.Errorf("header %+v, want %+v", h, want)
	}
	want := map[uint16][]Field{
		3: {
			{Kind: KindInt, Int: -5}, {Kind: KindString, Data: []byte("héllo")},
			{Kind: KindListBegin}, {Kind: KindUint, Uint: math.MaxUint64}, {Kind: KindFloat, Float: 1.5},
			{Kind: KindBool, Int: 1}, {Kind: KindNull}, {Kind: KindListEnd},
			{Kind: KindBytes, Data: []byte{1, 2}}, {Kind: KindString, Data: []byte(long[:MaxString]), Cut: len(long)},
			{Kind: KindListBegin}, {Kind: KindInt, Int: -3}, {Kind: KindListEnd},
		},
		5: {{Kind: KindInt, Int: 7}, {Kind: KindInt, Int: -8}, {Kind: KindInt, Int: 9}},
	}
	sc := NewScanner(data, h)
	var tables []uint16
	for sc.Next() {
		rec := sc.Record()
		tables = append(tables, rec.Table)
		var got []Field
		for {
			var f Field
			more, err := rec.NextField(&f)
			if err != nil {
				t.Fatalf("table %d: %v", rec.Table, err)
			}
			if !more {
				break
			}
			got = append(got, f)
		}
		if !reflect.DeepEqual(got, want[rec.Table]) {
			t.Errorf("table %d: fields\n%+v\nwant\n%+v", rec.Table, got, want[rec.Table])
		}
	}
	if !reflect.DeepEqual(tables, []uint16{3, 5}) || sc.Torn != 1 || sc.Corrupt {
		t.Errorf("tables %v, %d torn, corrupt %v; want [3 5], 1 torn (table 4's), not corrupt", tables, sc.Torn, sc.Corrupt)
	}
	if _, err := ParseSegment(data[:SegHeaderSize-1]); err != ErrNotSegment {
		t.Errorf("a short header: %v, want ErrNotSegment", err)
	}
}

// TestAggChunk writes a chunk's header and one cell as the runtime lays
// them out, and reads them back.
func TestAggChunk(t *testing.T) {
	data := make([]byte, AggHeaderSize+3*AggCellSize) // a chunk cut short: 3 cells
	want := AggChunkHeader{Chunk: 2, PID: 7, Start: 1e18, Process: 0xbeef, Cells: 3}
	PutAggChunkHeader(data, want)
	h, err := ParseAggChunk(data)
	if err != nil || h != want {
		t.Fatalf("header %+v, %v; want %+v", h, err, want)
	}
	le := binary.LittleEndian
	cell := data[AggHeaderSize+AggCellSize:]
	for off, v := range map[int]uint64{AggCellKind: AggKindInt, AggCellCount: 4, AggCellSum: 10, AggCellMin: 1, AggCellMax: 5} {
		le.PutUint64(cell[off:], v)
	}
	if got, want := ReadAggCell(data, h, 1), (AggCell{Kind: AggKindInt, Count: 4, Sum: 10, Min: 1, Max: 5, Number: 2*AggCellsPerChunk + 1}); got != want {
		t.Errorf("cell %+v, want %+v", got, want)
	}
	if _, err := ParseAggChunk(data[:AggHeaderSize-1]); err != ErrNotAggChunk {
		t.Errorf("a short header: %v, want ErrNotAggChunk", err)
	}
}

// TestCounterHeader writes a counters file's header and counters as the
// runtime lays them out (sites 0 to 2, their entries checked, then their
// executions open, and page padding after them), and reads them back:
// the two arrays of sites 0 to 2 only.
func TestCounterHeader(t *testing.T) {
	data := make([]byte, CounterHeaderSize+8*8)
	PutCounterHeader(data, 2)
	for word := 0; word < 8; word++ {
		binary.LittleEndian.PutUint64(data[CounterHeaderSize+8*word:], uint64(10+word))
	}
	sites, checked, open, ok := ParseCounterHeader(data)
	if !ok || sites != 2 || len(checked) != 3*8 || len(open) != 3*8 {
		t.Fatalf("sites %d, %d and %d bytes of counters, ok %v; want 2, 24, 24, true", sites, len(checked), len(open), ok)
	}
	for site := 0; site <= 2; site++ {
		if n := binary.LittleEndian.Uint64(checked[8*site:]); n != uint64(10+site) {
			t.Errorf("checked, site %d: %d, want %d", site, n, 10+site)
		}
		if n := binary.LittleEndian.Uint64(open[8*site:]); n != uint64(13+site) {
			t.Errorf("open, site %d: %d, want %d", site, n, 13+site)
		}
	}
	// A file cut short holds the counters it has.
	if _, checked, open, ok := ParseCounterHeader(data[:CounterHeaderSize+8]); !ok || len(checked) != 8 || len(open) != 0 {
		t.Errorf("cut short: %d and %d bytes of counters, ok %v; want 8, 0, true", len(checked), len(open), ok)
	}
	if _, _, open, ok := ParseCounterHeader(data[:CounterHeaderSize+4*8]); !ok || len(open) != 8 {
		t.Errorf("cut short in the open counters: %d bytes of them, ok %v; want 8, true", len(open), ok)
	}
	if _, _, _, ok := ParseCounterHeader(data[:CounterHeaderSize-1]); ok {
		t.Error("a short header parsed")
	}
	copy(data, "PMMCNT99")
	if _, _, _, ok := ParseCounterHeader(data); ok {
		t.Error("a wrong magic parsed")
	}
}

// TestValueReadsNoSharedMemory: a value is recorded without reading
// what it refers to, which other goroutines may be writing: a slice by
// its address and length, and inside a struct or array a pointer, map,
// channel or function by its address; a value that refers to nothing as
// %v prints it.
func TestValueReadsNoSharedMemory(t *testing.T) {
	xs := []string{"a", "b", "c"}
	m := map[string]int{"k": 1}
	type plain struct {
		N int
		S string
		A [2]float64
	}
	type shared struct {
		N  int
		M  map[string]int
		Xs []string
		P  *int
		I  interface{}
	}
	for _, c := range []struct {
		v    interface{}
		want string
	}{
		{plain{1, "x", [2]float64{0.5, 2}}, "{1 x [0.5 2]}"},
		{shared{N: 2, M: m, Xs: xs, I: 7}, fmt.Sprintf("{2 %p %p len 3 <nil> 7}", m, xs)},
		{[1]map[string]int{m}, fmt.Sprintf("[%p]", m)},
	} {
		if holdsReferences(reflect.TypeOf(c.v), 0) != (c.want != fmt.Sprintf("%v", c.v)) {
			t.Errorf("%T: holdsReferences is %v", c.v, holdsReferences(reflect.TypeOf(c.v), 0))
		}
		var b strings.Builder
		formatShallow(&b, reflect.ValueOf(c.v), 0)
		if b.String() != c.want {
			t.Errorf("%T: %q, want %q", c.v, b.String(), c.want)
		}
	}
	var r Rec
	r.Value(xs)
	r.Finish()
	if got, want := string(r.Fields()), fmt.Sprintf("%p len 3", xs); !strings.Contains(got, want) {
		t.Errorf("a slice is recorded as %q, want %q in it", got, want)
	}
}

// TestImpliedIDsRunOut reads FormatPoint records when the process's
// implied ids are all but used up: the last one left is given, the
// records after it are skipped and counted, never given an id that
// is not negative (a NextID id's).
func TestImpliedIDsRunOut(t *testing.T) {
	body := make([]byte, 8)
	binary.LittleEndian.PutUint64(body, 5<<PackedIDBits|64) // site 5, 64 bytes
	data := segment("p", []testRecord{{1, FormatPoint, body, false}, {1, FormatPoint, body, false}, {1, FormatPoint, body, false}})
	h, err := ParseSegment(data)
	if err != nil {
		t.Fatal(err)
	}
	s := NewScanner(data, h)
	s.Implied = 1<<PackedIDBits - 1
	var got [][2]int64
	for s.Next() {
		var f Field
		var tuple [2]int64
		for i := range tuple {
			if ok, err := s.Record().NextField(&f); !ok || err != nil || f.Kind != KindInt {
				t.Fatalf("field %d: %v %v %+v", i, ok, err, f)
			}
			tuple[i] = f.Int
		}
		got = append(got, tuple)
	}
	if want := [][2]int64{{-1, 5}, {-1, 64}}; !reflect.DeepEqual(got, want) || s.Unnumbered != 2 || s.Implied != 1<<PackedIDBits {
		t.Errorf("got %v, %d unnumbered, next %d; want %v, 2", got, s.Unnumbered, s.Implied, want)
	}
}

type allowedText int

func (allowedText) String() string { return "allowed" }

type refusedText int

func (refusedText) String() string { return "refused" }

type errorText struct{ Code int }

func (e *errorText) Error() string { return "error text" }

// TestTextMethods: after SetTextMethods, Value calls the text method of
// a type of the module only when it is named, and those of other
// modules' types always; parts of a value that fmt prints by a method
// follow the same rule; the pointer type is named apart.
func TestTextMethods(t *testing.T) {
	t.Cleanup(func() { textModule, textTypes = "", nil })
	record := func(v interface{}) string {
		var r Rec
		r.Value(v)
		r.Finish()
		return string(r.Fields())
	}
	type parts struct {
		A allowedText
		R refusedText
		D time.Duration
	}
	if got := record(refusedText(1)); !strings.Contains(got, "refused") {
		t.Errorf("before SetTextMethods, refusedText is recorded as %q", got)
	}
	SetTextMethods("pmm.dev/pmm", []string{"pmm.dev/pmm/rt/logfmt.allowedText", "*pmm.dev/pmm/rt/logfmt.errorText"})
	for _, c := range []struct {
		v    interface{}
		want string
	}{
		{allowedText(1), "allowed"},
		{&errorText{3}, "error text"},
		{parts{1, 2, time.Second}, "{allowed 2 1s}"},
		{[]interface{}{errors.New("std")}[0], "std"},
	} {
		if got := record(c.v); !strings.Contains(got, c.want) {
			t.Errorf("%T is recorded as %q, want %q in it", c.v, got, c.want)
		}
	}
	for _, v := range []interface{}{refusedText(1), errorText{3}} {
		if got := record(v); strings.Contains(got, "refused") || strings.Contains(got, "error text") {
			t.Errorf("%T is recorded as %q: its method was called", v, got)
		}
	}
}
