package pmmrt

import "unsafe"

// A map's heap objects, which the runtime allocates without the compiler
// saying so: read from the map itself, whose layout is Go 1.26's swiss
// tables (internal/runtime/maps). pmm instruments maps only for a
// toolchain whose layout it knows (instrument.runtimeLayoutKnown);
// TestMapObjects checks every figure against testing.AllocsPerRun and
// MemStats.
//
// What the runtime allocates for a map (docs/MEMORY.md, "Maps"):
//
//   - make or a literal: the header (a Map) where the map escapes; for
//     more than 8 elements hinted, a directory of tables and each table's
//     struct and array of groups (8 slots each); a map kept in the frame
//     with 8 or fewer has its first group in the frame too;
//   - the first element put in a map without groups: one group;
//   - the ninth, or any assignment to a small map of 8: a table of 16
//     slots (struct, groups) and a directory;
//   - a table full to 7/8 (tombstones included): a table of twice its
//     slots, or, at 1,024, two tables of 1,024 and, when the directory
//     has no room for them, a directory of twice its length;
//   - each new element of a key or value over 128 bytes: an object for
//     it, to which the slot points.

// goMap mirrors internal/runtime/maps.Map.
type goMap struct {
	used              uint64
	seed              uintptr
	dirPtr            unsafe.Pointer
	dirLen            int
	globalDepth       uint8
	globalShift       uint8
	writing           uint8
	tombstonePossible bool
	clearSeq          uint64
}

// goTable mirrors internal/runtime/maps.table.
type goTable struct {
	used, capacity, growthLeft uint16
	localDepth                 uint8
	index                      int
	groups                     unsafe.Pointer
	lengthMask                 uint64
}

// goType mirrors internal/abi.Type.
type goType struct {
	size, ptrBytes                 uintptr
	hash                           uint32
	tflag, align, fieldAlign, kind uint8
	equal                          func(unsafe.Pointer, unsafe.Pointer) bool
	gcData                         *byte
	str, ptrToThis                 int32
}

// goMapType mirrors internal/abi.MapType.
type goMapType struct {
	goType
	key, elem, group             *goType
	hasher                       func(unsafe.Pointer, uintptr) uintptr
	groupSize, slotSize, elemOff uintptr
	flags                        uint32
}

const (
	mapIndirectKey   = 1 << 2 // abi.MapIndirectKey
	mapIndirectElem  = 1 << 3 // abi.MapIndirectElem
	mapGroupSlots    = 8      // abi.MapGroupSlots
	maxTableCapacity = 1024   // internal/runtime/maps.maxTableCapacity
)

// mapOf is the map m holds (a map value converted to an interface,
// which allocates nothing) and its type.
func mapOf(m interface{}) (*goMap, *goMapType) {
	e := (*[2]unsafe.Pointer)(unsafe.Pointer(&m))
	return (*goMap)(e[1]), (*goMapType)(e[0])
}

// directoryAt is the table at index i of m's directory.
func (m *goMap) directoryAt(i uintptr) *goTable {
	return *(**goTable)(unsafe.Pointer(uintptr(m.dirPtr) + i*ptrSize))
}

// directoryIndex is the index of the table of a key of hash h.
func (m *goMap) directoryIndex(h uintptr) uintptr {
	if m.dirLen == 1 {
		return 0
	}
	return h >> (m.globalShift & (ptrSize*8 - 1))
}

// tableSums are the number of m's tables and their slots: a walk of
// the directory.
func (m *goMap) tableSums() (tables, slots int) {
	for i := 0; i < m.dirLen; i++ {
		if t := m.directoryAt(uintptr(i)); t.index == i {
			tables, slots = tables+1, slots+int(t.capacity)
		}
	}
	return tables, slots
}

// noescape hides a pointer from escape analysis: the hash and equal
// functions the map's type gives do not keep the key.
//
//go:noescape
//go:linkname noescape runtime.noescape
func noescape(p unsafe.Pointer) unsafe.Pointer

// MapObjects are heap objects the runtime allocated for a map, taken one
// at a time: each Next sets Bytes (requested), Elements and Pointers
// (whether the object holds pointers, for HeapBytes) to the next one's.
// Elements are a group array's slots, a directory's tables, and 1 for
// the others.
type MapObjects struct {
	Bytes, Elements int64
	Pointers        bool

	typ         *goMapType
	m           *goMap // a walk of m's tables (a made map), or nil
	next        int    // the walk's next index in m's directory
	groupsOf    uint16 // the slots of the groups of the table just taken, or 0
	header      bool
	group       bool // a small map's group
	directory   int  // the length of a directory allocated, or 0
	tables      int  // tables allocated, of tableSlots slots each
	tableSlots  uint16
	keys, elems int // keys and values allocated apart
}

// Next moves to the next object, or reports that there is none.
func (o *MapObjects) Next() bool {
	t := o.typ
	switch {
	case o.header:
		o.header = false
		o.set(int64(unsafe.Sizeof(goMap{})), 1, true)
	case o.group:
		o.group = false
		o.set(int64(t.groupSize), mapGroupSlots, t.group.ptrBytes != 0)
	case o.directory > 0:
		o.set(int64(o.directory)*ptrSize, int64(o.directory), true)
		o.directory = 0
	case o.groupsOf > 0:
		o.set(int64(o.groupsOf/mapGroupSlots)*int64(t.groupSize), int64(o.groupsOf), t.group.ptrBytes != 0)
		o.groupsOf = 0
	case o.m != nil && o.next < o.m.dirLen:
		for ; o.next < o.m.dirLen; o.next++ {
			if tab := o.m.directoryAt(uintptr(o.next)); tab.index == o.next {
				o.groupsOf = tab.capacity
				break
			}
		}
		o.next++
		if o.groupsOf == 0 {
			return o.Next()
		}
		o.set(int64(unsafe.Sizeof(goTable{})), 1, true)
	case o.tables > 0:
		o.tables--
		o.groupsOf = o.tableSlots
		o.set(int64(unsafe.Sizeof(goTable{})), 1, true)
	case o.keys > 0:
		o.keys--
		o.set(int64(t.key.size), 1, t.key.ptrBytes != 0)
	case o.elems > 0:
		o.elems--
		o.set(int64(t.elem.size), 1, t.elem.ptrBytes != 0)
	default:
		return false
	}
	return true
}

func (o *MapObjects) set(bytes, elements int64, pointers bool) {
	o.Bytes, o.Elements, o.Pointers = bytes, elements, pointers
}

// apart sets the objects of n new elements whose keys or values the map
// keeps apart.
func (o *MapObjects) apart(n int) {
	if o.typ.flags&mapIndirectKey != 0 {
		o.keys = n
	}
	if o.typ.flags&mapIndirectElem != 0 {
		o.elems = n
	}
}

// MapMade are the objects of map m, just made by make or a literal:
// its header where heap says the map escapes (its first group is then
// on the heap too, else in the frame), its directory and tables, and
// its elements' keys and values kept apart.
func MapMade(m interface{}, heap bool) MapObjects {
	mp, t := mapOf(m)
	o := MapObjects{typ: t}
	if mp == nil {
		return o
	}
	o.header = heap
	if mp.dirLen == 0 {
		o.group = heap && mp.dirPtr != nil
	} else {
		o.m, o.directory = mp, mp.dirLen
	}
	o.apart(int(mp.used))
	return o
}

// MapWrite is a map as it was before an assignment to its element, for
// After to tell what the assignment allocated.
type MapWrite struct {
	valid      bool
	noGroup    bool // a small map without its group
	used       uint64
	dirLen     int
	hash       uintptr
	table      uintptr // the key's table (an address only: it may be freed)
	tableSlots uint16
	// For a key not equal to itself (a NaN), whose hash is random: the
	// number of tables and their slots.
	tables, slots int
}

// Before takes the state of map m before an element of key *key is
// assigned; nanPossible says the key's type may hold a NaN.
func (w *MapWrite) Before(m interface{}, key unsafe.Pointer, nanPossible bool) {
	mp, t := mapOf(m)
	*w = MapWrite{}
	if mp == nil {
		return // the assignment panics
	}
	w.valid, w.used, w.dirLen = true, mp.used, mp.dirLen
	if mp.dirLen == 0 {
		w.noGroup = mp.dirPtr == nil
		return
	}
	k := noescape(key)
	if nanPossible && !t.key.equal(k, k) {
		w.tables, w.slots = mp.tableSums()
		return
	}
	w.hash = t.hasher(k, mp.seed)
	tab := mp.directoryAt(mp.directoryIndex(w.hash))
	w.table, w.tableSlots = uintptr(unsafe.Pointer(tab)), tab.capacity
}

// After are the objects the assignment to map m allocated, of the
// state Before took.
func (w *MapWrite) After(m interface{}) MapObjects {
	mp, t := mapOf(m)
	o := MapObjects{typ: t}
	if !w.valid || mp == nil || mp.used == w.used && mp.dirLen == w.dirLen {
		return o // nothing allocated
	}
	if mp.used > w.used {
		o.apart(1) // a new element
	}
	switch {
	case w.dirLen == 0 && mp.dirLen == 0:
		o.group = w.noGroup
		return o
	case w.dirLen == 0:
		// A table of 16 slots for a small map that was full, even for
		// an element it had (the runtime grows it before it looks).
		o.directory, o.tables, o.tableSlots = mp.dirLen, 1, 2*mapGroupSlots
		return o
	case mp.used == w.used:
		return o // a table's element replaced
	}
	if mp.dirLen != w.dirLen {
		o.directory = mp.dirLen // a table split, and the directory doubled
	}
	if w.table == 0 { // a NaN's
		tables, slots := mp.tableSums()
		switch {
		case tables > w.tables:
			o.tables, o.tableSlots = 2, maxTableCapacity
		case slots > w.slots:
			o.tables, o.tableSlots = 1, uint16(2*(slots-w.slots))
		}
		return o
	}
	tab := mp.directoryAt(mp.directoryIndex(w.hash))
	switch {
	case uintptr(unsafe.Pointer(tab)) == w.table:
	case 2*int(w.tableSlots) <= maxTableCapacity:
		o.tables, o.tableSlots = 1, 2*w.tableSlots
	default:
		o.tables, o.tableSlots = 2, maxTableCapacity
	}
	return o
}
