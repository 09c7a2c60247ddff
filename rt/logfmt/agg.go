package logfmt

import (
	"encoding/binary"
	"errors"
)

// Aggregate chunk files (the runtime's cells, see pmmrt's AggInt): a
// header of AggHeaderSize bytes, then AggCellsPerChunk cells of
// AggCellSize bytes, each five little-endian words (kind, count, sum,
// min, max).

// AggMagic starts an aggregate chunk file.
const AggMagic = "PMMAGG01"

// The layout of a chunk file, little-endian.
const (
	AggHeaderSize    = 64   // the header: see the AggHdr offsets
	AggCellSize      = 64   // a cell's five words, padded to a cache line
	AggCellsPerChunk = 4096 // cells in a chunk file
	AggFileSuffix    = ".pmmagg"

	// Offsets of the header's fields, after the magic.
	AggHdrCells    = 8  // uint64: AggCellsPerChunk
	AggHdrCellSize = 16 // uint64: AggCellSize
	AggHdrChunk    = 24 // uint64: the chunk's number, from 0
	AggHdrPID      = 32 // int64
	AggHdrStart    = 40 // int64: the process's start, Unix ns (as in the segments)
	AggHdrProcess  = 48 // uint64: the process's random tag (as in the segments)

	// Offsets of a cell's words.
	AggCellKind  = 0
	AggCellCount = 8
	AggCellSum   = 16
	AggCellMin   = 24
	AggCellMax   = 32
)

// Cell kinds, the first word of a cell; 0 is a cell not (yet) made.
const (
	AggKindInt   = 1 // sum, min, max are int64
	AggKindFloat = 2 // sum, min, max are float64 bits
)

// AggChunkHeader describes an aggregate chunk file.
type AggChunkHeader struct {
	Chunk   uint64 // the chunk's number within its process
	PID     int64
	Start   int64  // the process's start, Unix nanoseconds
	Process uint64 // the process's random tag
	Cells   int    // the cells the data holds (fewer than AggCellsPerChunk if it was cut short)
}

// ErrNotAggChunk is returned by ParseAggChunk for data that does not
// start with a chunk header (a file whose creator died before writing it).
var ErrNotAggChunk = errors.New("logfmt: not an aggregate chunk")

// PutAggChunkHeader writes the header of a chunk file at the start of
// data (at least AggHeaderSize bytes); h.Cells is not stored (the size of
// the file says it).
func PutAggChunkHeader(data []byte, h AggChunkHeader) {
	le := binary.LittleEndian
	copy(data, AggMagic)
	le.PutUint64(data[AggHdrCells:], AggCellsPerChunk)
	le.PutUint64(data[AggHdrCellSize:], AggCellSize)
	le.PutUint64(data[AggHdrChunk:], h.Chunk)
	le.PutUint64(data[AggHdrPID:], uint64(h.PID))
	le.PutUint64(data[AggHdrStart:], uint64(h.Start))
	le.PutUint64(data[AggHdrProcess:], h.Process)
}

// ParseAggChunk parses the header of the chunk file held in data.
func ParseAggChunk(data []byte) (AggChunkHeader, error) {
	var h AggChunkHeader
	le := binary.LittleEndian
	if len(data) < AggHeaderSize || string(data[:len(AggMagic)]) != AggMagic ||
		le.Uint64(data[AggHdrCells:]) != AggCellsPerChunk || le.Uint64(data[AggHdrCellSize:]) != AggCellSize {
		return h, ErrNotAggChunk
	}
	h.Chunk = le.Uint64(data[AggHdrChunk:])
	h.PID = int64(le.Uint64(data[AggHdrPID:]))
	h.Start = int64(le.Uint64(data[AggHdrStart:]))
	h.Process = le.Uint64(data[AggHdrProcess:])
	h.Cells = (len(data) - AggHeaderSize) / AggCellSize
	if h.Cells > AggCellsPerChunk {
		h.Cells = AggCellsPerChunk
	}
	return h, nil
}

// AggCell is the content of a cell as read from a chunk file.
type AggCell struct {
	Kind          uint64 // AggKindInt, AggKindFloat, or 0: not made
	Count         uint64
	Sum, Min, Max uint64 // int64 or float64 bits, by Kind
	Number        int64  // the cell's number within its process
}

// ReadAggCell returns cell i (below h.Cells) of the chunk in data.
func ReadAggCell(data []byte, h AggChunkHeader, i int) AggCell {
	le := binary.LittleEndian
	w := data[AggHeaderSize+i*AggCellSize:]
	return AggCell{
		Kind:   le.Uint64(w[AggCellKind:]),
		Count:  le.Uint64(w[AggCellCount:]),
		Sum:    le.Uint64(w[AggCellSum:]),
		Min:    le.Uint64(w[AggCellMin:]),
		Max:    le.Uint64(w[AggCellMax:]),
		Number: int64(h.Chunk*AggCellsPerChunk) + int64(i),
	}
}
