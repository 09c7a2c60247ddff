package pmmrt

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"pmm.dev/pmm/internal/tmpfs"

	"pmm.dev/pmm/rt/logfmt"
)

// TestDiskFull records more than a small tmpfs holds: without reserving
// each segment's space before mapping it, the stores into the pages the
// filesystem cannot back kill the test with SIGBUS. Recording must stop
// instead, once, leaving a stop file that says the disk was full, and what
// was recorded before must be whole: the records 0, 1, ..., k-1.
func TestDiskFull(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "full")
	tmpfs.Mount(t, dir, "256k")
	useTestLog(t, true, 64<<10, 64<<10)
	std.mu.Lock()
	std.dir = dir
	std.mu.Unlock()
	stopOnce = sync.Once{}
	const n = 50000 // 24 bytes each: 1.2 MB
	for i := 0; i < n; i++ {
		if Enabled() {
			Emit2(7, int64(i), 1)
		}
	}
	if Enabled() {
		t.Fatal("recording still enabled after the disk filled up")
	}
	std.close()
	recs := allRecords(readSegments(t, dir))
	if len(recs) == 0 || len(recs) >= n {
		t.Fatalf("%d records kept of %d, want some but not all", len(recs), n)
	}
	for i, r := range recs {
		if r.table != 7 || len(r.fields) != 2 || r.fields[0].Int != int64(i) {
			t.Fatalf("record %d: %+v, want table 7, fields %d, 1", i, r, i)
		}
	}
	stops, _ := filepath.Glob(filepath.Join(dir, "logs", "*"+logfmt.StopFileSuffix))
	if len(stops) != 1 {
		t.Fatalf("stop files: %v, want one", stops)
	}
	if content, err := os.ReadFile(stops[0]); err != nil || logfmt.StopFileReason(content) != logfmt.StopReasonDiskFull {
		t.Errorf("stop file: %q, %v; want %q", content, err, logfmt.StopReasonDiskFull)
	}
	t.Logf("%d of %d records kept", len(recs), n)
}
