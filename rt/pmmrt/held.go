package pmmrt

import (
	"encoding/binary"

	"pmm.dev/pmm/rt/logfmt"
)

// Held keeps the tuples of an execution whose part in an answer is not
// known when it ends: an earlier event of an inter-event test (seed
// 5.3.2), kept until a later event's test finds it, and forgotten with
// the state of the outermost execution that holds it (Algorithm 3) when
// none does. Its methods are Emit's; Release writes what it holds to the
// log. The zero Held is empty and ready.
type Held struct {
	b []byte // per tuple: table uint16, format byte, body length uint32, body
}

const heldHeader = 7

// Formats of held entries besides the record formats: an addition to an
// aggregate cell (AggInt, AggFloat), whose body is the value's bits, then
// the group's encoded fields.
const (
	heldAggInt   = 0x81
	heldAggFloat = 0x82
)

// Emit holds the tuple built in r, and resets r.
func (h *Held) Emit(table uint16, r *Rec) {
	r.Finish()
	h.put(table, logfmt.FormatFields, r.Fields())
	r.Reset()
}

// Emit2 holds a tuple of two int64 fields.
func (h *Held) Emit2(table uint16, a, b int64) {
	var body [16]byte
	logfmt.PutInt64(body[:], a)
	logfmt.PutInt64(body[8:], b)
	h.put(table, logfmt.FormatInt2, body[:])
}

// Emit3 holds a tuple of three int64 fields.
func (h *Held) Emit3(table uint16, a, b, c int64) {
	var body [24]byte
	logfmt.PutInt64(body[:], a)
	logfmt.PutInt64(body[8:], b)
	logfmt.PutInt64(body[16:], c)
	h.put(table, logfmt.FormatInt3, body[:])
}

func (h *Held) put(table uint16, format byte, body []byte) {
	var hdr [heldHeader]byte
	binary.LittleEndian.PutUint16(hdr[:], table)
	hdr[2] = format
	binary.LittleEndian.PutUint32(hdr[3:], uint32(len(body)))
	h.b = append(append(h.b, hdr[:]...), body...)
}

// MoveTo moves what h holds to the end of dst, and empties h: what an
// inner scope found needed, kept until the outer one knows.
func (h *Held) MoveTo(dst *Held) {
	dst.b = append(dst.b, h.b...)
	h.b = h.b[:0]
}

// Release writes the held tuples to the log and applies the held
// additions to aggregate cells, in the order they were held, and empties
// h.
func (h *Held) Release() {
	for b := h.b; len(b) >= heldHeader; {
		table := binary.LittleEndian.Uint16(b)
		format := b[2]
		n := int(binary.LittleEndian.Uint32(b[3:]))
		body := b[heldHeader : heldHeader+n]
		switch format {
		case logfmt.FormatFields:
			emitBody(table, body)
		case heldAggInt, heldAggFloat:
			releaseAgg(table, format, body)
		default:
			a := int64(binary.LittleEndian.Uint64(body))
			c := int64(0)
			if format == logfmt.FormatInt3 {
				c = int64(binary.LittleEndian.Uint64(body[16:]))
			}
			emitInts(&std, table, format, 0, a, int64(binary.LittleEndian.Uint64(body[8:])), c)
		}
		b = b[heldHeader+n:]
	}
	h.b = h.b[:0]
}
