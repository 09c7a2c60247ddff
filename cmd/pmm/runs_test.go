package main

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRunDirLockedWhenNamed: recoverRuns never claims the directory of a
// run that is starting or ending. One goroutine makes and removes run
// directories while another claims every directory of runs/ it sees, as
// recoverRuns does (claimRun): it must never get one (it would take a
// live run for one whose pmm died, and load it empty), and newRunDir
// must never fail.
func TestRunDirLockedWhenNamed(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no advisory locks here: lockDir always succeeds")
	}
	root := t.TempDir()
	if err := os.MkdirAll(runsDir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	var done atomic.Bool
	var taken atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			entries, _ := os.ReadDir(runsDir(root))
			for _, ent := range entries {
				if ent.Name()[0] == '.' {
					continue // recoverRuns only removes those
				}
				if unlock, ok := claimRun(filepath.Join(runsDir(root), ent.Name())); ok {
					taken.Add(1)
					unlock()
				}
			}
		}
	}()
	start := time.Now()
	for i := 0; i < 300; i++ {
		d, err := newRunDir(root, runInfo{Command: "test", Start: start.Add(time.Duration(i))})
		if err != nil {
			t.Error(err)
			continue
		}
		d.remove()
	}
	done.Store(true)
	wg.Wait()
	if n := taken.Load(); n > 0 {
		t.Errorf("another pmm could lock %d run directories that were being made", n)
	}
}
