package pmmrt

import "syscall"

// adviseHugePages asks the kernel to map b, a segment, with huge pages
// (2 MiB on amd64) where the filesystem keeps files in large folios (ext4
// and xfs since Linux 6.16; tmpfs mounted with huge=): the first store
// into each 2 MiB then takes one page fault instead of 512. A fault costs
// microseconds (tens of them in a virtual machine that backs its memory
// lazily), which made faults most of the cost of writing records
// (docs/PERFORMANCE.md). Where the kernel cannot, the advice changes
// nothing, and its error is ignored.
func adviseHugePages(b []byte) {
	syscall.Madvise(b, syscall.MADV_HUGEPAGE) //nolint:errcheck // advice only
}
