// Package geo has a type that testdata/allocations writes in an elided
// literal ([]*geo.Point{{1, 2}}): a type of another package.
package geo

// Point is 16 bytes.
type Point struct{ X, Y int64 }
