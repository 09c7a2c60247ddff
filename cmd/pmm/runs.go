package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/rt/load"
)

// Every pmm run and pmm test records into a directory of its own,
// .pmm/runs/<start ns>-<pid>, which it holds locked until its logs are
// loaded and removed. So runs made at the same time in one module never
// load each other's logs, and the logs of a run whose pmm was stopped
// (a second Ctrl-C while loading, SIGKILL, a crash) are found by the
// next pmm run and loaded as the run they are, once: the directory's
// name is the run's source in the runs table, and a source loaded
// already is not loaded again (pmm died after the commit, before it
// removed the logs).

// runDir is the directory of one run's logs, locked by this process.
type runDir struct {
	path   string
	name   string
	unlock func()
}

// runInfo is what a run directory says of its run (run.json), so that a
// run recovered by a later pmm keeps its command, times and status.
type runInfo struct {
	Command    string
	GoVersion  string
	Start, End time.Time
	ExitStatus int
	Signal     string
	Finished   bool // the program ended and pmm wrote its status
	// Incomplete are reasons, known once the program ended, why every
	// answer of the run may be incomplete.
	Incomplete []string
}

const runInfoFile = "run.json"

func runsDir(root string) string { return filepath.Join(pmmDir(root), "runs") }

// newRunDir creates and locks the directory of a new run. It makes it
// under a name that begins with a dot, locks it, writes run.json, and
// only then gives it its name: a directory of runs/ is locked from the
// moment it has a name that recoverRuns looks at. (A pmm starting at the
// same moment took a run directory it found unlocked, between its mkdir
// and its lock, for one whose pmm had died, and loaded it empty; its
// own pmm then failed to lock it: TestFaultConcurrentRuns.)
func newRunDir(root string, info runInfo) (*runDir, error) {
	name := strconv.FormatInt(info.Start.UnixNano(), 10) + "-" + strconv.Itoa(os.Getpid())
	making := filepath.Join(runsDir(root), "."+name)
	if err := os.MkdirAll(making, 0o755); err != nil {
		return nil, err
	}
	unlock, ok, err := lockDir(making)
	if err == nil && !ok {
		err = errors.New("another process holds its lock")
	}
	if err != nil {
		os.RemoveAll(making)
		return nil, fmt.Errorf("locking %s: %v", making, err)
	}
	d := &runDir{path: making, name: name, unlock: unlock}
	if err := d.write(info); err != nil {
		d.remove()
		return nil, err
	}
	path := filepath.Join(runsDir(root), name)
	if err := os.Rename(making, path); err != nil {
		d.remove()
		return nil, err
	}
	d.path = path
	return d, nil
}

func (d *runDir) logs() string { return filepath.Join(d.path, "logs") }

// write replaces run.json atomically.
func (d *runDir) write(info runInfo) error {
	data, err := json.MarshalIndent(info, "", "\t")
	if err != nil {
		return err
	}
	tmp := filepath.Join(d.path, runInfoFile+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(d.path, runInfoFile))
}

// claimRun locks the run directory at path for recoverRuns, if no pmm
// holds it and it is still there: a pmm that removed it may have
// released the lock of a file this one opened before the removal.
func claimRun(path string) (unlock func(), ok bool) {
	unlock, ok, err := lockDir(path)
	if err != nil || !ok {
		return nil, false
	}
	if _, err := os.Stat(filepath.Join(path, runInfoFile)); err != nil {
		unlock() // newRunDir writes run.json before it names the directory
		return nil, false
	}
	return unlock, true
}

// remove deletes the directory, then gives up its lock. It first gives
// the directory a name that begins with a dot, which recoverRuns does
// not load: once the lock file is deleted, another pmm could lock a new
// one in the directory and take what is left for a run to recover.
func (d *runDir) remove() {
	if name := filepath.Base(d.path); name[0] != '.' {
		hidden := filepath.Join(filepath.Dir(d.path), "."+name+".removed")
		if os.Rename(d.path, hidden) == nil {
			d.path = hidden
		}
	}
	os.RemoveAll(d.path)
	d.unlock()
}

// removeAbandoned removes a directory of runs/ whose name begins with a
// dot: one newRunDir began and never named (its program never started,
// nothing was recorded), or one remove began to delete, if the process
// that made it is gone. Its lock alone does not say so: newRunDir makes
// the directory before it can lock it, and a pmm that locked and removed
// it in between made that run fail (TestFaultConcurrentRuns did, in
// CI). The process is the one whose pid ends the run's name.
func removeAbandoned(path string) {
	name := strings.TrimSuffix(filepath.Base(path)[1:], ".removed")
	if _, pid, ok := strings.Cut(name, "-"); ok {
		if n, err := strconv.Atoi(pid); err == nil && processAlive(n) {
			return
		}
	}
	if unlock, ok, err := lockDir(path); err == nil && ok {
		os.RemoveAll(path)
		unlock()
	}
}

// load loads the run's logs as the run info describes, once.
// inserted, when not nil, counts the tuples loaded so far.
func (d *runDir) load(p *plan.Project, info runInfo, inserted *atomic.Int64) (*loadStats, error) {
	run := load.Run{Command: info.Command, GoVersion: info.GoVersion, Start: info.Start, End: info.End,
		ExitStatus: info.ExitStatus, Signal: info.Signal, Source: d.name, Inserted: inserted}
	for _, reason := range info.Incomplete {
		for _, q := range p.Questions {
			run.Incomplete = append(run.Incomplete, load.Incomplete{Question: q, Reason: reason})
		}
	}
	stats, err := loadRun(p, d.logs(), run)
	if errors.Is(err, load.ErrLoaded) {
		d.remove()
		return stats, err
	}
	if err != nil {
		return nil, err
	}
	d.remove()
	return stats, nil
}

// recoverRuns loads the logs that earlier runs left behind, each as its
// own run: the directories of runs whose pmm stopped before it loaded
// them (not those of runs still going: they are locked), then logs that
// programs built by hand with the overlay wrote into .pmm/logs.
func recoverRuns(e *env, p *plan.Project) {
	entries, _ := os.ReadDir(runsDir(p.Root))
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, ent := range entries {
		if !ent.IsDir() {
			continue
		}
		path := filepath.Join(runsDir(p.Root), ent.Name())
		if ent.Name()[0] == '.' {
			removeAbandoned(path)
			continue
		}
		unlock, ok := claimRun(path)
		if !ok {
			continue // a run still going, or not ours to touch
		}
		d := &runDir{path: path, name: ent.Name(), unlock: unlock}
		var info runInfo
		if data, err := os.ReadFile(filepath.Join(path, runInfoFile)); err == nil {
			json.Unmarshal(data, &info) //nolint:errcheck // a damaged run.json leaves the defaults
		}
		if !info.Finished {
			info.Command += " (pmm stopped before the program ended: status unknown)"
			info.Incomplete = append(info.Incomplete, "pmm was stopped while the program ran: executions still running when the program ended are not recorded")
		}
		info.Command += " (recovered)"
		stats, err := d.load(p, info, nil)
		switch {
		case errors.Is(err, load.ErrLoaded):
			fmt.Fprintf(e.stderr, "pmm: removed the logs of run %d, loaded already, from %s\n", stats.Run, path)
		case err != nil:
			unlock()
			fmt.Fprintf(e.stderr, "pmm: the logs left in %s could not be loaded: %v\n", path, err)
		default:
			fmt.Fprintf(e.stderr, "pmm: run %d: %d tuples recovered from %s, left by a pmm that stopped before loading them\n", stats.Run, stats.Tuples, path)
		}
	}
	legacy := filepath.Join(pmmDir(p.Root), "logs")
	if entries, err := os.ReadDir(legacy); err == nil && len(entries) > 0 {
		now := time.Now()
		run := load.Run{Command: "a program built with the overlay, outside pmm run (its logs were in .pmm/logs)", Start: now, End: now}
		if stats, err := loadRun(p, legacy, run); err != nil {
			fmt.Fprintf(e.stderr, "pmm: the logs in %s could not be loaded: %v\n", legacy, err)
		} else if stats.Tuples > 0 {
			fmt.Fprintf(e.stderr, "pmm: run %d: %d tuples from %s, recorded outside pmm run\n", stats.Run, stats.Tuples, legacy)
		}
	}
}
