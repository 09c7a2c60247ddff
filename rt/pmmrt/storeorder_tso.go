//go:build amd64 || 386

package pmmrt

// storesInOrder: the processor makes a goroutine's plain stores visible
// to other cores in program order (x86-TSO), so the commit of a record
// needs no atomic store (an XCHG, a full barrier, on these processors):
// see (*segment).commit.
const storesInOrder = true
