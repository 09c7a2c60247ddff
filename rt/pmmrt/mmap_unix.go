//go:build linux || darwin

package pmmrt

import (
	"os"
	"syscall"
)

// useMmap: segments are shared memory mappings of their files, so that a
// committed record is in the page cache at once.
const useMmap = true

func mapFile(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

func unmapFile(b []byte) error { return syscall.Munmap(b) }
