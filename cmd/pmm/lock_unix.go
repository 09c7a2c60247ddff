//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockDir takes an exclusive lock on dir (on the file lock inside it),
// without waiting: ok is false when another process holds it. The kernel
// drops the lock when the process ends, however it ends, so a directory
// locked by nobody is one whose pmm is gone.
func lockDir(dir string) (unlock func(), ok bool, err error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, false, nil
		}
		return nil, false, err
	}
	return func() { f.Close() }, true, nil
}

// processAlive reports whether a process with this pid exists (it may be
// another that reused the pid: then a directory is left until it ends).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
