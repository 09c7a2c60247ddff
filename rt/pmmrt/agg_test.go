package pmmrt

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pmm.dev/pmm/rt/logfmt"
)

// useTestAgg is useTestLog with fresh aggregate cells, mapped or kept in
// memory, whose chunk files go beside the test's segments.
func useTestAgg(t testing.TB, mapped bool) string {
	t.Helper()
	dir := useTestLog(t, true, firstSegmentSize, lastSegmentSize)
	closeAggs()
	aggMu.Lock()
	aggMapped = mapped
	aggMu.Unlock()
	t.Cleanup(func() {
		dropAggs()
		aggMu.Lock()
		aggMapped = useMmap
		aggMu.Unlock()
	})
	return dir
}

// dropAggs is closeAggs, and it unmaps the chunks (Close leaves them
// mapped, for the additions in flight: a test has none) and forgets the
// test's Cells (Close would make them again, in the next test's files).
func dropAggs() {
	aggMu.Lock()
	s := (*aggSet)(atomic.LoadPointer(&aggCur))
	s.counted = nil
	var mapped [][]byte
	for _, ch := range s.chunks {
		if ch.file == nil {
			mapped = append(mapped, ch.data)
		}
	}
	aggMu.Unlock()
	closeAggs()
	for _, data := range mapped {
		unmapFile(data)
	}
}

// aggValue is a cell as a test expects it.
type aggValue struct {
	kind                uint64
	count               uint64
	sum, min, max       float64 // int cells: converted
	recordTable, number int64
}

func (v aggValue) String() string {
	return fmt.Sprintf("{kind %d count %d sum %g min %g max %g}", v.kind, v.count, v.sum, v.min, v.max)
}

// readAggs reads the chunk files and the cells' records in dir/logs and
// joins them as the loader and the views do: the cells made, by table
// and group (the group's fields rendered with %v), the cells of one
// group combined (counts and sums added, the least minimum and the
// greatest maximum). It also checks that every cell has a record, and
// at most one in each table, and every cell record a cell. The records
// of tables tuples are ordinary tuples, whose first field may equal a
// cell's number.
func readAggs(t testing.TB, dir string, tuples ...uint16) map[string]aggValue {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "logs", "*"+logfmt.AggFileSuffix))
	if err != nil {
		t.Fatal(err)
	}
	cells := map[int64]logfmt.AggCell{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		h, err := logfmt.ParseAggChunk(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if h.PID != int64(os.Getpid()) || h.Start != processStart.UnixNano() || h.Process != processTag {
			t.Errorf("%s: header %+v", p, h)
		}
		for i := 0; i < h.Cells; i++ {
			if c := logfmt.ReadAggCell(data, h, i); c.Kind != 0 {
				if _, dup := cells[c.Number]; dup {
					t.Fatalf("cell %d twice", c.Number)
				}
				cells[c.Number] = c
			}
		}
	}
	out := map[string]aggValue{}
	recorded := map[int64]bool{}
	type cellTable struct {
		cell  int64
		table uint16
	}
	seen := map[cellTable]bool{}
	for _, rec := range allRecords(readSegments(t, dir)) {
		if len(rec.fields) == 0 || rec.fields[0].Kind != logfmt.KindInt || slices.Contains(tuples, rec.table) {
			continue
		}
		c, ok := cells[rec.fields[0].Int]
		if !ok {
			continue // another test's record, or no cell's
		}
		if seen[cellTable{c.Number, rec.table}] {
			t.Fatalf("cell %d has two records in table %d", c.Number, rec.table)
		}
		seen[cellTable{c.Number, rec.table}] = true
		recorded[c.Number] = true
		var group []string
		for _, f := range rec.fields[1:] {
			group = append(group, fieldString(f))
		}
		key := fmt.Sprintf("%d%v", rec.table, group)
		v := aggValue{kind: c.Kind, count: c.Count, recordTable: int64(rec.table), number: c.Number}
		if c.Kind == logfmt.AggKindInt {
			v.sum, v.min, v.max = float64(int64(c.Sum)), float64(int64(c.Min)), float64(int64(c.Max))
		} else {
			v.sum, v.min, v.max = math.Float64frombits(c.Sum), math.Float64frombits(c.Min), math.Float64frombits(c.Max)
		}
		if w, ok := out[key]; ok {
			if w.kind != v.kind {
				t.Fatalf("group %s has cells of two kinds", key)
			}
			if v.count == 0 {
				continue // a cell made, never added to: its minimum and maximum are no values
			}
			if w.count > 0 {
				v.min, v.max = math.Min(v.min, w.min), math.Max(v.max, w.max)
			}
			v.count += w.count
			v.sum += w.sum
			v.number = min(v.number, w.number)
		}
		out[key] = v
	}
	for n := range cells {
		if !recorded[n] {
			t.Errorf("cell %d without a record", n)
		}
	}
	return out
}

func fieldString(f logfmt.Field) string {
	switch f.Kind {
	case logfmt.KindInt:
		return fmt.Sprint(f.Int)
	case logfmt.KindString:
		return string(f.Data)
	case logfmt.KindFloat:
		return fmt.Sprint(f.Float)
	case logfmt.KindListBegin:
		return "["
	case logfmt.KindListEnd:
		return "]"
	}
	return fmt.Sprintf("kind%d", f.Kind)
}

func intCell(count uint64, sum, min, max float64) aggValue {
	return aggValue{kind: logfmt.AggKindInt, count: count, sum: sum, min: min, max: max}
}

func floatCell(count uint64, sum, min, max float64) aggValue {
	return aggValue{kind: logfmt.AggKindFloat, count: count, sum: sum, min: min, max: max}
}

// values drops what the test does not fix: the cells' numbers.
func values(m map[string]aggValue) map[string]aggValue {
	out := map[string]aggValue{}
	for k, v := range m {
		v.recordTable, v.number = 0, 0
		out[k] = v
	}
	return out
}

func TestAggIntFloat(t *testing.T) {
	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			dir := useTestAgg(t, mapped)
			var g Rec
			add := func(table uint16, key string, list bool, v int64) {
				g.Str(key)
				if list {
					g.ListBegin()
					g.Int(v % 2)
				} // left open: closed by AggInt
				AggInt(table, &g, v)
				if len(g.Fields()) != 0 {
					t.Fatal("AggInt did not reset the group")
				}
			}
			for _, v := range []int64{5, -3, 12} {
				add(7, "a", false, v)
			}
			add(7, "b", false, math.MaxInt64)
			add(7, "c", true, 4)
			add(7, "c", true, 6)
			add(7, "c", true, 3)
			for _, v := range []float64{1.5, -2.25, 8} {
				g.Str("a")
				AggFloat(8, &g, v)
			}
			g.Int(1)
			AggFloat(8, &g, math.Inf(1))
			Emit2(9, 1, 2) // an ordinary tuple among the cells' records
			if mapped {
				// The cells are in the files at once: nothing to flush.
				got := values(readAggs(t, dir, 9))
				if got["7[a]"] != intCell(3, 14, -3, 12) {
					t.Errorf("before Close: %v", got)
				}
			}
			Close()
			got := values(readAggs(t, dir, 9))
			want := map[string]aggValue{
				"7[a]":       intCell(3, 14, -3, 12),
				"7[b]":       intCell(1, math.MaxInt64, math.MaxInt64, math.MaxInt64),
				"7[c [ 0 ]]": intCell(2, 10, 4, 6),
				"7[c [ 1 ]]": intCell(1, 3, 3, 3),
				"8[a]":       floatCell(3, 7.25, -2.25, 8),
				"8[1]":       floatCell(1, math.Inf(1), math.Inf(1), math.Inf(1)),
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("cells\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestAggKinds checks that a table keeps the kind of its first value.
func TestAggKinds(t *testing.T) {
	dir := useTestAgg(t, true)
	var g Rec
	g.Str("x")
	AggInt(3, &g, 2)
	g.Str("x")
	AggFloat(3, &g, 100) // dropped: an existing int cell
	g.Str("y")
	AggFloat(3, &g, 100) // dropped: an int table
	Close()
	want := map[string]aggValue{"3[x]": intCell(1, 2, 2, 2)}
	if got := values(readAggs(t, dir)); !reflect.DeepEqual(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
}

// TestAggConcurrent adds from many goroutines at once, to groups that
// are new when they start: each group gets one cell, and the totals are
// exact.
func TestAggConcurrent(t *testing.T) {
	dir := useTestAgg(t, true)
	const workers, adds, groups = 8, 5000, 5
	var wg sync.WaitGroup
	start := make(chan bool)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			<-start
			var g Rec
			for i := 0; i < adds; i++ {
				v := int64(i - adds/2)
				g.Int(int64(i % groups))
				AggInt(1, &g, v*int64(w+1))
				g.Int(int64(i % groups))
				AggFloat(2, &g, float64(v)) // integers: exact in any order
			}
		}(w)
	}
	close(start)
	wg.Wait()
	Close()
	want := map[string]aggValue{}
	for k := 0; k < groups; k++ {
		var isum, imin, imax, fsum, fmin, fmax float64 = 0, math.Inf(1), math.Inf(-1), 0, math.Inf(1), math.Inf(-1)
		for w := 0; w < workers; w++ {
			for i := k; i < adds; i += groups {
				v := float64(i - adds/2)
				iv := v * float64(w+1)
				isum += iv
				imin, imax = math.Min(imin, iv), math.Max(imax, iv)
				fsum += v
				fmin, fmax = math.Min(fmin, v), math.Max(fmax, v)
			}
		}
		want[fmt.Sprintf("1[%d]", k)] = intCell(workers*adds/groups, isum, imin, imax)
		want[fmt.Sprintf("2[%d]", k)] = floatCell(workers*adds/groups, fsum, fmin, fmax)
	}
	if got := values(readAggs(t, dir)); !reflect.DeepEqual(got, want) {
		t.Errorf("cells\n got %v\nwant %v", got, want)
	}
}

// TestAggChunks makes more cells than a chunk holds, from two tables:
// the cells are numbered densely across the chunk files.
func TestAggChunks(t *testing.T) {
	dir := useTestAgg(t, true)
	const n = logfmt.AggCellsPerChunk + 100
	var g Rec
	for round := 0; round < 2; round++ {
		for i := 0; i < n; i++ {
			g.Int(int64(i))
			AggInt(uint16(1+i%2), &g, int64(i))
		}
	}
	Close()
	paths, _ := filepath.Glob(filepath.Join(dir, "logs", "*"+logfmt.AggFileSuffix))
	if len(paths) != 2 {
		t.Errorf("%d chunk files, want 2", len(paths))
	}
	got := readAggs(t, dir)
	if len(got) != n {
		t.Fatalf("%d cells, want %d", len(got), n)
	}
	var numbers []int
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("%d[%d]", 1+i%2, i)
		v := got[key]
		numbers = append(numbers, int(v.number))
		v.recordTable, v.number = 0, 0
		if want := intCell(2, 2*float64(i), float64(i), float64(i)); v != want {
			t.Fatalf("%s: %v, want %v", key, v, want)
		}
	}
	// Chunk numbers go on across Close: the first cell is the first of
	// a chunk.
	sort.Ints(numbers)
	for i, num := range numbers {
		if num != numbers[0]+i || numbers[0]%logfmt.AggCellsPerChunk != 0 {
			t.Fatalf("cell numbers %v..., want dense from a chunk's first", numbers[:i+1])
		}
	}
}

// TestAggHeld checks that held additions are applied by Release only, in
// order with the held tuples, and that a dropped Held applies nothing.
func TestAggHeld(t *testing.T) {
	dir := useTestAgg(t, true)
	var kept, dropped Held
	var g Rec
	kept.Emit2(4, 1, 2)
	g.Str("new")
	kept.AggInt(5, &g, 10)
	if len(g.Fields()) != 0 {
		t.Fatal("Held.AggInt did not reset the group")
	}
	g.Str("new")
	kept.AggInt(5, &g, -1)
	kept.Emit2(4, 3, 4)
	g.Str("dropped")
	dropped.AggInt(5, &g, 99)
	g.Str("f")
	dropped.AggFloat(6, &g, 1)
	g.Str("f")
	kept.AggFloat(6, &g, 2.5)
	if got := readAggs(t, dir, 4); len(got) != 0 {
		t.Fatalf("before Release: %v", got)
	}
	kept.Release()
	kept.Release() // nothing left
	Close()
	want := map[string]aggValue{
		"5[new]": intCell(2, 9, -1, 10),
		"6[f]":   floatCell(1, 2.5, 2.5, 2.5),
	}
	if got := values(readAggs(t, dir, 4)); !reflect.DeepEqual(got, want) {
		t.Errorf("cells\n got %v\nwant %v", got, want)
	}
	// The records in the order of holding: the tuple, the cell of "new",
	// the tuple, the cell of "f".
	var order []string
	for _, r := range allRecords(readSegments(t, dir)) {
		order = append(order, fmt.Sprintf("%d:%s", r.table, fieldString(r.fields[1])))
	}
	if w := []string{"4:2", "5:new", "4:4", "6:f"}; !reflect.DeepEqual(order, w) {
		t.Errorf("records %v, want %v", order, w)
	}
}

// TestAggBroken checks that nothing is made once the log is broken.
func TestAggBroken(t *testing.T) {
	dir := useTestAgg(t, true)
	atomic.StoreInt32(&state, stateBroken)
	var g Rec
	g.Str("x")
	AggInt(1, &g, 1)
	if len(g.Fields()) != 0 {
		t.Fatal("AggInt did not reset the group")
	}
	var h Held
	g.Str("y")
	h.AggInt(1, &g, 1)
	h.Release()
	atomic.StoreInt32(&state, stateOn)
	if paths, _ := filepath.Glob(filepath.Join(dir, "logs", "*")); len(paths) != 0 {
		t.Errorf("files %v", paths)
	}
}

// TestAggNoAllocation checks that adding to an existing cell allocates
// nothing, the group's fields included.
func TestAggNoAllocation(t *testing.T) {
	useTestAgg(t, true)
	var g Rec
	for i := 0; i < 100; i++ { // make the cells and let read catch up
		g.Str("key-17")
		g.Int(3)
		AggInt(1, &g, 1)
		g.Str("key-17")
		AggFloat(2, &g, 1)
	}
	if n := testing.AllocsPerRun(1000, func() {
		g.Str("key-17")
		g.Int(3)
		AggInt(1, &g, 5)
		g.Str("key-17")
		AggFloat(2, &g, 0.5)
	}); n != 0 {
		t.Errorf("%v allocations per add", n)
	}
}

// BenchmarkAggInt adds to an existing cell: the group's fields are built
// as generated code builds them (one int of 8 values). The values cycle
// through 0..1023, so that min and max settle (each add then only reads
// them), as they do for most measured values.
func BenchmarkAggInt(b *testing.B) {
	useTestAgg(b, true)
	var g Rec
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		g.Int(int64(i & 7))
		AggInt(benchTable, &g, int64(i&1023))
	}
}

// BenchmarkAggNewCell adds to a new group each time: the cell is made
// (its record emitted, the maps updated). Every 1<<16 cells the cells
// are dropped and their files removed, to bound the memory.
func BenchmarkAggNewCell(b *testing.B) {
	dir := useTestAgg(b, true)
	var g Rec
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if i%(1<<16) == 0 && i > 0 {
			b.StopTimer()
			dropAggs()
			paths, _ := filepath.Glob(filepath.Join(dir, "logs", "*"+logfmt.AggFileSuffix))
			for _, p := range paths {
				os.Remove(p)
			}
			b.StartTimer()
		}
		g.Int(int64(i))
		AggInt(benchTable, &g, int64(i))
	}
}

// BenchmarkAggIntParallel adds from a goroutine per core to the same
// eight cells.
func BenchmarkAggIntParallel(b *testing.B) {
	useTestAgg(b, true)
	b.RunParallel(func(pb *testing.PB) {
		var g Rec
		for i := 0; pb.Next(); i++ {
			g.Int(int64(i & 7))
			AggInt(benchTable, &g, int64(i&1023))
		}
	})
}

// BenchmarkAggVsEmit2 measures AggInt to an existing cell and Emit2 in
// one run, alternating chunks of each, and reports AggInt's cost as a
// multiple of Emit2's.
func BenchmarkAggVsEmit2(b *testing.B) {
	useTestAgg(b, true)
	var g Rec
	for k := 0; k < 8; k++ {
		g.Int(int64(k))
		AggInt(benchTable, &g, 0)
	}
	var agg, emit time.Duration
	for done := 0; done < b.N; done += chunk {
		k := chunk
		if b.N-done < k {
			k = b.N - done
		}
		t0 := time.Now()
		for i := 0; i < k; i++ {
			g.Int(int64(i & 7))
			AggInt(benchTable, &g, int64(i&1023))
		}
		t1 := time.Now()
		for i := 0; i < k; i++ {
			Emit2(benchTable+1, int64(i&7), int64(i&1023))
		}
		agg += t1.Sub(t0)
		emit += time.Since(t1)
	}
	b.ReportMetric(float64(agg.Nanoseconds())/float64(b.N), "agg-ns/op")
	b.ReportMetric(float64(emit.Nanoseconds())/float64(b.N), "emit2-ns/op")
	b.ReportMetric(float64(agg)/float64(emit), "x-emit2")
}

// TestCellCount counts with sites' Cells from several goroutines, in
// mapped and in-memory chunks, while AggInt adds 0 to the same group
// (a count's addition at a site of the general path): every addition is
// counted once, in one cell per group, whose sum, minimum and maximum
// are those of additions of 0. After Close the Cells count in new cells.
func TestCellCount(t *testing.T) {
	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			dir := useTestAgg(t, mapped)
			const workers, adds = 8, 5000
			group := func(name string) func(r *Rec) { return func(r *Rec) { r.Str(name) } }
			a, b, a2 := NewCell(group("a"), 1), NewCell(group("b"), 1), NewCell(group("a"), 1)
			var wg sync.WaitGroup
			start := make(chan bool)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					<-start
					var g Rec
					for i := 0; i < adds; i++ {
						switch w % 3 {
						case 0:
							a.Count()
						case 1:
							a2.Count()
						default:
							g.Str("a")
							AggInt(1, &g, 0)
						}
						b.Count()
					}
				}(w)
			}
			close(start)
			wg.Wait()
			Flush()
			want := map[string]aggValue{
				"1[a]": intCell(workers*adds, 0, 0, 0),
				"1[b]": intCell(workers*adds, 0, 0, 0),
			}
			if got := values(readAggs(t, dir)); !reflect.DeepEqual(got, want) {
				t.Errorf("cells\n got %v\nwant %v", got, want)
			}

			// Close makes the Cells again, in new chunk files with new
			// records; counting goes on there.
			aggMu.Lock()
			old := (*aggSet)(atomic.LoadPointer(&aggCur)).chunks
			aggMu.Unlock()
			std.close()
			removeLogs(t, dir)
			closeAggs()
			for _, ch := range old {
				if ch.file == nil {
					unmapFile(ch.data)
				}
			}
			a.Count()
			a2.Count()
			Flush()
			want = map[string]aggValue{"1[a]": intCell(2, 0, 0, 0), "1[b]": intCell(0, 0, 0, 0)}
			if got := values(readAggs(t, dir)); !reflect.DeepEqual(got, want) {
				t.Errorf("after Close, cells\n got %v\nwant %v", got, want)
			}
		})
	}
}

// TestCellOff checks that Count adds nothing while recording is off, and
// that a Cell made with the log broken counts nothing and writes no file.
func TestCellOff(t *testing.T) {
	dir := useTestAgg(t, true)
	c := NewCell(func(r *Rec) { r.Int(7) }, 1)
	End()
	c.Count()
	Begin()
	c.Count()
	Flush()
	if got, want := values(readAggs(t, dir)), map[string]aggValue{"1[7]": intCell(1, 0, 0, 0)}; !reflect.DeepEqual(got, want) {
		t.Errorf("cells\n got %v\nwant %v", got, want)
	}
	dropAggs()
	std.close()
	removeLogs(t, dir)
	atomic.StoreInt32(&state, stateBroken)
	d := NewCell(func(r *Rec) { r.Int(8) }, 1)
	d.Count()
	atomic.StoreInt32(&state, stateOn)
	if paths, _ := filepath.Glob(filepath.Join(dir, "logs", "*")); len(paths) != 0 {
		t.Errorf("files %v", paths)
	}
}

// TestCellStateChanges checks Count while recording is switched off and
// on by other goroutines (the race detector's part) and that, once it
// is on again, every execution counts in the cell and none while off.
func TestCellStateChanges(t *testing.T) {
	dir := useTestAgg(t, true)
	c := NewCell(func(r *Rec) { r.Int(9) }, 1)
	const workers, adds = 4, 20000
	var wg sync.WaitGroup
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				End()
				Begin()
			}
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < adds; i++ {
				c.Count()
			}
		}()
	}
	wg.Wait()
	close(done)
	Flush()
	toggled := values(readAggs(t, dir))["1[9]"].count
	if toggled > workers*adds {
		t.Fatalf("%d counted of %d executions", toggled, workers*adds)
	}
	End()
	c.Count()
	Begin()
	for i := 0; i < adds; i++ {
		c.Count()
	}
	Flush()
	if got := values(readAggs(t, dir))["1[9]"].count; got != toggled+adds {
		t.Errorf("counted %d after %d, want %d more", got, toggled, adds)
	}
}

// TestCellNoAllocation checks that Count allocates nothing.
func TestCellNoAllocation(t *testing.T) {
	useTestAgg(t, true)
	c := NewCell(func(r *Rec) { r.Str("f") }, 1)
	if n := testing.AllocsPerRun(1000, c.Count); n != 0 {
		t.Errorf("%v allocations per Count", n)
	}
}

// BenchmarkCellCount is a site's count of an execution in its Cell.
func BenchmarkCellCount(b *testing.B) {
	useTestAgg(b, true)
	c := NewCell(func(r *Rec) { r.Str("example.com/m.F") }, benchTable)
	for i := 0; i < b.N; i++ {
		c.Count()
	}
}

// BenchmarkCellAdd is an allocation site's addition to its Cell: to
// its P's cell, pinned (under -race: the shared cell's atomic adds).
func BenchmarkCellAdd(b *testing.B) {
	useTestAgg(b, true)
	c := NewCell(func(r *Rec) { r.Str("example.com/m/app") }, benchTable, benchTable+1)
	for i := 0; i < b.N; i++ {
		c.Add(16)
	}
}

// removeLogs removes the files of dir/logs.
func removeLogs(t testing.TB, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
}

var benchWord uint64

// BenchmarkAtomicAddGlobal is the floor of BenchmarkCellCount: an atomic
// add to a package-level word, as -covermode=atomic's counters.
func BenchmarkAtomicAddGlobal(b *testing.B) {
	for i := 0; i < b.N; i++ {
		atomic.AddUint64(&benchWord, 1)
	}
}

// TestCellAdd: Add counts a value and adds it to the Cell's sum, from
// several goroutines on several Ps, while GOMAXPROCS grows (new Ps
// take their first additions in the shared cell, then have cells of
// their own) and AggInt adds to the same group; one Cell serves two
// tables, each of which reads every addition. Without the race detector
// the Ps had cells of their own. A Cell's cells keep no minimum or
// maximum (0: counts and sums read none).
func TestCellAdd(t *testing.T) {
	for _, mapped := range []bool{true, false} {
		t.Run(fmt.Sprintf("mapped=%v", mapped), func(t *testing.T) {
			dir := useTestAgg(t, mapped)
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			c := NewCell(func(r *Rec) { r.Str("acc") }, 2, 3)
			const workers, adds = 8, 3000
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var g Rec
					for i := 0; i < adds; i++ {
						c.Add(64)
						if i%100 == 0 {
							runtime.Gosched()
						}
						g.Str("acc")
						AggInt(2, &g, 16)
					}
				}()
			}
			for p := 2; p <= 4; p++ {
				runtime.Gosched()
				runtime.GOMAXPROCS(p)
			}
			wg.Wait()
			Flush()
			got := values(readAggs(t, dir))
			if want := intCell(2*workers*adds, workers*adds*(64+16), 0, 16); got["2[acc]"] != want {
				t.Errorf("table 2: %v, want %v", got["2[acc]"], want)
			}
			if want := intCell(workers*adds, workers*adds*64, 0, 0); got["3[acc]"] != want {
				t.Errorf("table 3: %v, want %v", got["3[acc]"], want)
			}
			if ps := (*cellsPerP)(atomic.LoadPointer(&c.perP)); !raceEnabled && (ps == nil || len(ps.cells) == 0) {
				t.Errorf("no P has a cell of its own")
			}
		})
	}
}
