package logfmt

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Rec encodes the fields of one record (the body of a FormatFields
// record) without allocating: the fields are encoded into an array
// inside Rec, and only a record larger than that array spills into a
// slice. The runtime names it pmmrt.Rec: declare one as a local variable
// (var r pmmrt.Rec), add the fields in column order, and pass it to
// pmmrt.Emit, which resets it.
type Rec struct {
	n       int // bytes encoded
	inline  [240]byte
	spill   []byte // holds all n bytes when spilled
	spilled bool
	depth   int  // lists open
	lost    bool // the record outgrew MaxRecord: later fields are dropped
	lostAt  int  // depth at which fields began to be dropped
}

// Reset empties r.
func (r *Rec) Reset() {
	r.n, r.spilled, r.depth, r.lost, r.lostAt = 0, false, 0, false, 0
}

// room returns space for k more bytes at r.n, or nil once the record has
// outgrown MaxRecord (the field is then dropped).
func (r *Rec) room(k int) []byte {
	if r.lost {
		return nil
	}
	if r.n+k > MaxRecord {
		r.lost, r.lostAt = true, r.depth
		r.unchecked(TagFieldsLost)
		return nil
	}
	if !r.spilled {
		if r.n+k <= len(r.inline) {
			return r.inline[r.n:]
		}
		r.spill = append(r.spill[:0], r.inline[:r.n]...)
		r.spilled = true
	}
	if r.n+k > len(r.spill) {
		grown := make([]byte, 2*(r.n+k))
		copy(grown, r.spill[:r.n])
		r.spill = grown
	}
	return r.spill[r.n:]
}

// unchecked appends a tag whatever the size: used only for the bounded
// closing tags of a record that outgrew MaxRecord.
func (r *Rec) unchecked(tag byte) {
	if !r.spilled {
		if r.n < len(r.inline) {
			r.inline[r.n] = tag
			r.n++
			return
		}
		r.spill = append(r.spill[:0], r.inline[:r.n]...)
		r.spilled = true
	}
	r.spill = append(r.spill[:r.n], tag)
	r.spill = r.spill[:cap(r.spill)]
	r.n++
}

// Fields returns the encoded fields: a record's body in FormatFields.
func (r *Rec) Fields() []byte {
	if r.spilled {
		return r.spill[:r.n]
	}
	return r.inline[:r.n]
}

// Encoded returns the fields encoded so far, the lists left open ended:
// the key under which pmm's run-time tests find equal values.
func (r *Rec) Encoded() []byte {
	r.Finish()
	return r.Fields()
}

// AppendFields appends fields encoded by another Rec (its Fields).
func (r *Rec) AppendFields(b []byte) {
	if dst := r.room(len(b)); dst != nil {
		r.n += copy(dst, b)
	}
}

// Finish ends the lists left open, so that the record always decodes.
func (r *Rec) Finish() {
	for ; r.depth > 0; r.depth-- {
		if !r.lost || r.depth <= r.lostAt { // else its ListBegin was dropped
			r.unchecked(TagListEnd)
		}
	}
}

func (r *Rec) uvarint(tag byte, u uint64) {
	b := r.room(1 + binary.MaxVarintLen64)
	if b == nil {
		return
	}
	b[0] = tag
	r.n += 1 + binary.PutUvarint(b[1:], u)
}

func (r *Rec) tag(tag byte) {
	if b := r.room(1); b != nil {
		b[0] = tag
		r.n++
	}
}

// Int adds an integer field.
func (r *Rec) Int(v int64) { r.uvarint(TagInt, uint64(v<<1)^uint64(v>>63)) }

// Uint adds an unsigned integer field. The loader stores values above
// 1<<63-1 as REAL (SQLite integers are signed).
func (r *Rec) Uint(v uint64) { r.uvarint(TagUint, v) }

// Float adds a floating-point field.
func (r *Rec) Float(v float64) {
	b := r.room(9)
	if b == nil {
		return
	}
	b[0] = TagFloat
	binary.LittleEndian.PutUint64(b[1:], math.Float64bits(v))
	r.n += 9
}

// Bool adds a boolean field (stored as 0 or 1).
func (r *Rec) Bool(v bool) {
	if v {
		r.tag(TagTrue)
	} else {
		r.tag(TagFalse)
	}
}

// Null adds a NULL field (a nil pointer, interface, slice, map...).
func (r *Rec) Null() { r.tag(TagNull) }

// Str adds a string field. Only the first MaxString bytes of a longer
// string are kept (cut at a UTF-8 boundary); the loader marks the cut.
func (r *Rec) Str(v string) {
	tag, cut := byte(TagString), 0
	if len(v) > MaxString {
		keep := MaxString
		for keep > MaxString-utf8.UTFMax && !utf8.RuneStart(v[keep]) {
			keep--
		}
		tag, cut, v = TagStringCut, len(v), v[:keep]
	}
	if b := r.data(tag, len(v), cut); b != nil {
		r.n += copy(b, v)
	}
}

// Bytes adds a []byte field (a BLOB). Only the first MaxString bytes are
// kept.
func (r *Rec) Bytes(v []byte) {
	if v == nil {
		r.Null()
		return
	}
	tag, cut := byte(TagBytes), 0
	if len(v) > MaxString {
		tag, cut, v = TagBytesCut, len(v), v[:MaxString]
	}
	if b := r.data(tag, len(v), cut); b != nil {
		r.n += copy(b, v)
	}
}

// data encodes the tag and lengths of a string or []byte field and
// returns the space for its length bytes, which the caller copies in and
// counts.
func (r *Rec) data(tag byte, length, cut int) []byte {
	b := r.room(1 + 2*binary.MaxVarintLen64 + length)
	if b == nil {
		return nil
	}
	b[0] = tag
	n := 1
	if cut > 0 {
		n += binary.PutUvarint(b[n:], uint64(cut))
	}
	n += binary.PutUvarint(b[n:], uint64(length))
	r.n += n
	return b[n:]
}

// ListBegin starts a list field (the parameters or results of a call):
// the fields added up to the matching ListEnd are its elements. The
// loader stores a list as canonical JSON-like text, e.g. [1,"a",true], so
// that SQL can compare two lists with =.
func (r *Rec) ListBegin() {
	r.depth++
	r.tag(TagListBegin)
}

// ListEnd ends the innermost open list.
func (r *Rec) ListEnd() {
	if r.depth == 0 {
		return
	}
	r.depth--
	if r.lost && r.depth < r.lostAt {
		// The list began before fields were dropped: end it.
		r.unchecked(TagListEnd)
		return
	}
	r.tag(TagListEnd)
}

// Value adds a field of any type; it is the slow path, for values whose
// type the generated code does not know. Basic kinds (also named ones,
// such as time.Duration) are stored as such; nil as NULL; an error or a
// fmt.Stringer as its text when its method may be called (textMethod);
// a pointer, map, channel or function by its address; anything else as
// %v prints it, without reading what it refers to (formatShallow).
func (r *Rec) Value(v interface{}) {
	switch x := v.(type) {
	case nil:
		r.Null()
	case int:
		r.Int(int64(x))
	case int64:
		r.Int(x)
	case int32:
		r.Int(int64(x))
	case int16:
		r.Int(int64(x))
	case int8:
		r.Int(int64(x))
	case uint:
		r.Uint(uint64(x))
	case uint64:
		r.Uint(x)
	case uint32:
		r.Uint(uint64(x))
	case uint16:
		r.Uint(uint64(x))
	case uint8:
		r.Uint(uint64(x))
	case uintptr:
		r.Uint(uint64(x))
	case float64:
		r.Float(x)
	case float32:
		r.Float(float64(x))
	case bool:
		r.Bool(x)
	case string:
		r.Str(x)
	case []byte:
		r.Bytes(x)
	case time.Duration:
		r.Int(int64(x))
	case error, fmt.Stringer:
		if textMethod(reflect.TypeOf(v)) {
			r.Str(fmt.Sprint(x)) // fmt recovers from a method panicking on a nil receiver
			return
		}
		r.reflectValue(v)
	default:
		r.reflectValue(v)
	}
}

// The module's types whose text methods Value may call: SetTextMethods.
var (
	textModule string
	textTypes  map[string]bool
)

// SetTextMethods says which methods Value may call: those of types
// outside module, and of types of module whose names are in types (as
// reflect names them: "example.com/m/pkg.T", "*main.E"), whose methods
// static analysis found free of effects (static.db's text_methods).
// Methods of other types of the module are never called: they may
// count their calls, log, or take a lock the caller holds. Until it is
// called, every method may be.
func SetTextMethods(module string, types []string) {
	textModule = module
	textTypes = make(map[string]bool, len(types))
	for _, t := range types {
		textTypes[t] = true
	}
}

// textMethod reports whether Value may call the Error, String or Format
// method by which fmt prints a value of dynamic type t.
func textMethod(t reflect.Type) bool {
	if textModule == "" {
		return true
	}
	named, prefix := t, ""
	if t.Kind() == reflect.Ptr && t.Name() == "" {
		named, prefix = t.Elem(), "*"
	}
	pkg := named.PkgPath()
	if pkg == "" {
		return false // a type literal whose methods are promoted from fields: of which type is not known here
	}
	if in := strings.TrimSuffix(pkg, "_test"); pkg != "main" && in != textModule && !strings.HasPrefix(in, textModule+"/") {
		return true
	}
	return textTypes[prefix+pkg+"."+named.Name()]
}

var (
	stringerType  = reflect.TypeOf((*fmt.Stringer)(nil)).Elem()
	errorType     = reflect.TypeOf((*error)(nil)).Elem()
	formatterType = reflect.TypeOf((*fmt.Formatter)(nil)).Elem()
)

// printedByMethod reports whether fmt prints a value of type t by a
// method.
func printedByMethod(t reflect.Type) bool {
	return t.Implements(errorType) || t.Implements(stringerType) || t.Implements(formatterType)
}

// reflectValue stores values of named basic types by their kind.
func (r *Rec) reflectValue(v interface{}) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		r.Int(rv.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		r.Uint(rv.Uint())
	case reflect.Float32, reflect.Float64:
		r.Float(rv.Float())
	case reflect.Bool:
		r.Bool(rv.Bool())
	case reflect.String:
		r.Str(rv.String())
	case reflect.Ptr, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		// By identity, as Go's == compares them (a map, as a map key
		// would be if it could): what they point to may be written by
		// other goroutines while the site records (a data race, and for
		// a map a fatal concurrent read).
		if rv.IsNil() {
			r.Null()
			return
		}
		r.Str(fmt.Sprintf("%p", v))
	case reflect.Slice:
		// By identity too: its elements may be written by other
		// goroutines (workers filling a shared slice) while the site
		// records.
		if rv.IsNil() {
			r.Null()
			return
		}
		r.Str(fmt.Sprintf("%p len %d", v, rv.Len()))
	default:
		var b strings.Builder
		formatShallow(&b, rv, 0)
		r.Str(b.String())
	}
}

// holdsReferences reports whether a value of type t may refer to memory
// other goroutines write (a pointer, slice, map, channel, function or
// interface inside it): %v would read through it.
func holdsReferences(t reflect.Type, depth int) bool {
	if depth > 8 {
		return true
	}
	switch t.Kind() {
	case reflect.Array:
		return holdsReferences(t.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if holdsReferences(t.Field(i).Type, depth+1) {
				return true
			}
		}
		return false
	case reflect.Ptr, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return true
	}
	return false
}

// formatShallow writes rv as %v would, but a pointer, map, channel or
// function by its address and a slice by its address and length, never
// reading what they refer to (fields of interfaces are followed to the
// value they hold, which the record's copy owns or refers to likewise).
// A part (depth > 0) that refers to nothing and that fmt prints by a
// method is printed by it, as %v does, where textMethod allows.
func formatShallow(b *strings.Builder, rv reflect.Value, depth int) {
	if depth > 0 && rv.IsValid() && rv.CanInterface() && printedByMethod(rv.Type()) && !holdsReferences(rv.Type(), 0) && textMethod(rv.Type()) {
		fmt.Fprint(b, rv.Interface())
		return
	}
	switch rv.Kind() {
	case reflect.Invalid:
		b.WriteString("<nil>")
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(rv.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(rv.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(rv.Uint(), 10))
	case reflect.Float32:
		b.WriteString(strconv.FormatFloat(rv.Float(), 'g', -1, 32))
	case reflect.Float64:
		b.WriteString(strconv.FormatFloat(rv.Float(), 'g', -1, 64))
	case reflect.Complex64:
		b.WriteString(strconv.FormatComplex(rv.Complex(), 'g', -1, 64))
	case reflect.Complex128:
		b.WriteString(strconv.FormatComplex(rv.Complex(), 'g', -1, 128))
	case reflect.String:
		b.WriteString(rv.String())
	case reflect.Ptr, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		if rv.IsNil() {
			b.WriteString("<nil>")
			return
		}
		fmt.Fprintf(b, "0x%x", rv.Pointer())
	case reflect.Slice:
		if rv.IsNil() {
			b.WriteString("[]")
			return
		}
		fmt.Fprintf(b, "0x%x len %d", rv.Pointer(), rv.Len())
	case reflect.Interface:
		formatShallow(b, rv.Elem(), depth+1)
	case reflect.Array:
		formatEach(b, "[]", rv.Len(), depth, rv.Index)
	case reflect.Struct:
		formatEach(b, "{}", rv.NumField(), depth, rv.Field)
	}
}

// formatEach writes the n parts of an array or struct, part(i) each,
// between the two brackets.
func formatEach(b *strings.Builder, brackets string, n, depth int, part func(int) reflect.Value) {
	b.WriteByte(brackets[0])
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		formatShallow(b, part(i), depth+1)
	}
	b.WriteByte(brackets[1])
}
