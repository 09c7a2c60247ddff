//go:build !linux

package pmmrt

// threadPageFaults is not known here: BenchmarkTimedEvent reports no
// faults.
func threadPageFaults() int64 { return -1 }
