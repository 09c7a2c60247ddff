package pmmrt

import "os"

// allocate reserves the first size bytes of f on disk by writing zeros
// (darwin has no fallocate in package syscall).
func allocate(f *os.File, size int) error { return writeZeros(f, size) }
