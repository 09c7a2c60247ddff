//go:build !linux

package pmmrt

// adviseHugePages does nothing where huge pages for file mappings cannot
// be asked for.
func adviseHugePages(b []byte) {}
