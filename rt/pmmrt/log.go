package pmmrt

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"pmm.dev/pmm/rt/logfmt"
)

// Segment sizes: the first segment of a process is small (a process that
// records little writes little) but one huge page (a smaller segment
// cannot be mapped with huge pages), each next one doubles, up to the
// largest, which bounds the memory a process maps for its log.
const (
	firstSegmentSize = 2 << 20
	lastSegmentSize  = 16 << 20
	fallbackInterval = 50 * time.Millisecond // write period without mmap
	retirePoll       = time.Millisecond      // how often to look for stragglers
)

// The process's identity, shared by all its segment files.
var (
	processStart = time.Now()
	processTag   = randomTag()
	defaultDir   string // set by the zz_config.go file that pmm generates
)

// std is the log of the process. PMM_HUGEPAGES=off maps its segments
// with small pages (to compare; docs/PERFORMANCE.md).
var std = logger{mapped: useMmap, hugePages: os.Getenv("PMM_HUGEPAGES") != "off", firstSize: firstSegmentSize, lastSize: lastSegmentSize}

func init() { std.ready.L = &std.mu }

// segment is one log file and the memory that holds its records.
type segment struct {
	_        [64]byte // keep the contended reservation word on its own cache line
	reserved uint64   // atomic: the end of the reserved bytes
	_        [56]byte
	size     uint64 // len(data)
	// end is 0 until the reservation that did not fit is made; it is then
	// the end of the last record that fit, plus 1 (so that 0 is "unknown").
	end     uint64
	data    []byte
	file    *os.File
	mapped  bool
	written int // without mmap: bytes of data written to the file
}

// logger writes the records of a process into its segments.
type logger struct {
	cur unsafe.Pointer // atomic *segment: where records are reserved; nil before the first

	mu        sync.Mutex // guards the fields below and segment rotation
	ready     sync.Cond  // signalled when a spare segment is prepared
	spare     *segment   // prepared in advance for the next rotation
	preparing bool
	files     uint32 // the number of the next segment file
	used      uint32 // the number of the next segment to become current
	nextSize  int    // the size of the next segment
	retiring  sync.WaitGroup
	flushMu   sync.Mutex // serializes writes without mmap
	flushing  bool       // the periodic writer runs (without mmap)

	// Configuration; tests change it (under mu, with no segment open).
	mapped              bool
	hugePages           bool // ask for huge pages where mapped (linux)
	firstSize, lastSize int
	dir                 string // overrides PMM_DIR when set
}

// reserve returns the segment and offset of size bytes for one record; the
// common case is one atomic add. It returns nil when the log is broken.
func (l *logger) reserve(size int) (*segment, int) {
	s := (*segment)(atomic.LoadPointer(&l.cur))
	if s != nil {
		end := atomic.AddUint64(&s.reserved, uint64(size))
		if end <= s.size {
			return s, int(end) - size
		}
		return l.reserveSlow(s, end-uint64(size), size)
	}
	return l.reserveSlow(nil, 0, size)
}

// reserveSlow rotates to a new segment when s is full (or opens the first)
// and reserves there. start is where the reservation that failed in s
// began.
func (l *logger) reserveSlow(s *segment, start uint64, size int) (*segment, int) {
	for {
		if s != nil {
			s.markEnd(start)
		}
		l.mu.Lock()
		if atomic.LoadInt32(&state) == stateBroken {
			l.mu.Unlock()
			return nil, 0
		}
		cur := (*segment)(atomic.LoadPointer(&l.cur))
		if (cur == s || cur == nil) && l.preparing {
			// Wait for the spare: what is left of its page faults is
			// less than those of a new segment, which the writers would
			// take themselves. Then look again: another writer may
			// have rotated meanwhile.
			l.ready.Wait()
			l.mu.Unlock()
			continue
		}
		if cur == s || cur == nil { // nobody rotated yet, or closed
			next, err := l.nextSegment(size)
			if err != nil {
				l.fail(err)
				l.mu.Unlock()
				return nil, 0
			}
			// Number segments in the order they are used (a spare may
			// have been created before a segment used earlier).
			binary.LittleEndian.PutUint32(next.data[logfmt.HdrSeq:], l.used)
			l.used++
			atomic.StorePointer(&l.cur, unsafe.Pointer(next))
			if cur != nil { // else close retired it
				l.retire(cur)
			}
			cur = next
		}
		l.mu.Unlock()
		end := atomic.AddUint64(&cur.reserved, uint64(size))
		if end <= cur.size {
			return cur, int(end) - size
		}
		s, start = cur, end-uint64(size)
	}
}

// markEnd records where the records of s end, if the reservation that
// began at start is the first that did not fit (exactly one does).
func (s *segment) markEnd(start uint64) {
	if start <= s.size {
		atomic.StoreUint64(&s.end, start+1)
	}
}

// begin stores the size of a record whose space was just reserved, so
// that a reader can skip it if its writer dies before commit. In a
// mapped segment the store is a plain one (an atomic store is a full
// barrier on amd64, about 5 ns of a timed event's 80: docs/PERFORMANCE.md):
// the only reader before the process ends, the retiring goroutine, acts
// on the commit bit alone, which the atomic commit publishes after this
// store; after a SIGKILL the page cache holds every store the process
// made, and the compiler keeps stores in program order. Without mmap the
// periodic writer reads the word concurrently: there it stays atomic.
func (s *segment) begin(rec []byte, size int) {
	if s.mapped {
		*(*uint32)(unsafe.Pointer(&rec[0])) = uint32(size)
		return
	}
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&rec[0])), uint32(size))
}

// commit publishes a record: its first word, the size with CommitBit,
// stored after the record's other stores. On processors that keep
// stores in order (storesInOrder) and in a mapped segment it is a plain
// store made by a function that is not inlined: the compiler neither
// moves the record's stores past the call nor drops begin's store to
// the same word (the call reads memory), and the processor publishes
// them in that order. The atomic store it replaces is a full barrier
// that waits for the record's stores to fresh cache lines to drain
// (docs/PERFORMANCE.md, "The bias of a duration"). Elsewhere, and under
// the race detector (which does not know the processor's ordering), it
// is an atomic store.
func (s *segment) commit(rec []byte, size int) {
	w := (*uint32)(unsafe.Pointer(&rec[0]))
	if storesInOrder && s.mapped && !raceEnabled {
		storeInOrder(w, uint32(size)|logfmt.CommitBit)
		return
	}
	atomic.StoreUint32(w, uint32(size)|logfmt.CommitBit)
}

// storeInOrder stores v at w after every store the caller made before
// the call (see commit).
//
//go:noinline
func storeInOrder(w *uint32, v uint32) { *w = v }

// nextSegment returns the segment to use after the current one, with room
// for a record of size bytes: the spare if there is one (reserveSlow
// waits for the spare being prepared), else a new one. It starts
// preparing the next spare. l.mu is held.
func (l *logger) nextSegment(size int) (*segment, error) {
	need := logfmt.SegHeaderSize + size
	var s *segment
	if l.spare != nil && int(l.spare.size) >= need {
		s, l.spare = l.spare, nil
	} else {
		want := l.takeSize()
		if want < need {
			want = (need + 4095) &^ 4095
		}
		var err error
		if s, err = l.create(want); err != nil {
			return nil, err
		}
	}
	if l.spare == nil && !l.preparing {
		l.prepareNext()
	}
	return s, nil
}

// prepareNext creates the next segment in the background and touches its
// pages, so that the records written into it later take no page fault
// (microseconds per fault, 20-60 µs per 4 KiB page on the development VM
// with small pages: docs/PERFORMANCE.md; paid by another core). l.mu is
// held.
func (l *logger) prepareNext() {
	if !l.mapped {
		return
	}
	l.preparing = true
	size := l.takeSize()
	l.retiring.Add(1)
	go func() {
		defer l.retiring.Done()
		s, err := l.createLocked(size)
		if err == nil { // the first page holds the header
			for i := 4096; i < len(s.data); i += 4096 {
				s.data[i] = 0
			}
		}
		l.mu.Lock()
		if s != nil && atomic.LoadInt32(&state) == stateBroken {
			s.discard() // recording stopped meanwhile: give its space back
			s = nil
		}
		l.spare = s
		l.preparing = false
		l.ready.Broadcast()
		l.mu.Unlock()
	}()
}

// takeSize returns the size of the next segment and doubles the one after,
// up to lastSize. l.mu is held.
func (l *logger) takeSize() int {
	if l.nextSize == 0 {
		l.nextSize = l.firstSize
	}
	size := l.nextSize
	if l.nextSize < l.lastSize {
		l.nextSize *= 2
		if l.nextSize > l.lastSize {
			l.nextSize = l.lastSize
		}
	}
	return size
}

// createLocked creates a segment, taking l.mu for the numbering.
func (l *logger) createLocked(size int) (*segment, error) {
	l.mu.Lock()
	file := l.files
	l.files++
	dir, mapped, huge := l.dir, l.mapped, l.hugePages
	l.mu.Unlock()
	return createSegment(dir, file, size, mapped, huge)
}

// create creates a segment of size bytes. l.mu is held.
func (l *logger) create(size int) (*segment, error) {
	file := l.files
	l.files++
	s, err := createSegment(l.dir, file, size, l.mapped, l.hugePages)
	if err == nil && !l.mapped && !l.flushing {
		l.flushing = true
		go l.flushLoop()
	}
	return s, err
}

// logDir returns the directory of the log files.
func logDir(override string) (string, error) {
	dir := override
	if dir == "" {
		dir = os.Getenv("PMM_DIR")
	}
	if dir == "" {
		dir = defaultDir
	}
	if dir == "" {
		return "", errors.New("neither PMM_DIR nor a default directory is set")
	}
	return filepath.Join(dir, "logs"), nil
}

// createSegment creates segment file number file, maps it (with huge
// pages if asked and possible) or allocates its buffer, and writes its
// header.
func createSegment(override string, file uint32, size int, mapped, huge bool) (*segment, error) {
	dir, err := logDir(override)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0755); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s-%04d%s", processFilePrefix(), file, logfmt.SegmentFileSuffix)
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0644)
	if err != nil {
		return nil, err
	}
	s := &segment{size: uint64(size), file: f, mapped: mapped, reserved: logfmt.SegHeaderSize}
	if mapped {
		if s.data, err = mapFile(f, size); err == nil && huge {
			adviseHugePages(s.data)
		}
	} else {
		s.data = make([]byte, size)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	writeHeader(s.data, size)
	return s, nil
}

func writeHeader(h []byte, size int) {
	program := ""
	if len(os.Args) > 0 {
		program = os.Args[0]
	}
	logfmt.PutSegmentHeader(h, logfmt.SegmentHeader{
		Size: uint64(size), PID: int64(os.Getpid()), Start: processStart.UnixNano(), Process: processTag,
		Seq:     logfmt.UnusedSegment, // until it becomes current
		Program: program,
	})
}

// retire finishes a segment that no new record will be reserved in, in
// the background: once every record reserved in it is committed, nothing
// writes to it any more, so it can be unmapped. l.mu is held.
func (l *logger) retire(s *segment) {
	l.retiring.Add(1)
	go func() {
		defer l.retiring.Done()
		s.finish(l)
	}()
}

// finish waits for the writers of s to commit, then records the end in the
// header, writes (without mmap), truncates, unmaps and closes the file.
func (s *segment) finish(l *logger) {
	var end uint64
	for end = atomic.LoadUint64(&s.end); end == 0; end = atomic.LoadUint64(&s.end) {
		time.Sleep(retirePoll)
	}
	end--
	s.committedPrefix(int(end), true)
	if s.mapped {
		binary.LittleEndian.PutUint64(s.data[logfmt.HdrEnd:], end)
		unmapFile(s.data) // (s.data is left as is: the race detector does not see the commits in mapped memory)
		s.file.Truncate(int64(end))
	} else {
		l.flushMu.Lock()
		binary.LittleEndian.PutUint64(s.data[logfmt.HdrEnd:], end)
		err := s.write(int(end))
		if err == nil {
			_, err = s.file.WriteAt(s.data[:logfmt.SegHeaderSize], 0)
		}
		if err != nil {
			stop(filepath.Dir(s.file.Name()), err)
		}
		s.data = nil
		l.flushMu.Unlock()
	}
	s.file.Close()
}

// committedPrefix returns the end of the committed records of s that
// begin before limit. With wait, it waits for the records being written
// and returns limit.
func (s *segment) committedPrefix(limit int, wait bool) int {
	pos := logfmt.SegHeaderSize
	for pos < limit {
		word := atomic.LoadUint32((*uint32)(unsafe.Pointer(&s.data[pos])))
		if word&logfmt.CommitBit == 0 {
			if !wait {
				break
			}
			time.Sleep(retirePoll)
			continue
		}
		pos += int(word &^ logfmt.CommitBit)
	}
	return pos
}

// discard removes a prepared segment that is not used.
func (s *segment) discard() {
	if s.mapped {
		unmapFile(s.data)
	}
	s.file.Close()
	os.Remove(s.file.Name())
}

// write writes the bytes of s up to end that were not written yet
// (without mmap). l.flushMu is held.
func (s *segment) write(end int) error {
	if end > s.written {
		if _, err := s.file.WriteAt(s.data[s.written:end], int64(s.written)); err != nil {
			return err
		}
		s.written = end
	}
	return nil
}

// flushLoop writes the committed records periodically (without mmap).
func (l *logger) flushLoop() {
	for {
		time.Sleep(fallbackInterval)
		l.flush()
	}
}

// flush writes the committed records of the current segment (without
// mmap). Retired segments are written by finish.
func (l *logger) flush() {
	s := (*segment)(atomic.LoadPointer(&l.cur))
	if s == nil || s.mapped {
		return
	}
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	if s.data == nil { // retired meanwhile
		return
	}
	limit := int(atomic.LoadUint64(&s.reserved))
	if limit > len(s.data) {
		limit = len(s.data)
	}
	if err := s.write(s.committedPrefix(limit, false)); err != nil {
		stop(filepath.Dir(s.file.Name()), err)
	}
}

// close retires the current segment and the spare, and waits until they
// are closed; the next record opens a new segment.
func (l *logger) close() {
	l.mu.Lock()
	for l.preparing {
		l.ready.Wait()
	}
	l.dropSegments()
	l.nextSize = 0
	l.mu.Unlock()
	l.retiring.Wait()
}

// finishRun retires the current segment and waits, up to wait, for the
// records reserved in it and in the segments retiring to be committed,
// holding l.mu for good: a later record finds no segment and waits for
// l.mu in reserveSlow, so it is never reserved, and never torn.
func (l *logger) finishRun(wait time.Duration) {
	l.mu.Lock() // never unlocked
	for l.preparing {
		l.ready.Wait()
	}
	l.dropSegments()
	done := make(chan struct{})
	go func() {
		l.retiring.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(wait):
	}
}

// dropSegments retires the current segment, so that the next record
// opens a new one, and removes the spare. l.mu is held.
func (l *logger) dropSegments() {
	s := (*segment)(atomic.LoadPointer(&l.cur))
	if s != nil {
		atomic.StorePointer(&l.cur, nil)
		// Take all the remaining space, so that this is (or follows) the
		// reservation that did not fit.
		s.markEnd(atomic.AddUint64(&s.reserved, s.size+1) - s.size - 1)
		l.retire(s)
	}
	if l.spare != nil {
		l.spare.discard()
		l.spare = nil
	}
}

// fail stops recording for good after an error creating a segment (a
// full disk): the records written so far are kept (the current segment
// is retired, which gives back its unused space, as does removing the
// spare). l.mu is held.
func (l *logger) fail(err error) {
	dir, _ := logDir(l.dir)
	stop(dir, err)
	l.dropSegments()
}

func randomTag() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:])
}
