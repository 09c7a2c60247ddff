package realmodules

import (
	"strings"
	"testing"
)

// TestJudge checks how the comparison treats a count that is random per
// process: a coin that both coverage runs tossed the same way, and pmm's
// run the other (go-cmp's diff.(*path).append, 16,244 or 16,317), is
// left out once a later coverage run tosses it differently, and a
// count that differs from every coverage run still fails the check.
func TestJudge(t *testing.T) {
	coin := function{Name: "diff.(*path).append", Body: blockPos{"diff.go", 377, 35}}
	wrong := function{Name: "f", Body: blockPos{"f.go", 1, 10}}
	same := function{Name: "g", Body: blockPos{"f.go", 5, 10}}
	unstable := function{Name: "h", Body: blockPos{"f.go", 9, 10}}
	excluded := function{Name: "e", Body: blockPos{"excluded.go", 1, 10}}
	funcs := []function{coin, wrong, same, unstable, excluded}
	profile := func(coinCount int64) map[blockPos]int64 {
		return map[blockPos]int64{coin.Body: coinCount, wrong.Body: 10, same.Body: 3, unstable.Body: coinCount}
	}
	cov := [2]map[blockPos]int64{profile(16244), profile(16244)}
	cov[1][unstable.Body] = 1

	// The next coverage runs toss the coin as pmm's run did, then not.
	var calls int
	tosses := []int64{16244, 16317, 16244, 16244}
	recheck := func() map[blockPos]int64 {
		calls++
		return profile(tosses[(calls-1)%len(tosses)])
	}
	got := map[string]int64{coin.Name: 16317, wrong.Name: 11, same.Name: 3}
	v := judge(funcs, cov, got, recheck)
	if calls != recheckRuns || v.rechecks != recheckRuns {
		t.Errorf("%d coverage runs after the mismatches (%d said), want %d", calls, v.rechecks, recheckRuns)
	}
	if len(v.rechecked) != 1 || !strings.HasPrefix(v.rechecked[0], coin.Name+": pmm counts 16317 executions, 6 coverage runs [16244 16244 16244 16317 16244 16244]") {
		t.Errorf("left out after the runs: %q, want the coin's function alone", v.rechecked)
	}
	if len(v.mismatches) != 1 || !strings.HasPrefix(v.mismatches[0], wrong.Name+": pmm counts 11 executions, coverage 10 in 6 runs") {
		t.Errorf("mismatches: %q, want f's alone", v.mismatches)
	}
	if v.compared != 2 || v.matched != 1 || v.executed != 2 || v.unstable != 2 || v.uncovered != 1 {
		t.Errorf("compared %d (executed %d), matched %d, unstable %d, uncovered %d; want 2 (2), 1, 2, 1",
			v.compared, v.executed, v.matched, v.unstable, v.uncovered)
	}

	// Without a mismatch, no coverage run more.
	calls = 0
	got[coin.Name], got[wrong.Name] = 16244, 10
	v = judge(funcs, cov, got, recheck)
	if calls != 0 || v.rechecks != 0 || len(v.rechecked) != 0 || len(v.mismatches) != 0 || v.matched != 3 {
		t.Errorf("all equal: %d coverage runs more, %+v", calls, v)
	}
}
