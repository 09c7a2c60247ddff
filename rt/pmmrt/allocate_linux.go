package pmmrt

import (
	"os"
	"syscall"
)

// allocate reserves the first size bytes of f on disk with fallocate(2),
// which also sets its length; on a filesystem without fallocate it writes
// zeros.
func allocate(f *os.File, size int) error {
	for {
		err := syscall.Fallocate(int(f.Fd()), 0, 0, int64(size))
		switch err {
		case nil:
			return nil
		case syscall.EINTR:
			continue
		case syscall.EOPNOTSUPP, syscall.ENOSYS:
			return writeZeros(f, size)
		}
		return &os.PathError{Op: "fallocate", Path: f.Name(), Err: err}
	}
}
