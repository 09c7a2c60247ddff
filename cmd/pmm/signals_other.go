//go:build !unix

package main

import "os"

// forwardedSignals are the signals pmm catches while the program runs.
var forwardedSignals = []os.Signal{os.Interrupt}

// shouldForward: where a console sends Ctrl-C to every process attached
// to it, the program has it already.
func shouldForward(sig os.Signal) bool { return false }
