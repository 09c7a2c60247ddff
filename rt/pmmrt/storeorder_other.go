//go:build !amd64 && !386

package pmmrt

// storesInOrder: the processor may make plain stores visible out of
// order, so the commit of a record is an atomic store (a release store,
// STLR on arm64): see (*segment).commit.
const storesInOrder = false
