package main

import (
	"fmt"
	"os"
	"os/exec"
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
// recoverRuns does (claimRun, removeAbandoned): it must never get one
// (it would take a live run for one whose pmm died, and load it empty),
// and newRunDir must never fail (it did when removeAbandoned removed a
// directory it had made and not locked yet).
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
				path := filepath.Join(runsDir(root), ent.Name())
				if ent.Name()[0] == '.' {
					removeAbandoned(path)
					continue
				}
				if unlock, ok := claimRun(path); ok {
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

// TestRemoveAbandoned: a directory newRunDir began is removed once the
// process that made it is gone, and only then.
func TestRemoveAbandoned(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no advisory locks here: lockDir always succeeds")
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, c := range []struct {
		pid  int
		kept bool
	}{{os.Getpid(), true}, {gone.Process.Pid, false}} {
		for _, suffix := range []string{"", ".removed"} {
			path := filepath.Join(runsDir(root), fmt.Sprintf(".1-%d%s", c.pid, suffix))
			if err := os.MkdirAll(filepath.Join(path, "logs"), 0o755); err != nil {
				t.Fatal(err)
			}
			removeAbandoned(path)
			if _, err := os.Stat(path); (err == nil) != c.kept {
				t.Errorf("%s: kept %v, want %v (pid %d alive: %v)", path, err == nil, c.kept, c.pid, c.kept)
			}
		}
	}
}
