package pmmrt

import (
	"encoding/binary"
	"errors"
	"math"
)

// A log segment is a file of a fixed size: a header of segHeaderSize
// bytes, then records, then zeros (never written). docs/RUNTIME.md has the
// layout; the offsets below are the authority.
const (
	segMagic      = "PMMLOG1\n"
	segHeaderSize = 512
	// Offsets of the header's fields.
	hdrMagic      = 0  // [8]byte segMagic
	hdrHeaderSize = 8  // uint32
	hdrSize       = 16 // uint64: the file's size
	hdrPID        = 24 // int64
	hdrStart      = 32 // int64: the process's start, Unix nanoseconds
	hdrProcess    = 40 // uint64: random, tells apart processes with a reused pid
	hdrSeq        = 48 // uint32: the segment's number within its process, in order of use, from 0
	hdrProgramLen = 52 // uint32
	hdrEnd        = 56 // uint64: where the records end; 0 if the process died first
	hdrProgram    = 64 // os.Args[0], truncated to fit the header
)

// A record is a header of headerSize bytes and a body, padded with zeros
// to a multiple of 8 bytes (so that every record header is aligned for
// atomic access). Its first word is stored twice: the size alone as soon
// as the space is reserved, then the size with commitBit once the record
// is complete. A reader skips a record without commitBit (torn: its
// writer died before committing it), and a word that is still zero means
// the space was never written.
const (
	headerSize = 8
	commitBit  = 1 << 31
	// Header offsets: [0:4] word, [4:6] table id, [6] format, [7] zero.
	recTable  = 4
	recFormat = 6
)

// Record body formats.
const (
	formatFields = 1 // tagged fields (see the tag constants)
	formatInt2   = 2 // two little-endian int64s: Emit2
	formatInt3   = 3 // three little-endian int64s: Emit3
	// formatExecPair is two tuples of one id in one record
	// (EmitExecPair): the header's table is the execution's table, its
	// byte 7 the second tuple's table less that one; the body is the id
	// (bits 0-39) with the site (bits 40-63), then the second's value.
	formatExecPair = 4
	// formatUnpacked is not in logs: a record the Scanner made of one
	// half of a formatExecPair record, two int64s held in the Record.
	formatUnpacked = 0x80
)

// The packed layout of formatExecPair: the loader's process index
// takes the bits of an id from ProcessShift (40) up, so ids stay below.
const (
	packedIDBits   = 40
	packedSiteBits = 64 - packedIDBits
	recSecondTable = 7 // header offset: formatExecPair's second table, less the first
)

// Field tags of formatFields. A zero byte ends the fields (padding).
const (
	tagInt        = 1  // zigzag uvarint
	tagUint       = 2  // uvarint
	tagFloat      = 3  // 8 bytes, little-endian IEEE 754
	tagFalse      = 4  //
	tagTrue       = 5  //
	tagString     = 6  // uvarint length, bytes
	tagBytes      = 7  // uvarint length, bytes
	tagNull       = 8  //
	tagListBegin  = 9  //
	tagListEnd    = 10 //
	tagStringCut  = 11 // uvarint original length, uvarint kept length, kept bytes
	tagBytesCut   = 12 // same as tagStringCut
	tagFieldsLost = 13 // the record outgrew MaxRecord: later fields were dropped
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

func roundRecord(n int) int { return (n + 7) &^ 7 }

func putHeader(rec []byte, table uint16, format byte) {
	binary.LittleEndian.PutUint16(rec[recTable:], table)
	rec[recFormat] = format
}

func putInt64(b []byte, v int64) { binary.LittleEndian.PutUint64(b, uint64(v)) }

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
var ErrNotSegment = errors.New("pmmrt: not a log segment")

// ParseSegment parses the header of the segment held in data.
func ParseSegment(data []byte) (SegmentHeader, error) {
	var h SegmentHeader
	if len(data) < segHeaderSize || string(data[:len(segMagic)]) != segMagic ||
		binary.LittleEndian.Uint32(data[hdrHeaderSize:]) != segHeaderSize {
		return h, ErrNotSegment
	}
	le := binary.LittleEndian
	h.Size = le.Uint64(data[hdrSize:])
	h.PID = int64(le.Uint64(data[hdrPID:]))
	h.Start = int64(le.Uint64(data[hdrStart:]))
	h.Process = le.Uint64(data[hdrProcess:])
	h.Seq = le.Uint32(data[hdrSeq:])
	h.End = le.Uint64(data[hdrEnd:])
	n := int(le.Uint32(data[hdrProgramLen:]))
	if n > segHeaderSize-hdrProgram {
		return h, ErrNotSegment
	}
	h.Program = string(data[hdrProgram : hdrProgram+n])
	return h, nil
}

// Scanner reads the committed records of one segment.
type Scanner struct {
	data  []byte
	pos   int
	limit int
	rec   Record
	// second is the second tuple of a formatExecPair record, the next
	// record when pending.
	second  Record
	pending bool
	// Torn counts the records that were reserved but not committed: their
	// writer died (SIGKILL) while writing them.
	Torn int
	// Corrupt is set when the records end in something that is not a
	// record; the rest of the segment is skipped.
	Corrupt bool
}

// NewScanner returns a Scanner over the records of the segment in data,
// whose header ParseSegment accepted.
func NewScanner(data []byte, h SegmentHeader) *Scanner {
	limit := len(data)
	if h.End >= segHeaderSize && h.End < uint64(limit) {
		limit = int(h.End)
	}
	return &Scanner{data: data, pos: segHeaderSize, limit: limit}
}

// Next advances to the next committed record, reporting false at the end.
func (s *Scanner) Next() bool {
	if s.pending {
		s.pending = false
		s.rec = s.second
		return true
	}
	le := binary.LittleEndian
	for s.pos+headerSize <= s.limit {
		word := le.Uint32(s.data[s.pos:])
		if word == 0 {
			// Never written, or reserved by a writer that died before
			// storing the size: the next record, if any, is the next
			// nonzero word (a record's first word is never zero).
			next := s.pos + 8
			for next+8 <= s.limit && le.Uint64(s.data[next:]) == 0 {
				next += 8
			}
			if next+headerSize <= s.limit {
				s.Torn++
			}
			s.pos = next
			continue
		}
		size := int(word &^ commitBit)
		if size < headerSize || size%8 != 0 || size > s.limit-s.pos {
			s.Corrupt = true
			s.pos = s.limit
			return false
		}
		at := s.pos
		s.pos += size
		if word&commitBit == 0 {
			s.Torn++
			continue
		}
		s.rec = Record{
			Table:  le.Uint16(s.data[at+recTable:]),
			format: s.data[at+recFormat],
			body:   s.data[at+headerSize : at+size],
		}
		if s.rec.format == formatExecPair && len(s.rec.body) >= 16 {
			// Two tuples: the execution's now, the second at the next call.
			packed := le.Uint64(s.rec.body)
			id := int64(packed & (1<<packedIDBits - 1))
			s.second = Record{
				Table:  s.rec.Table + uint16(s.data[at+recSecondTable]),
				format: formatUnpacked,
				ints:   [2]int64{id, int64(le.Uint64(s.rec.body[8:]))},
			}
			s.rec = Record{Table: s.rec.Table, format: formatUnpacked, ints: [2]int64{id, int64(packed >> packedIDBits)}}
			s.pending = true
		}
		return true
	}
	return false
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

var errBadField = errors.New("pmmrt: malformed field")

// NextField decodes the next field into f, reporting false after the
// last one.
func (r *Record) NextField(f *Field) (bool, error) {
	switch r.format {
	case formatInt2, formatInt3:
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
	case formatFields:
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
	case tagInt:
		u, err := r.uvarint()
		f.Kind, f.Int = KindInt, int64(u>>1)^-int64(u&1)
		return err == nil, err
	case tagUint:
		u, err := r.uvarint()
		f.Kind, f.Uint = KindUint, u
		return err == nil, err
	case tagFloat:
		if r.pos+8 > len(r.body) {
			return false, errBadField
		}
		f.Kind, f.Float = KindFloat, math.Float64frombits(binary.LittleEndian.Uint64(r.body[r.pos:]))
		r.pos += 8
	case tagFalse, tagTrue:
		f.Kind = KindBool
		if tag == tagTrue {
			f.Int = 1
		}
	case tagString, tagBytes, tagStringCut, tagBytesCut:
		f.Kind = KindString
		if tag == tagBytes || tag == tagBytesCut {
			f.Kind = KindBytes
		}
		if tag == tagStringCut || tag == tagBytesCut {
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
	case tagNull:
		f.Kind = KindNull
	case tagListBegin:
		f.Kind = KindListBegin
	case tagListEnd:
		f.Kind = KindListEnd
	case tagFieldsLost:
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
