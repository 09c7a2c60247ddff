package load

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"pmm.dev/pmm/rt/logfmt"
)

// TestReadCounters sums the counters files of two processes: entries
// checked, and executions open (begun minus ended, as the runtime's
// wrapping additions leave them), by site; a site whose executions all
// ended is not listed.
func TestReadCounters(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, checked, open []int64) {
		sites := len(checked) - 1
		data := make([]byte, logfmt.CounterHeaderSize+2*logfmt.CounterArraySize(sites)+4096) // page padding after
		logfmt.PutCounterHeader(data, sites)
		for i, n := range append(checked, open...) {
			binary.LittleEndian.PutUint64(data[logfmt.CounterHeaderSize+8*i:], uint64(n))
		}
		if err := os.WriteFile(filepath.Join(dir, name+logfmt.CounterFileSuffix), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a", []int64{0, 5, 0, 7}, []int64{0, 2, 0, 0})
	write("b", []int64{0, 1, 3, 0}, []int64{0, 1, 3, 0})
	c, err := ReadCounters(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int]uint64{1: 6, 2: 3, 3: 7}; !reflect.DeepEqual(c.Checked, want) {
		t.Errorf("checked %v, want %v", c.Checked, want)
	}
	if want := map[int]int64{1: 3, 2: 3}; !reflect.DeepEqual(c.Unended, want) {
		t.Errorf("open %v, want %v", c.Unended, want)
	}
}
