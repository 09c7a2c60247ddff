package logfmt

import (
	"encoding/binary"
	"strconv"
	"strings"
)

// The other files of a process in the log directory: its per-site
// counters (a header, then two arrays of a little-endian uint64 per site
// number: the entries checked, then the executions that began and have
// not ended yet, of the sites that count them) and the file it leaves
// when it stopped recording.

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
// held in data and its two arrays of counters (each one little-endian
// uint64 per site number from 0, as many as data holds up to sites):
// checked, the entries checked, and open, the executions begun and not
// ended (a wrapping difference: read it as an int64); ok is false when
// data is not a counters file.
func ParseCounterHeader(data []byte) (sites int, checked, open []byte, ok bool) {
	if len(data) < CounterHeaderSize || string(data[:len(CounterMagic)]) != CounterMagic {
		return 0, nil, nil, false
	}
	sites = int(binary.LittleEndian.Uint64(data[len(CounterMagic):]))
	checked = data[CounterHeaderSize:]
	if n := CounterArraySize(sites); sites >= 0 && n > 0 && n < len(checked) {
		checked, open = checked[:n], checked[n:]
		if n < len(open) {
			open = open[:n]
		}
	}
	return sites, checked, open, true
}

// CounterArraySize is the size of one array of counters of site numbers
// 0 to sites.
func CounterArraySize(sites int) int { return 8 * (sites + 1) }

// SegmentFileSuffix ends the names of log segment files.
const SegmentFileSuffix = ".pmmlog"

// CounterFileSuffix ends the names of counters files.
const CounterFileSuffix = ".pmmcnt"

// StopFileSuffix ends the name of the file that a process leaves in its
// log directory when its recording stopped because its log could not be
// written (a full disk): the file holds the reason, and the loader makes
// every answer of the run say that it is incomplete.
const StopFileSuffix = ".pmmstop"

// IncompleteFileSuffix ends the name of a file a process leaves in its
// log directory when a heap walk (reachable-objects, reachable-bytes)
// met a reference it cannot walk: the file (WalkNote) names the walk and
// the reason, and the loader makes the answers of the questions that ask
// for that walk say that they may be incomplete.
const IncompleteFileSuffix = ".pmmincomplete"

// WalkNote is the content of a walk's note: the walk's key (a line,
// spec.WalkKey: its Go expression and membership type), then the reason.
func WalkNote(key, reason string) []byte {
	return []byte(key + "\n" + reason)
}

// ReadWalkNote splits a walk's note into the walk's key and the reason.
func ReadWalkNote(content []byte) (key, reason string) {
	s := string(content)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return "", "a heap walk counted less than is reachable"
}

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

// AllocsProfileSuffix ends the name of the heap profile a process writes
// when a question's answer leaves out what code outside the module
// allocates (docs/MEMORY.md, "Allocations outside the module"): the
// runtime's allocs profile (runtime/pprof's, gzipped protobuf), written
// after a collection when main returns, or by package testing when a
// test binary's tests end. AllocsProfileRaceSuffix ends it instead for
// a program built with -race, under which the tiny allocator combines
// no objects (every allocation is sampled at rate 1).
const (
	AllocsProfileSuffix     = ".pmmallocs"
	AllocsProfileRaceSuffix = ".race" + AllocsProfileSuffix
)

// AllocsProfileName is the name of the heap profile of process pid.
func AllocsProfileName(pid int, race bool) string {
	if race {
		return strconv.Itoa(pid) + AllocsProfileRaceSuffix
	}
	return strconv.Itoa(pid) + AllocsProfileSuffix
}

// ParseAllocsProfileName returns the process and the race mark of a
// heap profile's file name (its base), and false for another name.
func ParseAllocsProfileName(name string) (pid int64, race, ok bool) {
	if !strings.HasSuffix(name, AllocsProfileSuffix) {
		return 0, false, false
	}
	s := strings.TrimSuffix(name, AllocsProfileSuffix)
	if strings.HasSuffix(name, AllocsProfileRaceSuffix) {
		s, race = strings.TrimSuffix(name, AllocsProfileRaceSuffix), true
	}
	pid, err := strconv.ParseInt(s, 10, 64)
	return pid, race, err == nil
}
