package pmmrt

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"pmm.dev/pmm/rt/logfmt"
)

// TestCounters counts from many goroutines and reads the counters back
// from the file, as the loader does after the process has gone: entries
// checked, and executions that began and did not all end.
func TestCounters(t *testing.T) {
	if atomic.LoadInt32(&countersOK) != 0 {
		t.Skip("the counters of this process were created by another test")
	}
	dir := t.TempDir()
	t.Setenv("PMM_DIR", dir)
	numSites = 3
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				Check(1)
				Check(3)
				Check(3)
				Began(1)
				Began(2)
				Ended(1)
				if i%4 != 0 {
					Ended(2) // a quarter never end
				}
			}
		}()
	}
	wg.Wait()
	Check(4) // beyond the sites: ignored
	Began(4)
	Flush()
	files, _ := filepath.Glob(filepath.Join(dir, "logs", "*"+logfmt.CounterFileSuffix))
	if len(files) != 1 {
		t.Fatalf("counters files %v, want one", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	sites, counters, open, ok := logfmt.ParseCounterHeader(data)
	if !ok || sites != 3 {
		t.Fatalf("header %q", data[:logfmt.CounterHeaderSize])
	}
	word := func(i int) uint64 { return binary.LittleEndian.Uint64(counters[8*i:]) }
	want := map[int]uint64{0: 0, 1: 8000, 2: 0, 3: 16000} // by site
	for i, w := range want {
		if word(i) != w {
			t.Errorf("word %d = %d, want %d", i, word(i), w)
		}
	}
	wantOpen := map[int]uint64{0: 0, 1: 0, 2: 8 * 250, 3: 0}
	for i, w := range wantOpen {
		if n := binary.LittleEndian.Uint64(open[8*i:]); n != w {
			t.Errorf("open at site %d = %d, want %d", i, n, w)
		}
	}
}

// BenchmarkOpenCount is the cost of counting an execution open at a site
// whose answers wait for its end (Began at its begin, Ended at its end),
// beside Check's at the same site: on one goroutine, and on every
// processor at one site (the contended case).
func BenchmarkOpenCount(b *testing.B) {
	if atomic.LoadInt32(&countersOK) == 0 {
		b.Setenv("PMM_DIR", b.TempDir())
		if numSites == 0 {
			numSites = 3
		}
	}
	if counters() == nil {
		b.Fatal("no counters file")
	}
	b.Run("check", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Check(1)
		}
	})
	b.Run("began+ended", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Began(1)
			Ended(1)
		}
	})
	b.Run("began+ended-parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				Began(1)
				Ended(1)
			}
		})
	})
}
