//go:build !linux && !darwin

package pmmrt

import (
	"errors"
	"os"
)

// useMmap: without mmap, segments are buffers in memory that a background
// goroutine writes to their files every 50 ms and on Flush.
const useMmap = false

func mapFile(f *os.File, size int) ([]byte, error) {
	return nil, errors.New("pmmrt: mmap is not supported on this system")
}

func unmapFile(b []byte) error { return nil }
