// Package other is a second principal of cmd/pmm's BenchmarkAccounts,
// accounted in its accounts-read questions only: that it may call mem,
// though the benchmark never runs it, is what makes mem's account one
// to read at run time rather than app's, known from the call graph.
package other

import "example.com/accountbench/mem"

// Rare has mem allocate.
func Rare() { mem.Alloc(0) }
