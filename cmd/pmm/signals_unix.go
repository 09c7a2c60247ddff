//go:build unix

package main

import (
	"os"
	"syscall"
	"unsafe"
)

// forwardedSignals are the signals pmm catches while the program runs.
var forwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// shouldForward reports whether pmm passes sig on to the program: always,
// but for a SIGINT while pmm's process group is the foreground of its
// terminal, where Ctrl-C reached the program already.
func shouldForward(sig os.Signal) bool {
	return sig != syscall.SIGINT || !foregroundOfTerminal()
}

// foregroundOfTerminal reports whether standard input is a terminal whose
// foreground process group is pmm's.
func foregroundOfTerminal() bool {
	var pgrp int32
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, os.Stdin.Fd(), uintptr(syscall.TIOCGPGRP), uintptr(unsafe.Pointer(&pgrp)))
	return errno == 0 && int(pgrp) == syscall.Getpgrp()
}
