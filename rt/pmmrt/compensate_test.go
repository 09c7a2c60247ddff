package pmmrt

import (
	"fmt"
	"sync"
	"testing"
)

// TestTimedCompensation: an execution's compensation counts the timed
// executions that ended inside it in its goroutine, nested ones included,
// and none of another goroutine's, at the calibrated cost each.
func TestTimedCompensation(t *testing.T) {
	k := TimedCost()
	if k <= 0 || k > 100000 {
		t.Fatalf("calibrated cost of a timed execution: %d ns", k)
	}
	outer := TimedBegin()
	TimedEnded()
	inner := TimedBegin()
	TimedEnded()
	TimedEnded()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		n := TimedBegin()
		for i := 0; i < 5; i++ {
			TimedEnded()
		}
		if got := n.Compensate(1e9); got != 5*k {
			t.Errorf("another goroutine's compensation: %d, want %d", got, 5*k)
		}
	}()
	wg.Wait()
	// The inner execution counts itself, inside the outer.
	if got := inner.CompensateEnded(1e9); got != 2*k {
		t.Errorf("inner compensation: %d, want %d (2 nested)", got, 2*k)
	}
	if got := outer.Compensate(1e9); got != 4*k {
		t.Errorf("outer compensation: %d, want %d (4 nested)", got, 4*k)
	}
	// With no TimedBegin active, an execution that ends counts for
	// nothing, and one that begins after it has nothing to subtract.
	TimedEnded()
	none := TimedBegin()
	if got := none.Compensate(1e9); got != 0 {
		t.Errorf("compensation with nothing inside: %d", got)
	}
	// Never more than the duration itself.
	n := TimedBegin()
	TimedEnded()
	TimedEnded()
	if got := n.Compensate(k); got != k {
		t.Errorf("compensation of a duration of %d ns with 2 inside: %d, want %d", k, got, k)
	}
}

// BenchmarkTimedCompensation measures what compensation adds to the
// sites (docs/RUNTIME.md, "Durations with timed executions inside"):
// begin-compensate, a compensated site's TimedBegin and Compensate, and
// ended, a nested site's TimedEnded; and calibration's figure, the cost
// subtracted for each nested timed execution.
func BenchmarkTimedCompensation(b *testing.B) {
	b.Run("begin-compensate", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			tc := TimedBegin()
			tc.Compensate(1000)
		}
	})
	b.Run("ended", func(b *testing.B) {
		tc := TimedBegin()
		for i := 0; i < b.N; i++ {
			TimedEnded()
		}
		tc.Compensate(1)
	})
	b.Run("calibrated", func(b *testing.B) {
		var c int64
		for i := 0; i < b.N; i++ {
			c = calibrateTimed()
		}
		b.ReportMetric(float64(c), "cost-ns")
	})
}

// TestCompensateEndedConcurrent: recursive compensated executions in
// several goroutines at once, as a recursive timed function runs; under
// the race detector (whose store hands released entries to other
// goroutines) an execution that counted itself after letting its entry
// go was reported as a race, and could count for another goroutine.
func TestCompensateEndedConcurrent(t *testing.T) {
	k := TimedCost()
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				outer := TimedBegin()
				inner := TimedBegin()
				inner.CompensateEnded(1e9) // nothing inside: 0
				if got := outer.CompensateEnded(1e9); got != k {
					errs <- fmt.Sprintf("an outer execution with one inside subtracted %d, want %d", got, k)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
