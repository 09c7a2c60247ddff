//go:build pmm

package pmmrt

import (
	"io"
	"os"
	"runtime/pprof"
)

// This file is in the runtime only where a question's answer leaves out
// what code outside the module allocates (rt.Sources): it links
// runtime.MemProfile, without which the linker turns memory profiling
// off, and pulls in runtime/pprof. Its build tag keeps it out of pmm's
// own tests, whose test binaries it would have write profiles.

func init() {
	writeAllocs = func(w io.Writer) error { return pprof.Lookup("allocs").WriteTo(w, 0) }
	os.Args = testArgs(os.Args)
}
