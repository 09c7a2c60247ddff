package load

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"sync"
	"testing"

	"pmm.dev/pmm/rt/pmmrt"
)

// liveRows are the cells read, in wantCells' form (the tuple table's
// records are not asked for), sorted by group.
func liveRows(t *testing.T, r *CellReader) (lat, frac [][]string) {
	t.Helper()
	cells, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		switch c.Table {
		case 1:
			lat = append(lat, []string{"text:" + c.Group[0].(string), fmtInt(c.Group[1].(int64)), fmtInt(int64(c.Count)),
				fmtInt(int64(c.Sum)), fmtInt(int64(c.Min)), fmtInt(int64(c.Max))})
		case 2:
			f := func(bits uint64) string { return fmt.Sprintf("real:%g", math.Float64frombits(bits)) }
			frac = append(frac, []string{fmtInt(c.Group[0].(int64)), fmtInt(int64(c.Count)), f(c.Sum), f(c.Min), f(c.Max)})
		default:
			t.Errorf("a cell of table %d, not asked for", c.Table)
		}
	}
	for _, rows := range [][][]string{lat, frac} {
		sort.Slice(rows, func(i, j int) bool { return fmt.Sprint(rows[i]) < fmt.Sprint(rows[j]) })
	}
	return lat, frac
}

// recordLive starts a log of this process in a new directory, returned,
// and closes it when tb ends.
func recordLive(tb testing.TB) string {
	pmmrt.Close()
	dir := tb.TempDir()
	os.Setenv("PMM_DIR", dir)
	tb.Cleanup(func() {
		pmmrt.Close()
		os.Unsetenv("PMM_DIR")
	})
	return dir
}

// TestCellReaderLive reads the cells of this process while it records
// them, before and after more additions, as pmm export does.
func TestCellReaderLive(t *testing.T) {
	dir := recordLive(t)
	r := NewCellReader(filepath.Join(dir, "logs"), []uint16{1, 2})
	if lat, frac := liveRows(t, r); lat != nil || frac != nil {
		t.Errorf("cells before any was made: %v %v", lat, frac)
	}

	addCells(1000)
	lat, frac := wantCells(1000)
	if got, gotFrac := liveRows(t, r); !reflect.DeepEqual(got, lat) || !reflect.DeepEqual(gotFrac, frac) {
		t.Errorf("int cells\n got %q\nwant %q\nfloat cells\n got %q\nwant %q", got, lat, gotFrac, frac)
	}
	// More of the same: counts and sums double, minima and maxima stay.
	addCells(1000)
	for _, row := range lat {
		for _, i := range []int{2, 3} {
			var n int64
			fmt.Sscanf(row[i], "int:%d", &n)
			row[i] = fmtInt(2 * n)
		}
	}
	for _, row := range frac {
		var n int64
		var s float64
		fmt.Sscanf(row[1], "int:%d", &n)
		fmt.Sscanf(row[2], "real:%g", &s)
		row[1], row[2] = fmtInt(2*n), fmt.Sprintf("real:%g", 2*s)
	}
	if got, gotFrac := liveRows(t, r); !reflect.DeepEqual(got, lat) || !reflect.DeepEqual(gotFrac, frac) {
		t.Errorf("after more additions: int cells\n got %q\nwant %q\nfloat cells\n got %q\nwant %q", got, lat, gotFrac, frac)
	}
}

// BenchmarkCellReaderRead is the cost of one read of a live log
// directory (what pmm export does once per interval): the open segment
// re-read for new cells' records, then the chunk file.
//
//	go test ./rt/load -run '^$' -bench CellReaderRead -count 5
func BenchmarkCellReaderRead(b *testing.B) {
	dir := recordLive(b)
	var g pmmrt.Rec
	for i := 0; i < 1000; i++ { // 1000 groups
		g.Int(int64(i))
		pmmrt.AggInt(2, &g, int64(i))
	}
	r := NewCellReader(filepath.Join(dir, "logs"), []uint16{2})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cells, err := r.Read()
		if err != nil || len(cells) != 1000 {
			b.Fatalf("%d cells, %v", len(cells), err)
		}
	}
}

// TestCellReaderSharedCells reads the cells of a site's Cell that serves
// two tables (a count and a sum of the same additions), added to by
// goroutines on two Ps in a child process (a Cell lives as long as its
// process: made again at every Close): each table reads every cell of
// the group, the Ps' own and the shared one, and their counts and sums
// add up to the additions made.
func TestCellReaderSharedCells(t *testing.T) {
	const workers, adds = 4, 2000
	if dir := os.Getenv("PMM_TEST_SHARED_CELLS"); dir != "" {
		os.Setenv("PMM_DIR", dir)
		runtime.GOMAXPROCS(2)
		c := pmmrt.NewCell(func(r *pmmrt.Rec) { r.Str("acc") }, 5, 6)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < adds; i++ {
					c.Add(16)
					if i%100 == 0 {
						runtime.Gosched()
					}
				}
			}()
		}
		wg.Wait()
		pmmrt.Close()
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestCellReaderSharedCells$")
	cmd.Env = append(os.Environ(), "PMM_TEST_SHARED_CELLS="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cells, err := NewCellReader(filepath.Join(dir, "logs"), []uint16{5, 6}).Read()
	if err != nil {
		t.Fatal(err)
	}
	type total struct{ cells, count, sum int64 }
	got := map[uint16]total{}
	for _, cell := range cells {
		if len(cell.Group) != 1 || cell.Group[0] != "acc" {
			t.Errorf("table %d: group %v", cell.Table, cell.Group)
		}
		tt := got[cell.Table]
		tt.cells++
		tt.count += int64(cell.Count)
		tt.sum += int64(cell.Sum)
		got[cell.Table] = tt
	}
	for _, table := range []uint16{5, 6} {
		if tt := got[table]; tt.count != workers*adds || tt.sum != 16*workers*adds || tt.cells != got[5].cells {
			t.Errorf("table %d: %d cells, count %d, sum %d; want count %d, sum %d, the cells of table 5 (%d)",
				table, tt.cells, tt.count, tt.sum, workers*adds, 16*workers*adds, got[5].cells)
		}
	}
}
