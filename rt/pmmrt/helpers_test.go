package pmmrt

import (
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"testing"

	"pmm.dev/pmm/rt/logfmt"
)

// useTestLog points the process's log at a new temporary directory with
// the given segment sizes and mode, and restores it after the test.
func useTestLog(t testing.TB, mapped bool, first, last int) string {
	t.Helper()
	std.close()
	dir := t.TempDir()
	std.mu.Lock()
	std.dir, std.mapped, std.firstSize, std.lastSize = dir, mapped, first, last
	std.mu.Unlock()
	atomic.StoreInt32(&state, stateOn)
	t.Cleanup(func() {
		std.close()
		std.mu.Lock()
		std.dir, std.mapped, std.firstSize, std.lastSize = "", useMmap, firstSegmentSize, lastSegmentSize
		std.mu.Unlock()
		atomic.StoreInt32(&state, stateOn)
	})
	return dir
}

// decoded is a record read back from the log, its fields rendered as
// Fields.
type decoded struct {
	table  uint16
	fields []logfmt.Field
}

type segmentFile struct {
	header logfmt.SegmentHeader
	torn   int
	recs   []decoded
}

// readSegments reads and decodes every segment file in dir/logs, in the
// order of their sequence numbers.
func readSegments(t testing.TB, dir string) []segmentFile {
	t.Helper()
	// The spare segment is prepared in the background: its file exists
	// before its header is written (the loader skips such a file; a test
	// waits for it).
	std.mu.Lock()
	for std.preparing {
		std.ready.Wait()
	}
	std.mu.Unlock()
	paths, err := filepath.Glob(filepath.Join(dir, "logs", "*.pmmlog"))
	if err != nil {
		t.Fatal(err)
	}
	var out []segmentFile
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decodeSegment(t, data))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].header.Seq < out[j].header.Seq })
	return out
}

func decodeSegment(t testing.TB, data []byte) segmentFile {
	t.Helper()
	h, err := logfmt.ParseSegment(data)
	if err != nil {
		t.Fatal(err)
	}
	sc := logfmt.NewScanner(data, h)
	sf := segmentFile{header: h}
	for sc.Next() {
		r := sc.Record()
		d := decoded{table: r.Table}
		for {
			var f logfmt.Field
			ok, err := r.NextField(&f)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			if f.Data != nil {
				f.Data = append([]byte{}, f.Data...)
			}
			d.fields = append(d.fields, f)
		}
		sf.recs = append(sf.recs, d)
	}
	if sc.Corrupt {
		t.Fatalf("segment %d: corrupt", h.Seq)
	}
	sf.torn = sc.Torn
	return sf
}

func allRecords(segs []segmentFile) []decoded {
	var all []decoded
	for _, s := range segs {
		all = append(all, s.recs...)
	}
	return all
}
