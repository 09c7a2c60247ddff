// Package logfmt is the format of the files that an instrumented
// program's runtime (pmmrt) writes and pmm's loader (rt/load) reads: the
// log segments and their records (the layout, the encoder Rec, the
// decoder Scanner), the aggregate chunk files, the per-site counters and
// the stop files. It is the one definition of that format: pmm copies
// it into the user's module beside pmmrt (package rt), so it imports only
// the standard library and compiles as go 1.12.
package logfmt

import (
	"encoding/binary"
	"errors"
	"math"
)

// A log segment is a file of a fixed size: a header of SegHeaderSize
// bytes, then records, then zeros (never written). docs/RUNTIME.md has the
// layout; the offsets below are the authority.
const (
	SegMagic      = "PMMLOG1\n"
	SegHeaderSize = 512
	// Offsets of the header's fields.
	HdrMagic      = 0  // [8]byte SegMagic
	HdrHeaderSize = 8  // uint32
	HdrSize       = 16 // uint64: the file's size
	HdrPID        = 24 // int64
	HdrStart      = 32 // int64: the process's start, Unix nanoseconds
	HdrProcess    = 40 // uint64: random, tells apart processes with a reused pid
	HdrSeq        = 48 // uint32: the segment's number within its process, in order of use, from 0
	HdrProgramLen = 52 // uint32
	HdrEnd        = 56 // uint64: where the records end; 0 if the process died first
	HdrProgram    = 64 // os.Args[0], truncated to fit the header
)

// A record is a header of RecHeaderSize bytes and a body, padded with zeros
// to a multiple of 8 bytes (so that every record header is aligned for
// atomic access). Its first word is stored twice: the size alone as soon
// as the space is reserved, then the size with CommitBit once the record
// is complete. A reader skips a record without CommitBit (torn: its
// writer died before committing it), and a word that is still zero means
// the space was never written.
const (
	RecHeaderSize = 8
	CommitBit     = 1 << 31
	// Header offsets: [0:4] word, [4:6] table id, [6] format, [7] zero.
	RecTable  = 4
	RecFormat = 6
)

// Record body formats.
const (
	FormatFields = 1 // tagged fields (see the tag constants)
	FormatInt2   = 2 // two little-endian int64s: Emit2
	FormatInt3   = 3 // three little-endian int64s: Emit3
	// FormatExecPair is two tuples of one id in one record
	// (EmitExecPair): the header's table is the execution's table, its
	// byte 7 the second tuple's table less that one; the body is the id
	// (bits 0-39) with the site (bits 40-63), then the second's value.
	FormatExecPair = 4
	// FormatPoint is FormatExecPair without the id (EmitPoint): the
	// body is one word, the second tuple's value (bits 0-39) with the
	// site (bits 40-63). The Scanner gives the two tuples the record's
	// implied id (Scanner.Implied).
	FormatPoint = 5
	// formatUnpacked is not in logs: a record the Scanner made of one
	// half of a FormatExecPair record, two int64s held in the Record.
	formatUnpacked = 0x80
)

// The packed layout of FormatExecPair: the loader's process index
// takes the bits of an id from ProcessShift (40) up, so ids stay below.
const (
	PackedIDBits   = 40
	PackedSiteBits = 64 - PackedIDBits
	RecSecondTable = 7 // header offset: FormatExecPair's second table, less the first
)

// Field tags of FormatFields. A zero byte ends the fields (padding).
const (
	TagInt        = 1  // zigzag uvarint
	TagUint       = 2  // uvarint
	TagFloat      = 3  // 8 bytes, little-endian IEEE 754
	TagFalse      = 4  //
	TagTrue       = 5  //
	TagString     = 6  // uvarint length, bytes
	TagBytes      = 7  // uvarint length, bytes
	TagNull       = 8  //
	TagListBegin  = 9  //
	TagListEnd    = 10 //
	TagStringCut  = 11 // uvarint original length, uvarint kept length, kept bytes
	TagBytesCut   = 12 // same as TagStringCut
	TagFieldsLost = 13 // the record outgrew MaxRecord: later fields were dropped
)

// Limits on what one record holds.
const (
	// MaxString is the number of bytes of a string or []byte value that
	// is kept; a longer one is cut (at a UTF-8 boundary for a string) and
	// the loader appends the marker "…[truncated from N bytes]".
	MaxString = 4096
	// MaxRecord bounds the encoded fields of one record; fields beyond it
	// are dropped and the loader renders the loss as "…" in the list (or
	// NULL for a top-level field).
	MaxRecord = 1 << 20
)

func RoundRecord(n int) int { return (n + 7) &^ 7 }

func PutHeader(rec []byte, table uint16, format byte) {
	binary.LittleEndian.PutUint16(rec[RecTable:], table)
	rec[RecFormat] = format
}

func PutInt64(b []byte, v int64) { binary.LittleEndian.PutUint64(b, uint64(v)) }

// SegmentHeader describes one log segment file.
type SegmentHeader struct {
	PID     int64
	Start   int64  // the process's start, Unix nanoseconds
	Process uint64 // a random number drawn by the process at start
	Seq     uint32 // the segment's number within its process, in order of use, or UnusedSegment
	Size    uint64 // the file's size when it was created
	End     uint64 // where the records end if the segment was closed, else 0
	Program string // os.Args[0] of the process, possibly truncated
}

// UnusedSegment is the Seq of a segment that was prepared but never used:
// it holds no records.
const UnusedSegment = ^uint32(0)

// ErrNotSegment is returned by ParseSegment for data that does not start
// with a segment header (for instance a file whose creator died before
// writing it).
var ErrNotSegment = errors.New("logfmt: not a log segment")

// PutSegmentHeader writes h at the start of data (at least SegHeaderSize
// bytes), its program truncated to fit.
func PutSegmentHeader(data []byte, h SegmentHeader) {
	le := binary.LittleEndian
	copy(data[HdrMagic:], SegMagic)
	le.PutUint32(data[HdrHeaderSize:], SegHeaderSize)
	le.PutUint64(data[HdrSize:], h.Size)
	le.PutUint64(data[HdrPID:], uint64(h.PID))
	le.PutUint64(data[HdrStart:], uint64(h.Start))
	le.PutUint64(data[HdrProcess:], h.Process)
	le.PutUint32(data[HdrSeq:], h.Seq)
	le.PutUint64(data[HdrEnd:], h.End)
	n := copy(data[HdrProgram:SegHeaderSize], h.Program)
	le.PutUint32(data[HdrProgramLen:], uint32(n))
}

// ParseSegment parses the header of the segment held in data.
func ParseSegment(data []byte) (SegmentHeader, error) {
	var h SegmentHeader
	if len(data) < SegHeaderSize || string(data[:len(SegMagic)]) != SegMagic ||
		binary.LittleEndian.Uint32(data[HdrHeaderSize:]) != SegHeaderSize {
		return h, ErrNotSegment
	}
	le := binary.LittleEndian
	h.Size = le.Uint64(data[HdrSize:])
	h.PID = int64(le.Uint64(data[HdrPID:]))
	h.Start = int64(le.Uint64(data[HdrStart:]))
	h.Process = le.Uint64(data[HdrProcess:])
	h.Seq = le.Uint32(data[HdrSeq:])
	h.End = le.Uint64(data[HdrEnd:])
	n := int(le.Uint32(data[HdrProgramLen:]))
	if n > SegHeaderSize-HdrProgram {
		return h, ErrNotSegment
	}
	h.Program = string(data[HdrProgram : HdrProgram+n])
	return h, nil
}

// Scanner reads the committed records of one segment.
type Scanner struct {
	data  []byte
	pos   int
	limit int
	rec   Record
	// second is the second tuple of a FormatExecPair record, the next
	// record when pending.
	second  Record
	pending bool
	// Torn counts the records that were reserved but not committed: their
	// writer died (SIGKILL) while writing them.
	Torn int
	// Corrupt is set when the records end in something that is not a
	// record; the rest of the segment is skipped.
	Corrupt bool
	// Implied is the number of FormatPoint records of the process
	// before this one: the next such record's id is Implied -
	// 1<<PackedIDBits, a negative number no NextID id is. The caller
	// carries it from one segment of a process to the next, in their
	// order of use, so that the ids are distinct within the process.
	Implied int64
	// Unnumbered counts the FormatPoint records past the 2^40th of
	// their process, which have no distinct negative id left: skipped.
	Unnumbered int
}

// NewScanner returns a Scanner over the records of the segment in data,
// whose header ParseSegment accepted.
func NewScanner(data []byte, h SegmentHeader) *Scanner {
	limit := len(data)
	if h.End >= SegHeaderSize && h.End < uint64(limit) {
		limit = int(h.End)
	}
	return &Scanner{data: data, pos: SegHeaderSize, limit: limit}
}

// Next advances to the next committed record, reporting false at the end.
func (s *Scanner) Next() bool {
	if s.pending {
		s.pending = false
		s.rec = s.second
		return true
	}
	le := binary.LittleEndian
	for s.pos+RecHeaderSize <= s.limit {
		word := le.Uint32(s.data[s.pos:])
		if word == 0 {
			// Never written, or reserved by a writer that died before
			// storing the size: the next record, if any, is the next
			// nonzero word (a record's first word is never zero).
			next := s.pos + 8
			for next+8 <= s.limit && le.Uint64(s.data[next:]) == 0 {
				next += 8
			}
			if next+RecHeaderSize <= s.limit {
				s.Torn++
			}
			s.pos = next
			continue
		}
		size := int(word &^ CommitBit)
		if size < RecHeaderSize || size%8 != 0 || size > s.limit-s.pos {
			s.Corrupt = true
			s.pos = s.limit
			return false
		}
		at := s.pos
		s.pos += size
		if word&CommitBit == 0 {
			s.Torn++
			continue
		}
		s.rec = Record{
			Table:  le.Uint16(s.data[at+RecTable:]),
			format: s.data[at+RecFormat],
			body:   s.data[at+RecHeaderSize : at+size],
		}
		switch {
		case s.rec.format == FormatExecPair && len(s.rec.body) >= 16:
			packed := le.Uint64(s.rec.body)
			s.pair(at, int64(packed&(1<<PackedIDBits-1)), int64(packed>>PackedIDBits), int64(le.Uint64(s.rec.body[8:])))
		case s.rec.format == FormatPoint && len(s.rec.body) >= 8:
			if s.Implied >= 1<<PackedIDBits {
				s.Unnumbered++
				continue
			}
			packed := le.Uint64(s.rec.body)
			s.pair(at, s.Implied-1<<PackedIDBits, int64(packed>>PackedIDBits), int64(packed&(1<<PackedIDBits-1)))
			s.Implied++
		}
		return true
	}
	return false
}

// pair makes the current record, at offset at, the execution tuple
// (id, site) of a FormatExecPair or FormatPoint record, and its second
// tuple (id, v) the next.
func (s *Scanner) pair(at int, id, site, v int64) {
	s.second = Record{
		Table:  s.rec.Table + uint16(s.data[at+RecSecondTable]),
		format: formatUnpacked,
		ints:   [2]int64{id, v},
	}
	s.rec = Record{Table: s.rec.Table, format: formatUnpacked, ints: [2]int64{id, site}}
	s.pending = true
}

// Record returns the current record; it is valid until the next call of
// Next.
func (s *Scanner) Record() *Record { return &s.rec }

// Record is one committed record; its fields are read in order with
// NextField.
type Record struct {
	Table  uint16
	format byte
	body   []byte
	ints   [2]int64 // the fields of a formatUnpacked record
	pos    int
}

// Kind is the kind of a decoded field.
type Kind uint8

// Field kinds. A list is a ListBegin, its elements, and a ListEnd.
const (
	KindInt Kind = iota + 1
	KindUint
	KindFloat
	KindBool
	KindString
	KindBytes
	KindNull
	KindListBegin
	KindListEnd
	KindFieldsLost
)

// Field is one decoded field. Data aliases the segment.
type Field struct {
	Kind  Kind
	Int   int64   // KindInt; KindBool: 0 or 1
	Uint  uint64  // KindUint
	Float float64 // KindFloat
	Data  []byte  // KindString, KindBytes
	// Cut is the original length of a string or []byte value that was
	// truncated to MaxString bytes, else 0.
	Cut int
}

var errBadField = errors.New("logfmt: malformed field")

// NextField decodes the next field into f, reporting false after the
// last one.
func (r *Record) NextField(f *Field) (bool, error) {
	switch r.format {
	case FormatInt2, FormatInt3:
		if r.pos+8 > len(r.body) || r.pos >= 8*int(r.format) {
			return false, nil
		}
		*f = Field{Kind: KindInt, Int: int64(binary.LittleEndian.Uint64(r.body[r.pos:]))}
		r.pos += 8
		return true, nil
	case formatUnpacked:
		if r.pos >= len(r.ints) {
			return false, nil
		}
		*f = Field{Kind: KindInt, Int: r.ints[r.pos]}
		r.pos++
		return true, nil
	case FormatFields:
	default:
		return false, errBadField
	}
	if r.pos >= len(r.body) || r.body[r.pos] == 0 {
		return false, nil
	}
	tag := r.body[r.pos]
	r.pos++
	*f = Field{}
	switch tag {
	case TagInt:
		u, err := r.uvarint()
		f.Kind, f.Int = KindInt, int64(u>>1)^-int64(u&1)
		return err == nil, err
	case TagUint:
		u, err := r.uvarint()
		f.Kind, f.Uint = KindUint, u
		return err == nil, err
	case TagFloat:
		if r.pos+8 > len(r.body) {
			return false, errBadField
		}
		f.Kind, f.Float = KindFloat, math.Float64frombits(binary.LittleEndian.Uint64(r.body[r.pos:]))
		r.pos += 8
	case TagFalse, TagTrue:
		f.Kind = KindBool
		if tag == TagTrue {
			f.Int = 1
		}
	case TagString, TagBytes, TagStringCut, TagBytesCut:
		f.Kind = KindString
		if tag == TagBytes || tag == TagBytesCut {
			f.Kind = KindBytes
		}
		if tag == TagStringCut || tag == TagBytesCut {
			n, err := r.uvarint()
			if err != nil {
				return false, err
			}
			f.Cut = int(n)
		}
		n, err := r.uvarint()
		if err != nil || n > uint64(len(r.body)-r.pos) {
			return false, errBadField
		}
		f.Data = r.body[r.pos : r.pos+int(n)]
		r.pos += int(n)
	case TagNull:
		f.Kind = KindNull
	case TagListBegin:
		f.Kind = KindListBegin
	case TagListEnd:
		f.Kind = KindListEnd
	case TagFieldsLost:
		f.Kind = KindFieldsLost
	default:
		return false, errBadField
	}
	return true, nil
}

func (r *Record) uvarint() (uint64, error) {
	u, n := binary.Uvarint(r.body[r.pos:])
	if n <= 0 {
		return 0, errBadField
	}
	r.pos += n
	return u, nil
}
