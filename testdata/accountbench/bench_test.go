// Package accountbench is allocation-heavy work for cmd/pmm's
// BenchmarkAccounts: an accounted principal (app) whose every call has
// an agent (mem) allocate twice.
package accountbench

import (
	"testing"

	"example.com/accountbench/app"
)

func BenchmarkWork(b *testing.B) {
	for i := 0; i < b.N; i++ {
		app.Work(i)
	}
}
