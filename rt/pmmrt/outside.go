package pmmrt

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"pmm.dev/pmm/rt/logfmt"
)

// Allocations outside the module (docs/MEMORY.md): where an answer
// leaves out what code outside the module allocates, pmm adds
// outside_profile.go to the runtime (rt.Sources), which sets
// writeAllocs: a process then writes the runtime's allocs profile into
// its log directory when main returns, after a collection, and a test
// binary has package testing write it when its tests end (testArgs).
// pmm's load reads it. A process that ends otherwise (os.Exit, a panic,
// a signal) writes none, and the answers say so.

// writeAllocs writes the allocs profile; nil when no question asks.
var writeAllocs func(io.Writer) error

// finishAllocs writes the process's heap profile, after a collection,
// into the log directory: to a temporary name, then renamed, so that a
// profile the load finds is whole.
func finishAllocs() {
	if writeAllocs == nil {
		return
	}
	path, err := allocsProfilePath()
	if err == nil {
		runtime.GC() // the profile holds the allocations up to the last collection
		err = writeFileAtomic(path, writeAllocs)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pmm: the heap profile of allocations outside the module was not written: %v\n", err)
	}
}

// allocsProfilePath is the path of this process's heap profile, its
// directory made.
func allocsProfilePath() (string, error) {
	dir, err := logDir(std.dir)
	if err != nil {
		return "", err
	}
	// 0777, not 0o777: the runtime compiles as go 1.12.
	if err := os.MkdirAll(dir, 0777); err != nil {
		return "", err
	}
	return filepath.Join(dir, logfmt.AllocsProfileName(os.Getpid(), raceEnabled)), nil
}

// writeFileAtomic writes path with write, through a temporary file.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// testArgs returns the arguments of a test binary (one given go test's
// -test. flags, as go test always gives some) with package testing's
// -test.memprofile naming this process's heap profile first, so that
// testing writes it, after a collection, when the tests end (the
// binary's main is go test's, which never calls MainReturned). A
// -test.memprofile the user gave comes later and wins: then the load
// finds no profile, and says so. Other arguments are returned as they
// are.
func testArgs(args []string) []string {
	test := false
	for _, a := range args[1:] {
		test = test || strings.HasPrefix(a, "-test.")
	}
	if !test {
		return args
	}
	path, err := allocsProfilePath()
	if err != nil {
		return args
	}
	out := make([]string, 0, len(args)+1)
	return append(append(append(out, args[0]), "-test.memprofile="+path), args[1:]...)
}
