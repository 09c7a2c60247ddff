package pmmrt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"pmm.dev/pmm/rt/logfmt"
)

// Aggregate cells: the partial results of a question that asks only for
// count, sum, min or max per group. Instead of a tuple per execution, the
// generated code adds the execution's value to the cell of its group
// (AggInt, AggFloat); a cell holds five words, updated in place with
// atomic operations:
//
//	kind  logfmt.AggKindInt or logfmt.AggKindFloat, stored last when the cell is made
//	count the values added
//	sum   their sum (an int64 that wraps, or float64 bits)
//	min   their minimum (starts at MaxInt64 or +Inf)
//	max   their maximum (starts at MinInt64 or -Inf)
//
// count is incremented after sum, min and max: a cell whose count is
// positive has real minimum and maximum values even if the process was
// killed in the middle of an add (the value in flight is then in the sum
// but not counted).
//
// The cells live in chunk files beside the log segments, mapped like
// them, so that they survive any exit as the counters do:
// <pid>-<start unix ns>-<tag hex>-<chunk>.pmmagg, each a header of
// logfmt.AggHeaderSize bytes and logfmt.AggCellsPerChunk cells of logfmt.AggCellSize bytes
// (the files are sparse: a page is written only when one of its cells
// is). A cell's number, unique within the process, is
// chunk*logfmt.AggCellsPerChunk + its index in the chunk. Where files cannot be
// mapped the chunks are kept in memory and written by Flush, Exit and
// Close.
//
// Creating a cell emits a record to the aggregate's table first: the
// cell number, then the group's fields. The loader stores it as a tuple
// (the cell number is an ID column) and the cell's values in the table
// pmm_cells, so that the two join on (run, cell).

// aggChunkSize is the size of a chunk file.
const aggChunkSize = logfmt.AggHeaderSize + logfmt.AggCellsPerChunk*logfmt.AggCellSize

// aggCell is a cell, in a chunk's memory.
type aggCell struct {
	kind, count, sum, min, max uint64
}

// aggChunk is one chunk file and its memory.
type aggChunk struct {
	num   uint64
	data  []byte
	words []uint64 // data as words
	file  *os.File // where not mapped: written by flushAggs
}

func (ch *aggChunk) cell(i int) *aggCell {
	return (*aggCell)(unsafe.Pointer(&ch.data[logfmt.AggHeaderSize+i*logfmt.AggCellSize]))
}

// aggTable is the cells of one table, by the encoded fields of their
// group. Lookups read the map in read without a lock (m[string(b)] does
// not allocate); a new cell goes into dirty, a copy of read plus the new
// cells, which replaces read once it has been missed as many times as it
// has cells (as sync.Map does, whose Load(string(b)) would allocate).
type aggTable struct {
	read   unsafe.Pointer      // *map[string]*aggCell; the map never changes once stored
	dirty  map[string]*aggCell // under aggMu: nil, or every cell
	misses int                 // under aggMu
	kind   uint64              // under aggMu: the kind of the first cell, 0 before
}

// aggSet is the cells of the process, until Close.
type aggSet struct {
	tables unsafe.Pointer // *[]*aggTable indexed by table id; replaced under aggMu
	// Under aggMu:
	chunks  []*aggChunk
	used    int     // cells made in the last chunk
	failed  bool    // a chunk could not be made: no new cells
	counted []*Cell // the sites' Cells, which point to cells of the set
}

var (
	aggMu     sync.Mutex                  // guards making cells, chunks and tables
	aggCur    = unsafe.Pointer(&aggSet{}) // *aggSet
	aggChunks uint64                      // the number of the next chunk file, under aggMu
	aggMapped = useMmap                   // tests change it (under aggMu, with no chunk)
)

// AggInt adds v to the cell of (table, group) of this process, making
// the cell if it is new, and resets group. A table's cells are all int or
// all float: the first value of a table fixes its kind, and a value of
// the other kind is dropped.
// Like Emit it does not test the gate (generated code does); once the
// log is broken it does nothing but reset group.
func AggInt(table uint16, group *Rec, v int64) {
	aggAdd(table, group, logfmt.AggKindInt, uint64(v))
}

// AggFloat is AggInt for a float64 value.
func AggFloat(table uint16, group *Rec, v float64) {
	aggAdd(table, group, logfmt.AggKindFloat, math.Float64bits(v))
}

func aggAdd(table uint16, group *Rec, kind, bits uint64) {
	if atomic.LoadInt32(&state) != stateBroken {
		group.Finish()
		aggApply(table, group.Fields(), kind, bits)
	}
	group.Reset()
}

// AggInt holds the addition of v to the cell of (table, group) until
// Release, which applies it in order with the held tuples, and resets
// group.
func (h *Held) AggInt(table uint16, group *Rec, v int64) {
	h.putAgg(table, heldAggInt, uint64(v), group)
}

// AggFloat is Held.AggInt for a float64 value.
func (h *Held) AggFloat(table uint16, group *Rec, v float64) {
	h.putAgg(table, heldAggFloat, math.Float64bits(v), group)
}

func (h *Held) putAgg(table uint16, format byte, bits uint64, group *Rec) {
	group.Finish()
	key := group.Fields()
	var hdr [heldHeader + 8]byte
	binary.LittleEndian.PutUint16(hdr[:], table)
	hdr[2] = format
	binary.LittleEndian.PutUint32(hdr[3:], uint32(8+len(key)))
	binary.LittleEndian.PutUint64(hdr[heldHeader:], bits)
	h.b = append(append(h.b, hdr[:]...), key...)
	group.Reset()
}

// releaseAgg applies a held addition: body is the value's bits, then the
// group's encoded fields.
func releaseAgg(table uint16, format byte, body []byte) {
	if atomic.LoadInt32(&state) == stateBroken || len(body) < 8 {
		return
	}
	kind := uint64(logfmt.AggKindInt)
	if format == heldAggFloat {
		kind = logfmt.AggKindFloat
	}
	aggApply(table, body[8:], kind, binary.LittleEndian.Uint64(body))
}

// aggApply adds the value of the given kind to the cell of (table, key).
func aggApply(table uint16, key []byte, kind, bits uint64) {
	c := (*aggSet)(atomic.LoadPointer(&aggCur)).cell(table, key, kind)
	if c == nil {
		return
	}
	if kind == logfmt.AggKindInt {
		c.addInt(int64(bits))
	} else {
		c.addFloat(math.Float64frombits(bits))
	}
}

// cell returns the cell of (table, key), making it if it is new, or nil
// if it cannot be made or its table's cells are not of kind.
func (s *aggSet) cell(table uint16, key []byte, kind uint64) *aggCell {
	var c *aggCell
	if ts := (*[]*aggTable)(atomic.LoadPointer(&s.tables)); ts != nil && int(table) < len(*ts) {
		if t := (*ts)[table]; t != nil {
			c = (*(*map[string]*aggCell)(atomic.LoadPointer(&t.read)))[string(key)]
		}
	}
	if c == nil {
		if c = s.cellSlow(table, key, kind); c == nil {
			return nil
		}
	}
	if atomic.LoadUint64(&c.kind) != kind {
		return nil // a value of the other kind than the table's
	}
	return c
}

// Cell is a site's own cells of a count or sum whose group is known
// when pmm generates the site (a function's name, a constant, an
// account): the site counts an execution, or adds an allocation's
// value, with no group to build, no lookup and nothing at the
// execution's end. Generated code declares one per site and group at
// package level,
//
//	var pmm__cell1 = pmmrt.NewCell(func(r *pmmrt.Rec) { r.Str("main.add") }, 2)
//
// and calls pmm__cell1.Count() where the execution begins (or Add(v)).
// The package's initialization makes the Cell (the variable is
// initialized before any function of the package can run: the
// initializers that call one depend on it).
//
// One Cell may serve several tables (NewCell's tables): a count and a
// sum of the same event and group read the same cells, the count
// question their count and the sum question their sum; each cell has a
// record in every table, with its number.
//
// Add's additions go to a cell of the P (the scheduler's processor)
// that runs the goroutine, made the first time that P adds to the Cell:
// with the goroutine pinned to its P (runtime.procPin, which only
// keeps it from being preempted), no other goroutine can add to that
// cell at the same time, so the addition is two plain adds, not locked
// ones (on the machine of docs/PERFORMANCE.md a locked add costs 7-10
// ns, the pin and unpin about 2; Count, inlined, keeps one atomic add to
// the shared cell). The cells are of the same chunk files
// as the others, so the counts survive any exit; the loader and the
// views sum a group's cells. An addition whose P has no cell yet (its
// first, a P beyond those the Cell has room for), or every addition
// under the race detector (which would report the plain adds of
// goroutines that take turns on a P) or on a 32-bit system (where a
// plain add of a word is two stores), goes to the Cell's shared cell,
// made with it, with atomic adds. A Cell's cells hold count and sum
// only: their minimum and maximum stay 0 (counts and sums read none).
type Cell struct {
	count unsafe.Pointer // *uint64: the count word of the shared cell, or countDropped
	perP  unsafe.Pointer // *cellsPerP; nil until a P adds, and after closeAggs
	// What makes its cells: the tables and the group's encoded fields.
	tables []uint16
	group  []byte
}

// cellsPerP are a Cell's cells by P id (runtime.procPin's), nil where
// that P has none. A cellsPerP never changes once stored in a Cell: a new
// P's cell replaces it with a copy (aggMu held).
type cellsPerP struct {
	cells []*aggCell
}

// maxCellPs bounds the Ps that have cells of their own: the others add
// to the shared cell.
const maxCellPs = 1024

// countDropped is the count word of a Cell whose cell cannot be made (the
// log is broken, a chunk cannot be created): never read.
var countDropped uint64

// NewCell makes a Cell of the given tables for the group that group
// encodes (it adds the group's fields to r, as for AggInt): its shared
// cell, with a record in each table.
func NewCell(group func(r *Rec), tables ...uint16) *Cell {
	var r Rec
	group(&r)
	r.Finish()
	c := &Cell{tables: tables, group: append([]byte(nil), r.Fields()...)}
	aggMu.Lock()
	defer aggMu.Unlock()
	c.make((*aggSet)(atomic.LoadPointer(&aggCur)))
	return c
}

// Count adds one execution to the Cell's shared cell when recording is
// on: an atomic load (the gate), then one atomic add. It stays small
// enough for the inliner (cost 13 of 80), which a call of add would not:
// a function counted so stays inlinable (docs/PERFORMANCE.md).
func (c *Cell) Count() {
	if atomic.LoadInt32(&state) == stateOn {
		atomic.AddUint64((*uint64)(atomic.LoadPointer(&c.count)), 1)
	}
}

// Add adds an int value to the Cell, counting it, when recording is on,
// in the cell of the goroutine's P. Add(0) is a count.
func (c *Cell) Add(v int64) {
	if atomic.LoadInt32(&state) == stateOn {
		c.add(v)
	}
}

// add counts v in the cell of the calling goroutine's P: with the
// goroutine pinned, the sum, then the count, each a plain add, which on
// a 64-bit system stores each word at once (a reader of a cell that is
// not mapped, Flush, reads whole words; a process killed between the two
// adds has its value in the sum and not counted, as with atomic adds).
// A 32-bit system adds to the shared cell, atomically.
func (c *Cell) add(v int64) {
	if !raceEnabled && wordSize == 8 {
		id := procPin()
		if ps := (*cellsPerP)(atomic.LoadPointer(&c.perP)); ps != nil && uint(id) < uint(len(ps.cells)) {
			if cell := ps.cells[id]; cell != nil {
				cell.sum += uint64(v)
				cell.count++
				procUnpin()
				return
			}
		}
		procUnpin()
		c.addSlow(id, v)
		return
	}
	c.addShared(v)
}

// addSlow adds v to the shared cell, and makes P id a cell of its own
// for its next additions.
//
//go:noinline
func (c *Cell) addSlow(id int, v int64) {
	if c.addShared(v) && id < maxCellPs {
		aggMu.Lock()
		c.makePerP((*aggSet)(atomic.LoadPointer(&aggCur)), id)
		aggMu.Unlock()
	}
}

// addShared adds v to the shared cell with atomic adds, the sum then
// the count; false if the Cell has none.
func (c *Cell) addShared(v int64) bool {
	p := atomic.LoadPointer(&c.count)
	if p == unsafe.Pointer(&countDropped) {
		return false
	}
	cell := (*aggCell)(unsafe.Pointer(uintptr(p) - unsafe.Offsetof(aggCell{}.count)))
	atomic.AddUint64(&cell.sum, uint64(v))
	atomic.AddUint64(&cell.count, 1)
	return true
}

// make points c at its shared cell in s, making the cell (a cell of an
// int count whose sum, minimum and maximum are 0), and forgets the
// cells of Ps, which the Ps make again in s. A cell that cannot be made
// counts nothing. aggMu is held.
func (c *Cell) make(s *aggSet) {
	atomic.StorePointer(&c.perP, nil)
	cell := c.newCell(s)
	if cell == nil {
		atomic.StorePointer(&c.count, unsafe.Pointer(&countDropped))
		return
	}
	s.counted = append(s.counted, c)
	atomic.StorePointer(&c.count, unsafe.Pointer(&cell.count))
}

// makePerP makes P id a cell of c in s, unless it has one or the log is
// broken. aggMu is held.
func (c *Cell) makePerP(s *aggSet, id int) {
	if atomic.LoadPointer(&c.count) == unsafe.Pointer(&countDropped) {
		return
	}
	var cells []*aggCell
	if ps := (*cellsPerP)(atomic.LoadPointer(&c.perP)); ps != nil {
		if id < len(ps.cells) && ps.cells[id] != nil {
			return
		}
		cells = ps.cells
	}
	cell := c.newCell(s)
	if cell == nil {
		return
	}
	n := runtime.GOMAXPROCS(0)
	if n <= id {
		n = id + 1
	}
	if n < len(cells) {
		n = len(cells)
	}
	grown := &cellsPerP{cells: make([]*aggCell, n)}
	copy(grown.cells, cells)
	grown.cells[id] = cell
	atomic.StorePointer(&c.perP, unsafe.Pointer(grown))
}

// newCell makes a cell of c in s with its records, of an int count
// whose sum, minimum and maximum are 0, or returns nil. aggMu is held.
func (c *Cell) newCell(s *aggSet) *aggCell {
	if atomic.LoadInt32(&state) == stateBroken {
		return nil
	}
	cell := s.newCell(c.tables, c.group, logfmt.AggKindInt)
	if cell != nil {
		cell.min, cell.max = 0, 0 // before any addition: the cell is not published yet
	}
	return cell
}

func (c *aggCell) addInt(v int64) {
	c.setInt(v)
	atomic.AddUint64(&c.count, 1)
}

// setInt adds v to the sum, minimum and maximum; addInt counts it after.
func (c *aggCell) setInt(v int64) {
	atomic.AddUint64(&c.sum, uint64(v))
	for {
		old := atomic.LoadUint64(&c.min)
		if v >= int64(old) || atomic.CompareAndSwapUint64(&c.min, old, uint64(v)) {
			break
		}
	}
	for {
		old := atomic.LoadUint64(&c.max)
		if v <= int64(old) || atomic.CompareAndSwapUint64(&c.max, old, uint64(v)) {
			break
		}
	}
}

// addFloat adds v; a NaN makes the sum NaN and leaves min and max.
func (c *aggCell) addFloat(v float64) {
	for {
		old := atomic.LoadUint64(&c.sum)
		if atomic.CompareAndSwapUint64(&c.sum, old, math.Float64bits(math.Float64frombits(old)+v)) {
			break
		}
	}
	for {
		old := atomic.LoadUint64(&c.min)
		if !(v < math.Float64frombits(old)) || atomic.CompareAndSwapUint64(&c.min, old, math.Float64bits(v)) {
			break
		}
	}
	for {
		old := atomic.LoadUint64(&c.max)
		if !(v > math.Float64frombits(old)) || atomic.CompareAndSwapUint64(&c.max, old, math.Float64bits(v)) {
			break
		}
	}
	atomic.AddUint64(&c.count, 1)
}

// cellSlow finds the cell of (table, key) under aggMu, or makes it; it
// returns nil if it cannot be made.
func (s *aggSet) cellSlow(table uint16, key []byte, kind uint64) *aggCell {
	aggMu.Lock()
	defer aggMu.Unlock()
	return s.cellLocked(table, key, kind)
}

// cellLocked is cellSlow with aggMu held.
func (s *aggSet) cellLocked(table uint16, key []byte, kind uint64) *aggCell {
	t := s.table(table)
	if c := (*(*map[string]*aggCell)(atomic.LoadPointer(&t.read)))[string(key)]; c != nil {
		return c
	}
	if c := t.dirty[string(key)]; c != nil {
		t.miss()
		return c
	}
	if t.kind != 0 && t.kind != kind {
		return nil // a value of the other kind than the table's
	}
	c := s.newCell([]uint16{table}, key, kind)
	if c == nil {
		return nil
	}
	t.kind = kind
	if t.dirty == nil {
		read := *(*map[string]*aggCell)(atomic.LoadPointer(&t.read))
		t.dirty = make(map[string]*aggCell, 2*len(read)+1)
		for k, v := range read {
			t.dirty[k] = v
		}
	}
	t.dirty[string(key)] = c
	t.miss()
	return c
}

// miss counts a lookup that read missed, and makes dirty the new read
// once they are as many as its cells. aggMu is held.
func (t *aggTable) miss() {
	t.misses++
	if t.misses < len(t.dirty) {
		return
	}
	m := t.dirty
	atomic.StorePointer(&t.read, unsafe.Pointer(&m))
	t.dirty, t.misses = nil, 0
}

// table returns the cells of table, adding it if it is new. aggMu is
// held.
func (s *aggSet) table(table uint16) *aggTable {
	var ts []*aggTable
	if p := (*[]*aggTable)(atomic.LoadPointer(&s.tables)); p != nil {
		ts = *p
	}
	if int(table) < len(ts) && ts[table] != nil {
		return ts[table]
	}
	n := len(ts)
	if int(table) >= n {
		n = int(table) + 1
	}
	grown := make([]*aggTable, n)
	copy(grown, ts)
	empty := map[string]*aggCell{}
	t := &aggTable{read: unsafe.Pointer(&empty)}
	grown[table] = t
	atomic.StorePointer(&s.tables, unsafe.Pointer(&grown))
	return t
}

// newCell makes a cell for key in tables: it emits the cell's record in
// each table, then initializes the cell and stores its kind. It returns
// nil if the chunk or a record cannot be written. aggMu is held.
func (s *aggSet) newCell(tables []uint16, key []byte, kind uint64) *aggCell {
	if s.failed {
		return nil
	}
	if len(s.chunks) == 0 || s.used == logfmt.AggCellsPerChunk {
		ch, err := newAggChunk()
		if err != nil {
			s.failed = true
			std.mu.Lock()
			dir, _ := logDir(std.dir)
			std.mu.Unlock()
			stop(dir, err)
			return nil
		}
		s.chunks = append(s.chunks, ch)
		s.used = 0
	}
	ch := s.chunks[len(s.chunks)-1]
	for _, table := range tables {
		var r Rec
		r.Int(int64(ch.num*logfmt.AggCellsPerChunk + uint64(s.used)))
		r.AppendFields(key)
		if !emitCell(table, &r) {
			s.used++   // the number a record may name, never another cell's
			return nil // the log is broken
		}
	}
	c := ch.cell(s.used)
	s.used++
	if kind == logfmt.AggKindInt {
		c.min, c.max = math.MaxInt64, 1<<63 // MinInt64's bits
	} else {
		c.min, c.max = math.Float64bits(math.Inf(1)), math.Float64bits(math.Inf(-1))
	}
	atomic.StoreUint64(&c.kind, kind)
	return c
}

// emitCell is Emit, reporting whether the record was written.
func emitCell(table uint16, r *Rec) bool {
	r.Finish()
	body := r.Fields()
	size := logfmt.RoundRecord(logfmt.RecHeaderSize + len(body))
	seg, off := std.reserve(size)
	if seg == nil {
		return false
	}
	rec := seg.data[off : off+size]
	seg.begin(rec, size)
	logfmt.PutHeader(rec, table, logfmt.FormatFields)
	copy(rec[logfmt.RecHeaderSize:], body)
	seg.commit(rec, size)
	return true
}

// newAggChunk creates the next chunk file, maps it (or allocates its
// memory) and writes its header. aggMu is held.
func newAggChunk() (*aggChunk, error) {
	std.mu.Lock()
	override := std.dir
	std.mu.Unlock()
	dir, err := logDir(override)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0755); err != nil {
		return nil, err
	}
	ch := &aggChunk{num: aggChunks}
	name := fmt.Sprintf("%s-%04d%s", processFilePrefix(), ch.num, logfmt.AggFileSuffix)
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0644)
	if err != nil {
		return nil, err
	}
	if aggMapped {
		ch.data, err = mapFile(f, aggChunkSize)
		f.Close()
		if err == nil && uintptr(unsafe.Pointer(&ch.data[0]))%8 != 0 {
			err = errors.New("pmmrt: misaligned mapping") // never: mappings are page-aligned
		}
		if err != nil {
			os.Remove(f.Name())
			return nil, err
		}
		ch.words = (*[aggChunkSize / 8]uint64)(unsafe.Pointer(&ch.data[0]))[:]
	} else {
		ch.words = make([]uint64, aggChunkSize/8) // 8-byte aligned
		ch.data = (*[aggChunkSize]byte)(unsafe.Pointer(&ch.words[0]))[:]
		ch.file = f
	}
	aggChunks++
	logfmt.PutAggChunkHeader(ch.data, logfmt.AggChunkHeader{Chunk: ch.num, PID: int64(os.Getpid()), Start: processStart.UnixNano(), Process: processTag})
	return ch, nil
}

// flushAggs writes the cells that are not mapped to their files (Flush,
// Exit).
func flushAggs() {
	aggMu.Lock()
	defer aggMu.Unlock()
	(*aggSet)(atomic.LoadPointer(&aggCur)).flush()
}

// flush writes the chunks kept in memory: the header and the cells made,
// each word read atomically. aggMu is held.
func (s *aggSet) flush() {
	for i, ch := range s.chunks {
		if ch.file == nil {
			continue
		}
		n := logfmt.AggCellsPerChunk
		if i == len(s.chunks)-1 {
			n = s.used
		}
		buf := make([]byte, logfmt.AggHeaderSize+n*logfmt.AggCellSize)
		copy(buf, ch.data[:logfmt.AggHeaderSize])
		for w := logfmt.AggHeaderSize / 8; w < len(buf)/8; w++ {
			binary.LittleEndian.PutUint64(buf[8*w:], atomic.LoadUint64(&ch.words[w]))
		}
		if _, err := ch.file.WriteAt(buf, 0); err != nil {
			stop(filepath.Dir(ch.file.Name()), err)
		}
	}
}

// closeAggs ends the cells (Close): it writes those not mapped and closes
// their files; later additions make new cells, with new records, in new
// chunk files (in the log directory of that time), and the sites' Cells
// are made again in them at once. Mapped chunks stay
// mapped: an addition in flight may still write to its cell.
func closeAggs() {
	aggMu.Lock()
	defer aggMu.Unlock()
	s := (*aggSet)(atomic.LoadPointer(&aggCur))
	s.flush()
	for _, ch := range s.chunks {
		if ch.file != nil {
			ch.file.Close()
		}
	}
	next := &aggSet{}
	atomic.StorePointer(&aggCur, unsafe.Pointer(next))
	for _, c := range s.counted {
		c.make(next) // in new chunk files, with new records
	}
}
