package pmmrt

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"pmm.dev/pmm/rt/logfmt"
)

// TestGo112 type-checks the package and the log format it imports
// (logfmt, copied beside it) as the go 1.12 language, which is what they
// must compile as inside a user's module with `go 1.12`, and checks that
// they import only the standard library (and pmmrt, logfmt).
func TestGo112(t *testing.T) {
	const formatPath = "pmm.dev/pmm/rt/logfmt"
	fset := token.NewFileSet()
	for _, v := range []struct{ goos, goarch string }{{"linux", "amd64"}, {"windows", "amd64"}, {"linux", "386"}, {"darwin", "arm64"}} {
		format := checkGo112(t, fset, "../logfmt", "logfmt", formatPath, v.goos, v.goarch, nil)
		checkGo112(t, fset, ".", "pmmrt", "example.com/m/internal/pmmrt_", v.goos, v.goarch, format)
	}
	// The checker must be able to fail: a go1.18 feature is refused.
	bad, err := parser.ParseFile(fset, "bad.go", "package p\nfunc f(x any) {}\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{GoVersion: "go1.12", Importer: importer.Default()}
	if _, err := conf.Check("p", fset, []*ast.File{bad}, nil); err == nil {
		t.Error("go1.12 check accepted `any`")
	}
}

// checkGo112 type-checks the non-test files of package name in dir that
// build for goos/goarch as go 1.12, and reports imports other than the
// standard library and format (when not nil).
func checkGo112(t *testing.T, fset *token.FileSet, dir, name, path, goos, goarch string, format *types.Package) *types.Package {
	t.Helper()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || pkgs[name] == nil {
		t.Fatalf("%s: want one package %s, got %d", dir, name, len(pkgs))
	}
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = goos, goarch
	var keep []*ast.File
	for _, f := range pkgs[name].Files {
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") && (format == nil || p != format.Path()) {
				t.Errorf("%s imports %s: only the standard library is allowed", fset.Position(imp.Pos()), p)
			}
		}
		if ok, err := ctx.MatchFile(dir, filepath.Base(fset.Position(f.Pos()).Filename)); err != nil {
			t.Fatal(err)
		} else if ok {
			keep = append(keep, f)
		}
	}
	conf := types.Config{GoVersion: "go1.12", Importer: formatImporter{importer.ForCompiler(fset, "source", nil), format}}
	pkg, err := conf.Check(path, fset, keep, nil)
	if err != nil {
		t.Errorf("%s %s/%s: %v", name, goos, goarch, err)
	}
	return pkg
}

// formatImporter imports format by its path, other packages by next.
type formatImporter struct {
	next   types.Importer
	format *types.Package
}

func (im formatImporter) Import(path string) (*types.Package, error) {
	if im.format != nil && path == im.format.Path() {
		return im.format, nil
	}
	return im.next.Import(path)
}

func TestInitialState(t *testing.T) {
	for env, want := range map[string]int32{"": stateOn, "on": stateOn, "off": stateOff} {
		if got := initialState(env); got != want {
			t.Errorf("PMM_RECORD=%q: state %d, want %d", env, got, want)
		}
	}
}

func TestBeginEnd(t *testing.T) {
	useTestLog(t, true, 1<<16, 1<<16)
	if !Enabled() {
		t.Fatal("not enabled at start")
	}
	End()
	if Enabled() {
		t.Fatal("enabled after End")
	}
	End()
	Begin()
	if !Enabled() {
		t.Fatal("not enabled after Begin")
	}
	// A broken log stays off.
	std.mu.Lock()
	std.fail(fmt.Errorf("test"))
	std.mu.Unlock()
	Begin()
	if Enabled() {
		t.Fatal("enabled after Begin on a broken log")
	}
}

func TestBrokenLogDropsRecords(t *testing.T) {
	useTestLog(t, true, 1<<16, 1<<16)
	std.mu.Lock()
	std.dir = "/dev/null/cannot-create"
	std.mu.Unlock()
	Emit2(1, 1, 2) // must not panic nor block
	var r Rec
	r.Int(1)
	Emit(1, &r)
	if Enabled() {
		t.Fatal("recording still enabled after the log failed to open")
	}
}

func TestIDsAndClock(t *testing.T) {
	a, b := NextID(), NextID()
	if a == 0 || b != a+1 {
		t.Errorf("NextID: %d then %d", a, b)
	}
	t0 := Now()
	time.Sleep(10 * time.Millisecond)
	if d := Now() - t0; d < int64(10*time.Millisecond) || d > int64(time.Second) {
		t.Errorf("Now advanced %d ns over a 10 ms sleep", d)
	}
	if Now() > int64(time.Since(processStart))+int64(time.Millisecond) {
		t.Errorf("Now %d is later than the time since the process started", Now())
	}
}

func TestGoID(t *testing.T) {
	stackID := func() int64 {
		buf := make([]byte, 1024)
		var id int64
		fmt.Sscanf(string(buf[:runtime.Stack(buf, false)]), "goroutine %d ", &id)
		return id
	}
	ids := make(chan [2]int64, 2)
	for i := 0; i < 2; i++ {
		go func() { ids <- [2]int64{GoID(), stackID()} }()
	}
	a, b := <-ids, <-ids
	if a[0] != a[1] || b[0] != b[1] || a[0] == b[0] || a[0] <= 0 {
		t.Errorf("GoID vs runtime.Stack: %v %v", a, b)
	}
}

func TestNoAllocation(t *testing.T) {
	useTestLog(t, true, 1<<20, 1<<20)
	for name, f := range map[string]func(){
		"Emit2":        func() { Emit2(1, 2, 3) },
		"Emit3":        func() { Emit3(1, 2, 3, 4) },
		"EmitExecPair": func() { EmitExecPair(1, 2, 3, 4, 5) },
		"EmitPoint":    func() { EmitPoint(1, 2, 4, 5) },
		"Emit": func() {
			var r Rec
			r.Int(-5)
			r.Str("hello, world, a string longer than thirty-two bytes")
			r.Bytes([]byte("some bytes, more than thirty-two of them....."))
			r.ListBegin()
			r.Float(1.5)
			r.Bool(true)
			r.ListEnd()
			Emit(7, &r)
		},
		"Now+NextID": func() { _, _ = Now(), NextID() },
	} {
		if n := testing.AllocsPerRun(1000, f); n != 0 {
			t.Errorf("%s allocates %v times", name, n)
		}
	}
}

// field constructors for the expectations.
func fInt(v int64) logfmt.Field  { return logfmt.Field{Kind: logfmt.KindInt, Int: v} }
func fStr(s string) logfmt.Field { return logfmt.Field{Kind: logfmt.KindString, Data: []byte(s)} }
func fBool(v bool) logfmt.Field {
	return logfmt.Field{Kind: logfmt.KindBool, Int: map[bool]int64{true: 1}[v]}
}
func fKind(k logfmt.Kind) logfmt.Field { return logfmt.Field{Kind: k} }
func fFloat(v float64) logfmt.Field    { return logfmt.Field{Kind: logfmt.KindFloat, Float: v} }
func fUint(v uint64) logfmt.Field      { return logfmt.Field{Kind: logfmt.KindUint, Uint: v} }

type named int8
type stringer struct{}

func (stringer) String() string { return "I am a stringer" }

type nilErr struct{ msg string }

func (e *nilErr) Error() string { return e.msg } // panics on nil

func TestRoundTrip(t *testing.T) {
	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("mmap=%v", mapped), func(t *testing.T) { testRoundTrip(t, mapped) })
	}
}

func testRoundTrip(t *testing.T, mapped bool) {
	dir := useTestLog(t, mapped, 1<<16, 1<<16)
	long := strings.Repeat("é", logfmt.MaxString) // 2 bytes a rune: cut inside one
	longBytes := bytes.Repeat([]byte{0xff}, logfmt.MaxString+10)
	var r Rec
	r.Int(math.MinInt64)
	r.Int(math.MaxInt64)
	r.Int(0)
	r.Uint(math.MaxUint64)
	r.Float(-2.5)
	r.Float(math.Inf(1))
	r.Bool(true)
	r.Bool(false)
	r.Str("")
	r.Str("héllo, 世界 🎉")
	r.Str(long)
	r.Bytes([]byte{0, 1, 2})
	r.Bytes(nil)
	r.Bytes(longBytes)
	r.Null()
	r.ListBegin()
	r.Int(1)
	r.ListBegin()
	r.Str("a")
	r.ListEnd()
	r.ListBegin()
	r.ListEnd()
	r.ListEnd()
	Emit(3, &r)
	if len(r.Fields()) != 0 {
		t.Fatal("Emit did not reset the Rec")
	}
	var nilPtr *nilErr
	for _, v := range []interface{}{nil, 7, int8(-8), uint16(9), uintptr(10), float32(0.5), "s", []byte("b"), true,
		time.Second, named(-3), stringer{}, fmt.Errorf("boom"), nilPtr, []int(nil), struct{ A int }{4}} {
		r.Value(v)
	}
	Emit(4, &r)
	Emit2(5, -1, 2)
	Emit3(6, 1, -2, 3)
	EmitExecPair(8, 9, 42, 3, 1234)            // packed: two tuples, one record
	EmitExecPair(13, 14, 1<<40-1, 1<<24-1, -1) // the largest that fit
	EmitExecPair(10, 9, 43, 1, 5)              // the duration's table first: two records
	EmitExecPair(11, 12, 1<<40, 2, 7)          // an id beyond 40 bits: two records
	EmitExecPair(15, 16, 44, 1<<24, 8)         // a site beyond 24 bits: two records
	r.Int(9)
	r.ListBegin() // left open: Emit closes it
	r.Int(10)
	Emit(7, &r)
	Flush()
	Close()

	cut := logfmt.MaxString
	for !utf8.RuneStart(long[cut]) {
		cut--
	}
	want := []decoded{
		{3, []logfmt.Field{fInt(math.MinInt64), fInt(math.MaxInt64), fInt(0), fUint(math.MaxUint64), fFloat(-2.5), fFloat(math.Inf(1)),
			fBool(true), fBool(false), {Kind: logfmt.KindString, Data: []byte{}}, fStr("héllo, 世界 🎉"),
			{Kind: logfmt.KindString, Data: []byte(long[:cut]), Cut: len(long)},
			{Kind: logfmt.KindBytes, Data: []byte{0, 1, 2}}, fKind(logfmt.KindNull),
			{Kind: logfmt.KindBytes, Data: longBytes[:logfmt.MaxString], Cut: len(longBytes)}, fKind(logfmt.KindNull),
			fKind(logfmt.KindListBegin), fInt(1), fKind(logfmt.KindListBegin), fStr("a"), fKind(logfmt.KindListEnd),
			fKind(logfmt.KindListBegin), fKind(logfmt.KindListEnd), fKind(logfmt.KindListEnd)}},
		{4, []logfmt.Field{fKind(logfmt.KindNull), fInt(7), fInt(-8), fUint(9), fUint(10), fFloat(0.5), fStr("s"),
			{Kind: logfmt.KindBytes, Data: []byte("b")}, fBool(true), fInt(int64(time.Second)), fInt(-3),
			fStr("I am a stringer"), fStr("boom"), fStr("<nil>"), fKind(logfmt.KindNull), fStr("{4}")}},
		{5, []logfmt.Field{fInt(-1), fInt(2)}},
		{6, []logfmt.Field{fInt(1), fInt(-2), fInt(3)}},
		{8, []logfmt.Field{fInt(42), fInt(3)}}, {9, []logfmt.Field{fInt(42), fInt(1234)}},
		{13, []logfmt.Field{fInt(1<<40 - 1), fInt(1<<24 - 1)}}, {14, []logfmt.Field{fInt(1<<40 - 1), fInt(-1)}},
		{10, []logfmt.Field{fInt(43), fInt(1)}}, {9, []logfmt.Field{fInt(43), fInt(5)}},
		{11, []logfmt.Field{fInt(1 << 40), fInt(2)}}, {12, []logfmt.Field{fInt(1 << 40), fInt(7)}},
		{15, []logfmt.Field{fInt(44), fInt(1 << 24)}}, {16, []logfmt.Field{fInt(44), fInt(8)}},
		{7, []logfmt.Field{fInt(9), fKind(logfmt.KindListBegin), fInt(10), fKind(logfmt.KindListEnd)}},
	}
	segs := readSegments(t, dir)
	if len(segs) != 1 {
		t.Fatalf("%d segments, want 1", len(segs))
	}
	h := segs[0].header
	if h.PID != int64(os.Getpid()) || h.Start != processStart.UnixNano() || h.Program != os.Args[0] || h.End == 0 {
		t.Errorf("header %+v", h)
	}
	got := segs[0].recs
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].table != want[i].table || len(got[i].fields) != len(want[i].fields) {
			t.Errorf("record %d: table %d with %d fields, want %d with %d", i, got[i].table, len(got[i].fields), want[i].table, len(want[i].fields))
			continue
		}
		for j, f := range want[i].fields {
			if g := got[i].fields[j]; !reflect.DeepEqual(g, f) {
				t.Errorf("record %d field %d: got %.80s, want %.80s", i, j, fmt.Sprintf("%+v", g), fmt.Sprintf("%+v", f))
			}
		}
	}
}

func TestRecordTooLarge(t *testing.T) {
	dir := useTestLog(t, true, 1<<16, 1<<16)
	var r Rec
	r.Int(1)
	r.ListBegin()
	big := strings.Repeat("x", logfmt.MaxString)
	for i := 0; i < 2*logfmt.MaxRecord/logfmt.MaxString; i++ {
		r.Str(big)
	}
	r.ListBegin() // dropped, and so is its end
	r.Int(2)
	r.ListEnd()
	r.ListEnd()
	r.Int(3) // dropped
	Emit(1, &r)
	Emit2(2, 4, 5) // the next record is intact
	Close()
	recs := allRecords(readSegments(t, dir))
	if len(recs) != 2 || recs[1].table != 2 {
		t.Fatalf("%d records", len(recs))
	}
	f := recs[0].fields
	n := len(f)
	if !reflect.DeepEqual(f[0], fInt(1)) || f[1].Kind != logfmt.KindListBegin || f[n-2].Kind != logfmt.KindFieldsLost || f[n-1].Kind != logfmt.KindListEnd {
		t.Errorf("fields start %v %v, end %v %v", f[0], f[1].Kind, f[n-2].Kind, f[n-1].Kind)
	}
	if strs := n - 4; strs != (logfmt.MaxRecord-16)/(logfmt.MaxString+3) {
		t.Errorf("%d strings kept", strs)
	}
}

// TestConcurrentWriters has many goroutines record through several small
// segments at once: every record must be found exactly once.
func TestConcurrentWriters(t *testing.T) {
	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("mmap=%v", mapped), func(t *testing.T) {
			dir := useTestLog(t, mapped, 4096, 1<<16)
			const goroutines, each = 16, 20000
			var wg sync.WaitGroup
			for g := 0; g < goroutines; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					var r Rec
					for i := 0; i < each; i++ {
						switch i % 3 {
						case 0:
							Emit2(1, int64(g), int64(i))
						case 1:
							Emit3(1, int64(g), int64(i), 0)
						default:
							r.Int(int64(g))
							r.Int(int64(i))
							r.Str(strings.Repeat("s", i%50))
							Emit(1, &r)
						}
					}
				}(g)
			}
			wg.Wait()
			Close()
			segs := readSegments(t, dir)
			seen := make([][]bool, goroutines)
			for g := range seen {
				seen[g] = make([]bool, each)
			}
			for _, s := range segs {
				if s.torn != 0 {
					t.Errorf("segment %d: %d torn records", s.header.Seq, s.torn)
				}
				for _, r := range s.recs {
					g, i := r.fields[0].Int, r.fields[1].Int
					if seen[g][i] {
						t.Fatalf("record %d/%d twice", g, i)
					}
					seen[g][i] = true
				}
			}
			for g := range seen {
				for i, ok := range seen[g] {
					if !ok {
						t.Fatalf("record %d/%d missing (of %d segments)", g, i, len(segs))
					}
				}
			}
			if len(segs) < 10 {
				t.Errorf("only %d segments: rotation not exercised", len(segs))
			}
		})
	}
}

// TestRotation checks the segment sizes (doubling up to the last size),
// their numbering, their recorded ends, and that records keep their order.
func TestRotation(t *testing.T) {
	dir := useTestLog(t, true, 4096, 16384)
	const n = 5000
	for i := 0; i < n; i++ {
		Emit2(1, int64(i), 0)
	}
	Close()
	segs := readSegments(t, dir)
	next := int64(0)
	for k, s := range segs {
		size := s.header.Size
		if size < 4096 || size > 16384 || size&(size-1) != 0 || s.header.Seq != segs[0].header.Seq+uint32(k) {
			t.Errorf("segment %d: seq %d, size %d", k, s.header.Seq, size)
		}
		if s.header.End != uint64(logfmt.SegHeaderSize+24*len(s.recs)) {
			t.Errorf("segment %d: end %d with %d records", k, s.header.End, len(s.recs))
		}
		for _, r := range s.recs {
			if r.fields[0].Int != next {
				t.Fatalf("segment %d: record %d, want %d", k, r.fields[0].Int, next)
			}
			next++
		}
	}
	largest := uint64(0)
	for _, s := range segs {
		if s.header.Size > largest {
			largest = s.header.Size
		}
	}
	if largest != 16384 {
		t.Errorf("the sizes did not grow to the largest: %d", largest)
	}
	if next != n {
		t.Errorf("%d records, want %d", next, n)
	}
	// Closed segments are truncated to their records.
	paths, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		h, _ := logfmt.ParseSegment(data)
		if uint64(fi.Size()) != h.End {
			t.Errorf("%s: %d bytes, end %d", p, fi.Size(), h.End)
		}
	}
}

// TestTorn simulates writers killed while writing: one after storing the
// size, one before, one at the very end of a segment. The committed
// records around them are read; the torn ones are counted.
func TestTorn(t *testing.T) {
	dir := useTestLog(t, true, 4096, 4096)
	reserveOnly := func(withSize bool) (*segment, []byte) {
		s, off := std.reserve(24)
		rec := s.data[off : off+24]
		if withSize {
			s.begin(rec, 24)
		}
		logfmt.PutHeader(rec, 9, logfmt.FormatInt2)
		return s, rec
	}
	Emit2(1, 1, 0)
	s1, torn1 := reserveOnly(true)
	Emit2(1, 2, 0)
	_, torn2 := reserveOnly(false)
	Emit2(1, 3, 0)
	// Fill the segment up to its last record, which is torn.
	room := (4096 - logfmt.SegHeaderSize - 5*24) / 24
	for i := 0; i < room-1; i++ {
		Emit2(2, int64(i), 0)
	}
	_, torn3 := reserveOnly(true)
	if (*segment)(std.cur) != s1 {
		t.Fatal("the records did not fit one segment")
	}
	// The process "dies" here: read the file as it is.
	paths, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	seg := decodeSegment(t, data)
	if seg.torn != 3 {
		t.Errorf("%d torn records, want 3", seg.torn)
	}
	var got []int64
	for _, r := range seg.recs {
		if r.table == 1 {
			got = append(got, r.fields[0].Int)
		}
	}
	if !reflect.DeepEqual(got, []int64{1, 2, 3}) || len(seg.recs) != 3+room-1 {
		t.Errorf("records %v, %d in all", got, len(seg.recs))
	}
	// Let Close finish: the stragglers commit.
	for _, rec := range [][]byte{torn1, torn2, torn3} {
		s1.commit(rec, 24)
	}
}

// TestFallbackWritesPeriodically checks the writer of the systems without
// mmap: committed records reach the file within the period, or at Flush.
func TestFallbackWritesPeriodically(t *testing.T) {
	dir := useTestLog(t, false, 1<<16, 1<<16)
	Emit2(1, 1, 1)
	count := func() int {
		paths, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
		if len(paths) != 1 {
			return -1
		}
		data, _ := os.ReadFile(paths[0])
		if len(data) < logfmt.SegHeaderSize {
			return 0
		}
		return len(decodeSegment(t, data).recs)
	}
	deadline := time.Now().Add(5 * time.Second)
	for count() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d records written after the period, want 1", n)
	}
	Emit2(1, 2, 2)
	Flush()
	if n := count(); n != 2 {
		t.Fatalf("%d records written after Flush, want 2", n)
	}
}

// TestFinishRun checks what MainReturned relies on: once finishRun
// returns, every record reserved before is committed (none torn, as
// the process may exit at once) and none is reserved after, while
// writers go on trying. Before it, a goroutine still writing when main
// returned left a torn record, and every answer of the run incomplete.
func TestFinishRun(t *testing.T) {
	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("mmap=%v", mapped), func(t *testing.T) {
			dir := useTestLog(t, mapped, 4096, 1<<16)
			var stop int32
			var wg sync.WaitGroup
			for g := 0; g < 8; g++ {
				wg.Add(1)
				go func(g int) {
					defer wg.Done()
					var r Rec
					for i := 0; atomic.LoadInt32(&stop) == 0; i++ {
						if i%2 == 0 {
							Emit2(1, int64(g), int64(i))
						} else {
							r.Int(int64(g))
							r.Str(strings.Repeat("s", i%100))
							Emit(1, &r)
						}
					}
				}(g)
			}
			time.Sleep(20 * time.Millisecond)
			std.finishRun(5 * time.Second)
			count := func() (recs, torn int) {
				paths, err := filepath.Glob(filepath.Join(dir, "logs", "*.pmmlog"))
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range paths {
					data, err := os.ReadFile(p)
					if err != nil {
						t.Fatal(err)
					}
					s := decodeSegment(t, data)
					recs, torn = recs+len(s.recs), torn+s.torn
				}
				return recs, torn
			}
			recs, torn := count()
			time.Sleep(20 * time.Millisecond)
			later, _ := count()
			atomic.StoreInt32(&stop, 1)
			std.mu.Unlock() // held by finishRun for good: let the writers end
			wg.Wait()
			if torn != 0 || recs == 0 {
				t.Errorf("%d records, %d torn after finishRun; want some, none torn", recs, torn)
			}
			if later != recs {
				t.Errorf("%d records after finishRun, %d later: a record was reserved after it", recs, later)
			}
		})
	}
}
