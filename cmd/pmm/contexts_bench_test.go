package main

import (
	"testing"
)

// BenchmarkCallingContexts is the price of calling contexts (seed 003):
// testdata/ctxbench's Run (9 executions in a call tree, 5 allocations at
// its leaves) instrumented for three questions, each built alone, and
// built plainly, in interleaved runs of one benchmark run: medians over
// 7 rounds of
//
//   - x-calls: plain call counting (the executions of each function,
//     kept in cells) ÷ plain;
//
//   - x-contexts: the executions per calling context (JP's method call
//     tree) ÷ plain;
//
//   - x-contexts-over-calls: the two instrumented runs, contexts ÷ calls:
//     what the calling context costs over counting calls;
//
//   - x-memory-over-contexts: the executions and the allocations by type
//     per calling context ÷ the executions per calling context: memory
//     profiling on top of call profiling, JP's +4 %;
//
//   - ns-plain, ns-calls, ns-contexts, ns-memory: ns per Run.
//
//     go test ./cmd/pmm -run '^$' -bench CallingContexts -benchtime 1x
func BenchmarkCallingContexts(b *testing.B) {
	questions := []string{"calls", "contexts", "memory"}
	bins, dirs := map[string]string{}, map[string]string{}
	for i, q := range questions {
		dir := copyModule(b, "../../testdata/ctxbench")
		if code, out, errOut := runPMM(b, dir, "instrument", "./...", q+".pmm"); code != exitOK {
			b.Fatalf("pmm instrument %s.pmm: %s%s", q, out, errOut)
		}
		plain, inst := compileBenchBinaries(b, dir)
		bins[q], dirs[q] = inst, dir
		if i == 0 {
			bins["plain"], dirs["plain"] = plain, dir
		}
	}
	metrics := map[string][]float64{}
	for round := 0; round < 7; round++ {
		ns := map[string]float64{}
		for _, c := range []string{"plain", "calls", "contexts", "memory"} {
			ns[c] = runBenchBinary(b, dirs[c], bins[c], c != "plain", "100000x")["Run"]
			metrics["ns-"+c] = append(metrics["ns-"+c], ns[c])
		}
		metrics["x-calls"] = append(metrics["x-calls"], ns["calls"]/ns["plain"])
		metrics["x-contexts"] = append(metrics["x-contexts"], ns["contexts"]/ns["plain"])
		metrics["x-contexts-over-calls"] = append(metrics["x-contexts-over-calls"], ns["contexts"]/ns["calls"])
		metrics["x-memory-over-contexts"] = append(metrics["x-memory-over-contexts"], ns["memory"]/ns["contexts"])
	}
	for name, xs := range metrics {
		b.ReportMetric(median(xs), name)
	}
}
