package load

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"pmm.dev/pmm/rt/pmmrt"
)

const benchTuples = 1 << 20

// BenchmarkLoad loads logs written through pmmrt in its setup: a table
// of three integers (an event id, a goroutine, a duration: Emit3), and a
// table of mixed fields (an id, a string, a list of parameters: Emit).
func BenchmarkLoad(b *testing.B) {
	b.Run("int3", func(b *testing.B) {
		benchmarkLoad(b, []Table{{ID: 1, Name: "durations", Columns: []Column{{"id", "INTEGER", true}, {"goroutine", "INTEGER", true}, {"duration", "INTEGER", false}}}},
			func(i int) { pmmrt.Emit3(1, int64(pmmrt.NextID()), 1, int64(i)) })
	})
	b.Run("mixed", func(b *testing.B) {
		var r pmmrt.Rec
		benchmarkLoad(b, []Table{{ID: 2, Name: "calls", Columns: []Column{{"id", "INTEGER", true}, {"key", "TEXT", false}, {"args", "TEXT", false}}}},
			func(i int) {
				r.Int(int64(pmmrt.NextID()))
				r.Str("key-17")
				r.ListBegin()
				r.Int(int64(i % 100))
				r.Str("x")
				r.ListEnd()
				pmmrt.Emit(2, &r)
			})
	})
}

func benchmarkLoad(b *testing.B, tables []Table, emit func(i int)) {
	template := record(b, func() {
		for i := 0; i < benchTuples; i++ {
			emit(i)
		}
	})
	b.ResetTimer()
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		copyDir(b, filepath.Join(template, "logs"), filepath.Join(dir, "logs"))
		b.StartTimer()
		start := time.Now()
		stats, err := Load(filepath.Join(dir, "pmm.db"), filepath.Join(dir, "logs"), tables, Run{})
		elapsed += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if n := stats.Tuples[tables[0].Name]; n != benchTuples {
			b.Fatalf("%d tuples loaded, want %d", n, benchTuples)
		}
	}
	b.ReportMetric(float64(b.N*benchTuples)/elapsed.Seconds(), "tuples/s")
}

func copyDir(b *testing.B, from, to string) {
	if err := os.MkdirAll(to, 0755); err != nil {
		b.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(from, "*"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, filepath.Base(p)), data, 0644); err != nil {
			b.Fatal(err)
		}
	}
}
