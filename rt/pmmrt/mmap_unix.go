//go:build linux || darwin

package pmmrt

import (
	"os"
	"syscall"
)

// useMmap: segments are shared memory mappings of their files, so that a
// committed record is in the page cache at once.
const useMmap = true

// mapFile gives f size bytes of disk space, then maps them. The space is
// reserved first because a store into a page of a shared mapping that the
// filesystem cannot back (a sparse file on a full disk) kills the process
// with SIGBUS; a reservation that fails is an error here instead, and
// recording stops.
func mapFile(f *os.File, size int) ([]byte, error) {
	if err := allocate(f, size); err != nil {
		return nil, err
	}
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

func unmapFile(b []byte) error { return syscall.Munmap(b) }

// writeZeros makes f size bytes long by writing zeros, which makes the
// filesystem allocate its blocks (where it cannot be asked to reserve
// them otherwise).
func writeZeros(f *os.File, size int) error {
	zeros := make([]byte, 64<<10)
	for off := 0; off < size; off += len(zeros) {
		n := size - off
		if n > len(zeros) {
			n = len(zeros)
		}
		if _, err := f.WriteAt(zeros[:n], int64(off)); err != nil {
			return err
		}
	}
	return nil
}
