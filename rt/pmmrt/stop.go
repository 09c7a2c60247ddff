package pmmrt

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"pmm.dev/pmm/rt/logfmt"
)

var stopOnce sync.Once // the message and the stop file, once per process

// stop switches recording off for good because the log could not be
// written, says so once on stderr, and leaves a stop file in dir (the
// directory of the log files; "" when there is none). The program goes
// on: records are dropped from now on.
func stop(dir string, err error) {
	atomic.StoreInt32(&state, stateBroken)
	stopOnce.Do(func() {
		reason := stopReason(err)
		fmt.Fprintf(os.Stderr, "pmm: recording stopped: %s (%v); the program goes on unrecorded\n", reason, err)
		if dir != "" {
			writeStopFile(dir, reason)
		}
	})
}

// stopReason says why err stops recording, in the words of the answers.
func stopReason(err error) string {
	for {
		switch e := err.(type) {
		case *os.PathError:
			err = e.Err
			continue
		case *os.SyscallError:
			err = e.Err
			continue
		case syscall.Errno:
			if e == syscall.ENOSPC || e == syscall.EDQUOT {
				return logfmt.StopReasonDiskFull
			}
		}
		return "the log could not be written: " + err.Error()
	}
}

// writeStopFile creates the stop file. On a full disk the file may stay
// empty: its name takes no data block, but the reason may not fit.
func writeStopFile(dir, reason string) {
	if os.MkdirAll(dir, 0755) != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, processFilePrefix()+logfmt.StopFileSuffix), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0644)
	if err != nil {
		return
	}
	f.Write([]byte(reason)) //nolint:errcheck // an empty file says the disk was full
	f.Close()
}

// processFilePrefix starts the names of the files of this process: its
// pid, start time and random tag.
func processFilePrefix() string {
	return fmt.Sprintf("%d-%d-%016x", os.Getpid(), processStart.UnixNano(), processTag)
}
