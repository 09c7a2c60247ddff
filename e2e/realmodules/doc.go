// Package realmodules checks pmm on real open-source modules fetched
// through the Go module proxy: with a question that instruments every
// function of a module, the module's own test suite still passes (with
// and without -race), and the number of executions pmm records for each
// function equals the count Go's own coverage instrumentation gives for
// the first block of the function's body.
//
// Its benchmarks measure what pmm costs on such modules (issue 12,
// docs/PERFORMANCE.md): their own benchmarks and test suites plain,
// counted, timed and under Go's atomic coverage, run interleaved, and
// pmm instrument against go vet.
//
// The modules are downloaded into the module cache and copied to a
// temporary directory; nothing of theirs is committed. The slow test runs
// only with PMM_REAL_MODULES=1; see docs/EVALUATION-MODULES.md.
package realmodules
