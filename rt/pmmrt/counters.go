package pmmrt

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"unsafe"

	"pmm.dev/pmm/rt/logfmt"
)

// Per-site counters: how many times each site's instrumentation ran with
// recording on (entries checked), a figure of the seed's table 6.2 (the
// entries recorded are counted from the tuples). They live in a file
// mapped like the log segments and are incremented in place, so they
// survive any exit. The file is a header, then a uint64 per site number,
// 0 to numSites, then another: the executions that began and have not
// ended, at the sites whose answers wait for an execution's end (Began,
// Ended). One still open after the process exited never ended: the
// loader says which answers may miss it.

var (
	numSites   int            // set by the zz_config.go file that pmm generates
	counterMu  sync.Mutex     // guards the creation of the counters
	countersP  unsafe.Pointer // *counterArrays once created
	countersOK int32          // 1 once created, 2 if they cannot be
)

// counterArrays are the two arrays of the counters file, by site number.
type counterArrays struct {
	checked, open []uint64
}

// Check counts one execution of site's instrumentation.
func Check(site int) {
	if c := counters(); c != nil && site < len(c.checked) {
		atomic.AddUint64(&c.checked[site], 1)
	}
}

// Began counts an execution of site that began, whose answers wait for
// its end; Ended counts its end.
func Began(site int) {
	if c := counters(); c != nil && site < len(c.open) {
		atomic.AddUint64(&c.open[site], 1)
	}
}

// Ended counts the end of an execution Began counted.
func Ended(site int) {
	if c := counters(); c != nil && site < len(c.open) {
		atomic.AddUint64(&c.open[site], ^uint64(0))
	}
}

func counters() *counterArrays {
	if atomic.LoadInt32(&countersOK) == 1 {
		return (*counterArrays)(atomic.LoadPointer(&countersP))
	}
	return createCounters()
}

func createCounters() *counterArrays {
	counterMu.Lock()
	defer counterMu.Unlock()
	switch atomic.LoadInt32(&countersOK) {
	case 1:
		return (*counterArrays)(atomic.LoadPointer(&countersP))
	case 2:
		return nil
	}
	c, err := mapCounters()
	if err != nil {
		atomic.StoreInt32(&countersOK, 2)
		dir, _ := logDir("")
		stop(dir, err) // the counts of the run would be wrong
		return nil
	}
	atomic.StorePointer(&countersP, unsafe.Pointer(c))
	atomic.StoreInt32(&countersOK, 1)
	return c
}

// mapCounters creates this process's counters file and maps it; where
// files cannot be mapped, the counters are written when the log is
// flushed and closed.
func mapCounters() (*counterArrays, error) {
	dir, err := logDir("")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0755); err != nil {
		return nil, err
	}
	name := processFilePrefix() + logfmt.CounterFileSuffix
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0644)
	if err != nil {
		return nil, err
	}
	size := logfmt.CounterHeaderSize + 2*logfmt.CounterArraySize(numSites)
	var data []byte
	if useMmap {
		data, err = mapFile(f, size)
		f.Close()
	} else {
		data = make([]byte, size)
		counterFile = f
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	logfmt.PutCounterHeader(data, numSites)
	counterData = data
	words := data[logfmt.CounterHeaderSize:]
	n := numSites + 1
	all := (*[1 << 27]uint64)(unsafe.Pointer(&words[0]))[: 2*n : 2*n]
	return &counterArrays{checked: all[:n:n], open: all[n:]}, nil
}

var (
	counterData []byte   // the counters file's bytes
	counterFile *os.File // where files are not mapped: written by flushCounters
)

// flushCounters writes the counters where they are not mapped.
func flushCounters() {
	counterMu.Lock()
	defer counterMu.Unlock()
	if counterFile != nil && counterData != nil {
		if _, err := counterFile.WriteAt(counterData, 0); err != nil {
			stop(filepath.Dir(counterFile.Name()), err)
		}
	}
}
