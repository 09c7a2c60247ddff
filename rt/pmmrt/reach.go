package pmmrt

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"unsafe"

	"pmm.dev/pmm/rt/logfmt"
)

// Heap walks: the objects and bytes reachable from a value at a point
// (the attributes reachable-objects and reachable-bytes; docs/MEMORY.md,
// "Heap structures", defines what an object is and what is walked).
//
// A walk follows the references of the value: a pointer's target (one
// object of the pointer's element type, by address and type), a slice's
// backing array from its first element (one object of cap elements; its
// elements up to len are walked), a map (one object: its entries' keys
// and values, walked), a string's bytes (one object), an interface's
// dynamic value (walked; a value boxed by value is no object of its own:
// reflection does not give the box's address). Each object is counted
// once per walk, so sharing and cycles are handled. A walk reads
// unexported fields too. It does not see through a channel (its buffer
// is not readable without receiving), a function value (its captured
// variables) or an unsafe.Pointer (its target's type is unknown): a walk
// that meets a non-nil one it would have to follow says so (a note file
// the loader turns into an incomplete answer of the questions that ask
// for that walk) and counts what it saw.
//
// A membership type M (a named type, written as its package path, a dot
// and its name: "main.Node") limits the walk to the structure of M: the
// root is always looked into (a pointer's target, a slice's elements, an
// interface's value), and from there only references whose direct
// targets are M or *M values are followed: pointers *M, slices and maps
// of M or *M, interfaces holding one. The objects counted are the M
// values reached through a pointer or in a slice's backing array. So a
// list's nodes are the main.Node values reachable through its *main.Node
// pointers, not the other lists' nodes nor the nodes' payloads.

// ReachAll is the membership type of a walk of everything reachable.
const ReachAll = "*"

// ReachObjects returns the number of objects reachable from root whose
// type is member (every object for ReachAll); key names the walk
// (spec.WalkKey) in the note of an incomplete one.
func ReachObjects(root interface{}, member, key string) int64 {
	objects, _ := reach(root, member, key)
	return objects
}

// ReachBytes returns the sum of the sizes (unsafe.Sizeof of their types,
// a slice's capacity times its element's size, a string's length, a
// map's entries' keys and values) of the objects ReachObjects counts.
func ReachBytes(root interface{}, member, key string) int64 {
	_, bytes := reach(root, member, key)
	return bytes
}

// Reach returns what ReachObjects and ReachBytes return, in one walk.
func Reach(root interface{}, member, key string) (objects, bytes int64) {
	return reach(root, member, key)
}

// reachKey identifies an object: its address and type, and a slice's
// capacity (a string's length): two slices of one array with different
// capacities are two objects, as a pointer to an object's field is an
// object of the field's type (reflection cannot tell an interior
// pointer from a pointer to an object of its own).
type reachKey struct {
	addr uintptr
	t    uintptr // typeID
	n    int
}

// typeID identifies a type by its descriptor's address: a key of
// scalars hashes several times faster than one holding an interface.
func typeID(t reflect.Type) uintptr {
	if t == nil {
		return 0
	}
	return uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&t))[1])
}

// reachWalk is one walk's state, reused through walks (walkPool): its
// memos of which types lead to members stay while the membership type is
// the same.
type reachWalk struct {
	member string
	all    bool
	// seen holds the objects of this walk: those whose value is gen.
	// Walks do not clear it (that costs a deletion per object): each
	// takes the next gen.
	seen       map[reachKey]uint32
	gen        uint32
	stack      []pending
	objects    int64
	bytes      int64
	incomplete string
	infoMemo   map[uintptr]*typeInfo // by typeID
	memberMemo map[uintptr]bool
}

var walkPool = sync.Pool{New: func() interface{} {
	return &reachWalk{seen: make(map[reachKey]uint32)}
}}

// maxKeptSeen bounds the visited set a pooled walker keeps between walks.
const maxKeptSeen = 1 << 12

func reach(root interface{}, member, key string) (objects, bytes int64) {
	w := walkPool.Get().(*reachWalk)
	if w.infoMemo == nil || w.member != member {
		w.infoMemo = make(map[uintptr]*typeInfo)
		w.memberMemo = make(map[uintptr]bool)
	}
	w.gen++
	if w.gen == 0 || len(w.seen) > maxKeptSeen {
		w.seen = make(map[reachKey]uint32)
		w.gen = 1
	}
	w.member, w.all = member, member == ReachAll
	w.root(reflect.ValueOf(root))
	for len(w.stack) > 0 {
		p := w.stack[len(w.stack)-1]
		w.stack[len(w.stack)-1] = pending{} // hold no object of the program past the walk
		w.stack = w.stack[:len(w.stack)-1]
		w.walkValue(p.v, p.info)
	}
	objects, bytes = w.objects, w.bytes
	if w.incomplete != "" {
		noteIncomplete(key, w.incomplete)
	}
	w.objects, w.bytes, w.incomplete = 0, 0, ""
	walkPool.Put(w)
	return objects, bytes
}

// root looks into the walk's root value: whatever its type, a pointer's
// target, a slice's array, a map and an interface's value are walked.
func (w *reachWalk) root(v reflect.Value) {
	if !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Ptr:
		if !v.IsNil() {
			w.object(v)
		}
	case reflect.Interface:
		if !v.IsNil() {
			w.root(v.Elem())
		}
	case reflect.Slice:
		w.slice(v, true)
	case reflect.Map:
		w.mapOf(v, true)
	default:
		w.inline(v)
	}
}

// inline walks the references held in v's own memory: its fields, its
// elements, the reference it is.
func (w *reachWalk) inline(v reflect.Value) {
	if ti := w.info(v.Type()); ti.leads {
		w.walkValue(v, ti)
	}
}

// walkValue walks v, of a type that leads (ti).
func (w *reachWalk) walkValue(v reflect.Value, ti *typeInfo) {
	switch v.Kind() {
	case reflect.Ptr:
		if !v.IsNil() {
			w.object(v)
		}
	case reflect.Struct:
		for _, f := range ti.fields {
			w.walkValue(v.Field(f.index), f.info)
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			w.walkValue(v.Index(i), ti.elem)
		}
	case reflect.Slice:
		w.slice(v, false)
	case reflect.Map:
		w.mapOf(v, false)
	case reflect.Interface:
		if !v.IsNil() {
			if e := v.Elem(); w.all || w.memberOrPtr(e.Type()) {
				w.inline(e)
			}
		}
	case reflect.String:
		if s := v.String(); len(s) > 0 {
			w.count(reachKey{uintptr((*stringHeader)(unsafe.Pointer(&s)).data), 0, len(s)}, uintptr(len(s)))
		}
	case reflect.Chan:
		if !v.IsNil() {
			w.incomplete = "a channel (its buffer is not walked)"
		}
	case reflect.Func:
		if !v.IsNil() {
			w.incomplete = "a function value (its captured variables are not walked)"
		}
	case reflect.UnsafePointer:
		if v.Pointer() != 0 {
			w.incomplete = "an unsafe.Pointer (its target's type is unknown)"
		}
	}
}

// stringHeader is a string's layout.
type stringHeader struct {
	data unsafe.Pointer
	len  int
}

// object counts the target of pointer p, when it is an object of the
// walk, and walks it once.
func (w *reachWalk) object(p reflect.Value) {
	e := p.Type().Elem()
	size := e.Size()
	if size == 0 {
		return // zero-size values share one address: no object
	}
	if !w.first(reachKey{p.Pointer(), typeID(e), 0}) {
		return
	}
	if w.all || w.isMember(e) {
		w.objects++
		w.bytes += int64(size)
	}
	if ti := w.info(e); ti.leads {
		w.stack = append(w.stack, pending{p.Elem(), ti})
	}
}

// pending is an object the walk has yet to look into, and its type's
// info.
type pending struct {
	v    reflect.Value
	info *typeInfo
}

// first reports whether object k is met for the first time in this
// walk, and marks it met.
func (w *reachWalk) first(k reachKey) bool {
	if w.seen[k] == w.gen {
		return false
	}
	w.seen[k] = w.gen
	return true
}

// count counts object k of size bytes once.
func (w *reachWalk) count(k reachKey, size uintptr) bool {
	if !w.first(k) {
		return false
	}
	w.objects++
	w.bytes += int64(size)
	return true
}

// slice walks slice v's backing array: one object of its capacity for a
// walk of everything, each element for a slice of members.
func (w *reachWalk) slice(v reflect.Value, root bool) {
	if v.IsNil() || v.Cap() == 0 {
		return
	}
	e := v.Type().Elem()
	size := e.Size()
	switch {
	case w.all:
		if size == 0 || !w.count(reachKey{v.Pointer(), typeID(e), v.Cap()}, uintptr(v.Cap())*size) {
			return
		}
	case w.isMember(e):
		if size == 0 {
			return
		}
		base, id, ti := v.Pointer(), typeID(e), w.info(e)
		for i := 0; i < v.Len(); i++ {
			if !w.first(reachKey{base + uintptr(i)*size, id, 0}) {
				continue
			}
			w.objects++
			w.bytes += int64(size)
			if ti.leads {
				w.stack = append(w.stack, pending{v.Index(i), ti})
			}
		}
		return
	case !root && !w.memberOrPtr(e):
		return
	}
	if w.leads(e) {
		for i := 0; i < v.Len(); i++ {
			w.inline(v.Index(i))
		}
	}
}

// mapOf walks map v: one object (its entries' keys and values) for a
// walk of everything; its keys and values.
func (w *reachWalk) mapOf(v reflect.Value, root bool) {
	if v.IsNil() {
		return
	}
	t := v.Type()
	kt, vt := t.Key(), t.Elem()
	if !w.all && !root && !w.memberOrPtr(kt) && !w.memberOrPtr(vt) {
		return
	}
	if !w.first(reachKey{v.Pointer(), typeID(t), -1}) {
		return
	}
	if w.all {
		w.objects++
		w.bytes += int64(v.Len()) * int64(kt.Size()+vt.Size())
	}
	lk, lv := w.leads(kt), w.leads(vt)
	if !lk && !lv {
		return
	}
	it := v.MapRange()
	for it.Next() {
		if lk {
			w.inline(it.Key())
		}
		if lv {
			w.inline(it.Value())
		}
	}
}

// isMember reports whether t is the walk's membership type.
func (w *reachWalk) isMember(t reflect.Type) bool {
	if w.all {
		return true
	}
	id := typeID(t)
	m, ok := w.memberMemo[id]
	if !ok {
		name := t.Name()
		if name != "" && t.PkgPath() != "" {
			name = t.PkgPath() + "." + name
		}
		m = name != "" && name == w.member
		w.memberMemo[id] = m
	}
	return m
}

// memberOrPtr reports whether t is the membership type or a pointer to
// it.
func (w *reachWalk) memberOrPtr(t reflect.Type) bool {
	return w.isMember(t) || t.Kind() == reflect.Ptr && w.isMember(t.Elem())
}

// typeInfo is what a walk knows of a type: whether a value of it may
// hold, in its own memory, a reference the walk follows (or one it would
// have to and cannot), and for a struct its fields that may, for an
// array its element's.
type typeInfo struct {
	leads  bool
	fields []fieldInfo
	elem   *typeInfo
}

type fieldInfo struct {
	index int
	info  *typeInfo
}

// leads reports whether a value of type t may hold, in its own memory, a
// reference the walk follows.
func (w *reachWalk) leads(t reflect.Type) bool { return w.info(t).leads }

// info returns what the walk knows of type t, computed once per
// membership type.
func (w *reachWalk) info(t reflect.Type) *typeInfo {
	id := typeID(t)
	if ti, ok := w.infoMemo[id]; ok {
		return ti
	}
	ti := &typeInfo{}
	switch t.Kind() {
	case reflect.Ptr:
		ti.leads = w.all || w.isMember(t.Elem())
	case reflect.Slice, reflect.Chan:
		ti.leads = w.all || w.memberOrPtr(t.Elem())
	case reflect.Map:
		ti.leads = w.all || w.memberOrPtr(t.Key()) || w.memberOrPtr(t.Elem())
	case reflect.Interface:
		ti.leads = true
	case reflect.String, reflect.Func, reflect.UnsafePointer:
		ti.leads = w.all
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := w.info(t.Field(i).Type); f.leads {
				ti.fields = append(ti.fields, fieldInfo{i, f})
			}
		}
		ti.leads = len(ti.fields) > 0
	case reflect.Array:
		ti.elem = w.info(t.Elem())
		ti.leads = t.Len() > 0 && ti.elem.leads
	}
	w.infoMemo[id] = ti
	return ti
}

// walkNotes are the walks (by key) this process left a note for, each
// once.
var walkNotes struct {
	sync.Mutex
	noted map[string]bool
	n     int
}

// noteIncomplete leaves, once per walk and process, the note that the
// walk key counted less than is reachable, and why: logfmt.WalkNote.
func noteIncomplete(key, what string) {
	walkNotes.Lock()
	defer walkNotes.Unlock()
	if walkNotes.noted[key] {
		return
	}
	if walkNotes.noted == nil {
		walkNotes.noted = make(map[string]bool)
	}
	walkNotes.noted[key] = true
	walkNotes.n++
	std.mu.Lock()
	dir, err := logDir(std.dir)
	std.mu.Unlock()
	if err != nil || os.MkdirAll(dir, 0755) != nil {
		return
	}
	name := processFilePrefix() + "-" + strconv.Itoa(walkNotes.n) + logfmt.IncompleteFileSuffix
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0644)
	if err != nil {
		return
	}
	f.Write(logfmt.WalkNote(key, "a heap walk from "+key+" met "+what+": its counts are of what it could walk")) //nolint:errcheck // best effort, as a stop file
	f.Close()
}
