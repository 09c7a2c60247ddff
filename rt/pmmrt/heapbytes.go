package pmmrt

// The Go heap's size classes (Go 1.26: internal/runtime/gc's
// SizeClassToSize; TestHeapBytesTable checks them against the Go that
// runs the tests, TestHeapBytesMeasured against runtime.MemStats).
var sizeClasses = [...]uint16{0, 8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

const (
	maxSmallSize = 32768 // the largest size class
	pageSize     = 8192  // large objects take whole pages
	// A small object with pointers larger than minSizeForMallocHeader
	// has a malloc header of mallocHeaderSize bytes before it, in the
	// same slot (8 × pointer size × bits per pointer: 512 on 64-bit).
	mallocHeaderSize       = 8
	minSizeForMallocHeader = ptrSize * 8 * ptrSize
	ptrSize                = 4 << (^uintptr(0) >> 63) // 4 or 8
)

// ChanHeader is the size of the runtime's channel header (hchan,
// rounded to 8 bytes) in Go 1.26: 112 bytes on 64-bit systems, 64 on
// 32-bit ones. makechan allocates it with the buffer in one object
// without pointers, or, for a buffer of elements with pointers, apart
// from it. pmm instruments a make of a channel only for a toolchain
// whose header it knows (instrument.runtimeLayoutKnown); TestChanHeader
// measures it.
const ChanHeader = 64 + (ptrSize-4)*12

// HeapBytes is the bytes the Go heap takes for one object of n bytes
// requested: its size class's slot (with the malloc header of a
// pointerful object over 512 bytes), or whole 8 KiB pages for an object
// over 32 KiB. It is what runtime.MemStats.TotalAlloc counts for it,
// except for a pointer-free object under 16 bytes, which the tiny
// allocator packs with others into a 16-byte block: HeapBytes gives its
// slot alone (8 or 16), an upper bound of its share. 0 for n = 0: the
// runtime does not allocate zero-size objects.
func HeapBytes(n uintptr, pointers bool) uintptr {
	if n == 0 {
		return 0
	}
	if pointers && n > minSizeForMallocHeader && n+mallocHeaderSize <= maxSmallSize {
		n += mallocHeaderSize
	}
	if n > maxSmallSize {
		if r := (n + pageSize - 1) &^ (pageSize - 1); r >= n {
			return r
		}
		return n // overflow: the runtime would fail the allocation
	}
	// The smallest class at least n (binary search: no table by size,
	// so the runtime's copy stays one list).
	lo, hi := 1, len(sizeClasses)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if uintptr(sizeClasses[mid]) >= n {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return uintptr(sizeClasses[lo])
}

// Captured is a variable a closure captures: the size and alignment of
// its type, and whether the compiler may capture it by value (it is
// never assigned after its declaration, nor its address taken).
type Captured struct {
	Size, Align uintptr
	ByValue     bool
}

// ClosureBytes is the size of the object a closure in a generic
// function allocates: its code pointer, then the variables it captures
// in order, each by value when the compiler may and it is at most 128
// bytes (cmd/compile's escape analysis, which decides by the size of
// the instantiation's shape, the type argument's own size), else as a
// pointer, then the dictionary of the instantiation, which the
// compiler captures last (cmd/compile/internal/noder's funcLit).
func ClosureBytes(vars ...Captured) int64 {
	off, align := uintptr(ptrSize), uintptr(ptrSize) // the code pointer
	for _, v := range vars {
		size, a := v.Size, v.Align
		if !v.ByValue || size > 128 {
			size, a = ptrSize, ptrSize
		}
		off = (off+a-1)&^(a-1) + size
		if a > align {
			align = a
		}
	}
	off = (off+ptrSize-1)&^(ptrSize-1) + ptrSize // the dictionary
	return int64((off + align - 1) &^ (align - 1))
}
