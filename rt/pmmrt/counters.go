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
// 0 to numSites.

var (
	numSites   int            // set by the zz_config.go file that pmm generates
	counterMu  sync.Mutex     // guards the creation of the counters
	countersP  unsafe.Pointer // *[]uint64 once created
	countersOK int32          // 1 once created, 2 if they cannot be
)

// Check counts one execution of site's instrumentation.
func Check(site int) {
	if c := counters(); c != nil && site < len(c) {
		atomic.AddUint64(&c[site], 1)
	}
}

func counters() []uint64 {
	if atomic.LoadInt32(&countersOK) == 1 {
		return *(*[]uint64)(atomic.LoadPointer(&countersP))
	}
	return createCounters()
}

func createCounters() []uint64 {
	counterMu.Lock()
	defer counterMu.Unlock()
	switch atomic.LoadInt32(&countersOK) {
	case 1:
		return *(*[]uint64)(atomic.LoadPointer(&countersP))
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
	atomic.StorePointer(&countersP, unsafe.Pointer(&c))
	atomic.StoreInt32(&countersOK, 1)
	return c
}

// mapCounters creates this process's counters file and maps it; where
// files cannot be mapped, the counters are written when the log is
// flushed and closed.
func mapCounters() ([]uint64, error) {
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
	size := logfmt.CounterHeaderSize + 8*(numSites+1)
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
	return (*[1 << 27]uint64)(unsafe.Pointer(&words[0]))[:n:n], nil
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
