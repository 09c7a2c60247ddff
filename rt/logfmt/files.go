package logfmt

import "encoding/binary"

// The other files of a process in the log directory: its per-site
// counters (a header, then a little-endian uint64 per site number) and
// the file it leaves when it stopped recording.

// CounterMagic starts a counters file.
const CounterMagic = "PMMCNT01"

// CounterHeaderSize is the size of a counters file's header: the magic
// and the number of sites, little-endian.
const CounterHeaderSize = 16

// PutCounterHeader writes the header of a counters file for site
// numbers up to sites at the start of data.
func PutCounterHeader(data []byte, sites int) {
	copy(data, CounterMagic)
	binary.LittleEndian.PutUint64(data[len(CounterMagic):], uint64(sites))
}

// ParseCounterHeader returns the highest site number of the counters file
// held in data, and its counters (one little-endian uint64 per site
// number from 0, as many as data holds up to sites); ok is false when
// data is not a counters file.
func ParseCounterHeader(data []byte) (sites int, counters []byte, ok bool) {
	if len(data) < CounterHeaderSize || string(data[:len(CounterMagic)]) != CounterMagic {
		return 0, nil, false
	}
	sites = int(binary.LittleEndian.Uint64(data[len(CounterMagic):]))
	counters = data[CounterHeaderSize:]
	if n := 8 * (sites + 1); sites >= 0 && n > 0 && n < len(counters) {
		counters = counters[:n]
	}
	return sites, counters, true
}

// SegmentFileSuffix ends the names of log segment files.
const SegmentFileSuffix = ".pmmlog"

// CounterFileSuffix ends the names of counters files.
const CounterFileSuffix = ".pmmcnt"

// StopFileSuffix ends the name of the file that a process leaves in its
// log directory when its recording stopped because its log could not be
// written (a full disk): the file holds the reason, and the loader makes
// every answer of the run say that it is incomplete.
const StopFileSuffix = ".pmmstop"

// StopReasonDiskFull is the reason a stop file holds when the disk was
// full.
const StopReasonDiskFull = "the disk was full"

// StopFileReason is the reason a stop file gives: its text, or, when it
// is empty (the reason did not fit), that the disk was full.
func StopFileReason(content []byte) string {
	if len(content) == 0 {
		return StopReasonDiskFull
	}
	return string(content)
}
