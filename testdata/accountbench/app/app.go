// Package app is the accounted principal of cmd/pmm's BenchmarkAccounts:
// each of its calls enters its account, and what mem allocates for it
// is charged to it.
package app

import "example.com/accountbench/mem"

// Work has mem allocate twice.
func Work(i int) { mem.Alloc(i) }
