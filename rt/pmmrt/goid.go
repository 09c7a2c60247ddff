package pmmrt

import (
	"bytes"
	"runtime"
	rdebug "runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Goroutine identity. Go has no goroutine-local storage and no API for
// the current goroutine; the runtime keeps it in runtime.g, which only
// assembly (or the runtime) can name. Assembly cannot be used here: the
// go command runs the assembler in the package's directory, and the
// directory of a package placed by the build overlay does not exist. So
// the identity is found in Go, from the thread: runtime.getm (a name the
// runtime keeps linkable on purpose, as it does nanotime) returns the
// calling goroutine's m, whose curg field is its g. The offsets of
// m.curg and g.goid change between Go versions; calibrateG finds them
// once at init. docs/RUNTIME.md ("Goroutine-local context", "Goroutine
// identity") has the reasoning.

//go:linkname getm runtime.getm
func getm() uintptr

const wordSize = unsafe.Sizeof(uintptr(0))

// The offsets calibrateG found; curgOff 0 means it found none (or
// calibration has not run yet), and the identity falls back to
// runtime.Stack.
var curgOff, goidOff uintptr

// calibrationDone is set once the offsets are found. Calibration runs at
// the first use of goroutine identity, not at init: it starts goroutines
// and stops the world once (runtime.Stack of all goroutines), which a
// program whose questions never need a goroutine should not pay, and
// nothing of pmm's should run before the user's init functions.
var (
	calibrationDone uint32
	calibrationMu   sync.Mutex
)

// calibrated makes sure the offsets are found; then it is one atomic
// load. Every path that reads curgOff, goidOff or ctxFast starts with it.
func calibrated() {
	if atomic.LoadUint32(&calibrationDone) == 0 {
		calibrateNow()
	}
}

func calibrateNow() {
	calibrationMu.Lock()
	defer calibrationMu.Unlock()
	if calibrationDone == 0 {
		curgOff, goidOff = calibrateG()
		ctxFast = curgOff != 0 && !raceEnabled
		atomic.StoreUint32(&calibrationDone, 1)
	}
}

// peek returns the word at addr, which must be readable. It neither
// checks the pointer (checkptr) nor reports it to the race detector: the
// memory is the runtime's, which the race detector does not track.
//
//go:nocheckptr
//go:norace
func peek(addr uintptr) uintptr { return **(**uintptr)(unsafe.Pointer(&addr)) }

// curG returns the calling goroutine's g, or 0 when calibration found no
// offsets. The g read from m.curg is accepted only if its stack (the
// first two words of every runtime.g: stack.lo and stack.hi) holds the
// address of a local variable of this call: the goroutine may have been
// moved to another thread between getm and the read, and then m.curg is
// another goroutine (or nil), whose stack does not hold that address.
// Nothing between taking the address and the check can move the stack
// (getm is a leaf that never grows it), so the check is exact. Without
// offsets (curgOff 0) the g read is m.g0, whose stack is the thread's:
// the check fails, and curGAgain returns 0.
func curG() uintptr {
	calibrated()
	var here byte
	if gp := gOn(getm(), uintptr(unsafe.Pointer(&here))); gp != 0 {
		return gp
	}
	return curGAgain()
}

// gOn returns m.curg if it is the goroutine whose stack holds sp, and 0
// otherwise. It calls nothing, so that it inlines: the callers that matter
// (curG, ownEntry, goid) make one call, to getm.
func gOn(m, sp uintptr) uintptr {
	if gp := peek(m + curgOff); gp != 0 && peek(gp) <= sp && sp < peek(gp+wordSize) {
		return gp
	}
	return 0
}

// curGAgain is curG after a read that found another goroutine: it reads
// until the goroutine stays on its thread between getm and the read.
//
//go:noinline
func curGAgain() uintptr {
	if curgOff == 0 {
		return 0
	}
	var here byte
	for {
		if gp := gOn(getm(), uintptr(unsafe.Pointer(&here))); gp != 0 {
			return gp
		}
	}
}

// goid returns the calling goroutine's id: the runtime's own (never
// reused), read from its g when calibrated, parsed from the header of
// runtime.Stack otherwise.
func goid() int64 {
	calibrated()
	var here byte
	gp := gOn(getm(), uintptr(unsafe.Pointer(&here)))
	if gp == 0 {
		gp = curGAgain()
	}
	if gp != 0 && goidOff != 0 {
		return int64(peek(gp + goidOff))
	}
	return stackGoID()
}

// stackGoID parses the id in the header of runtime.Stack, with a pooled
// buffer: runtime.Stack keeps its argument, so a local array would be
// moved to the heap. It costs microseconds (it formats the stack).
func stackGoID() int64 {
	buf := goidBufs.Get().(*[64]byte)
	g := parseGoID(buf[:runtime.Stack(buf[:], false)])
	goidBufs.Put(buf)
	return g
}

var goidBufs = sync.Pool{New: func() interface{} { return new([64]byte) }}

// parseGoID reads the id in the header of runtime.Stack: "goroutine 18
// [running]:".
func parseGoID(b []byte) int64 {
	const prefix = "goroutine "
	var id int64
	if len(b) > len(prefix) {
		for _, c := range b[len(prefix):] {
			if c < '0' || c > '9' {
				break
			}
			id = id*10 + int64(c-'0')
		}
	}
	return id
}

// How far calibration looks: runtime.m is larger than 1 KiB and
// runtime.g larger than 256 bytes in every Go version (goid has been at
// 128 to 192 bytes), on 64-bit systems. Reads that fault are recovered.
const (
	calibrateMWords = 160
	calibrateGWords = 32
	calibrateProbes = 4  // goroutines whose candidates are intersected
	calibrateChecks = 16 // goroutines that must then agree with runtime.Stack
	gmWord          = 6  // g.m: "offset known to arm liblink" in runtime2.go
)

// gProbe is what one goroutine saw: the offsets (in words) of the fields
// of its m that point to its own g, and of the words of its g equal to its
// id.
type gProbe struct {
	m, g  []int
	id    int64
	mAddr uintptr // its m
	gAddr uintptr // its g
}

// calibrateG finds the offsets of m.curg and g.goid, or returns zeros.
// Only 64-bit systems: a goroutine id is one word there. It runs in a
// goroutine of its own, which alone sets SetPanicOnFault.
func calibrateG() (curg, goidAt uintptr) {
	if wordSize != 8 {
		return 0, 0
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		rdebug.SetPanicOnFault(true)
		curg, goidAt = calibrate()
	}()
	<-done
	return curg, goidAt
}

// calibrate runs probes, each in a new goroutine (ids above the main
// goroutine's 1, distinct from each other). A field of m is kept if in
// every probe it pointed to the probe's g while the probe ran, and no
// longer did once the probe was parked: that excludes fields that keep an
// older g (m.morebuf.g, m.libcallg). Both m.curg and, on some systems,
// the thread's slot of g remain; either is right, the last is taken.
// There must be one word of g equal to the id in every probe. Then more
// goroutines must find their own g and id through the offsets, as curG
// and goid do.
func calibrate() (curg, goidAt uintptr) {
	mIn, gIn := map[int]int{}, map[int]int{}
	valid := 0
	for i := 0; i < 2*calibrateProbes && valid < calibrateProbes; i++ {
		report, release := make(chan gProbe), make(chan struct{})
		go probeG(report, release)
		p := <-report
		parked := len(p.m) > 0 && waitParked(p.id)
		if parked {
			valid++
			for _, o := range p.m {
				if w, ok := safePeek(p.mAddr + uintptr(o)*wordSize); ok && w != p.gAddr {
					mIn[o]++
				}
			}
			for _, o := range p.g {
				gIn[o]++
			}
		}
		close(release)
	}
	curgWord, goidWord, goids := -1, -1, 0
	for o, n := range mIn {
		if n == valid && o > curgWord {
			curgWord = o
		}
	}
	for o, n := range gIn {
		if n == valid {
			goidWord = o
			goids++
		}
	}
	if valid < calibrateProbes || curgWord <= 0 || goids != 1 {
		return 0, 0
	}
	curg, goidAt = uintptr(curgWord)*wordSize, uintptr(goidWord)*wordSize
	for i := 0; i < calibrateChecks; i++ {
		ok := make(chan bool)
		go func() {
			rdebug.SetPanicOnFault(true)
			ok <- checkG(curg, goidAt)
		}()
		if !<-ok {
			return 0, 0
		}
	}
	return curg, goidAt
}

// probeG reports the fields of its m that point to its g, then waits for
// release. A field points to the g if the word it holds is the address of
// a g-like struct: its first two words (stack.lo and stack.hi) bracket a
// local variable, and its word gmWord (g.m) is this m. Words of m that are
// not pointers are read as pointers too: SetPanicOnFault makes a read of
// unmapped memory a panic that safePeek recovers.
func probeG(report chan<- gProbe, release <-chan struct{}) {
	rdebug.SetPanicOnFault(true)
	var p gProbe
	m := getm()
	for i := 0; i < calibrateMWords; i++ {
		w, ok := safePeek(m + uintptr(i)*wordSize)
		if ok && w >= 1<<12 && w%wordSize == 0 && isOwnG(w, m) {
			p.m = append(p.m, i)
			p.gAddr = w
		}
	}
	p.mAddr = m
	if getm() != m {
		p.m = nil // moved to another thread while looking
	}
	p.id = stackGoID()
	for i := 0; i < calibrateGWords && len(p.m) > 0; i++ {
		if w, ok := safePeek(p.gAddr + uintptr(i)*wordSize); ok && int64(w) == p.id {
			p.g = append(p.g, i)
		}
	}
	report <- p
	<-release
}

// isOwnG reports whether w is the address of the g of the calling
// goroutine, which runs on m: the first two words of the struct at w
// (stack.lo and stack.hi) bracket a local variable, and its word gmWord
// (g.m) is m. The words are read again after the address is taken, with
// no call in between (the stack may have moved during the calls that
// checked they are readable); a fault is recovered.
func isOwnG(w, m uintptr) (own bool) {
	defer func() {
		if recover() != nil {
			own = false
		}
	}()
	if _, ok := safePeek(w); !ok {
		return false
	}
	if _, ok := safePeek(w + gmWord*wordSize); !ok {
		return false
	}
	var here byte
	return gOf(w, m, uintptr(unsafe.Pointer(&here)))
}

// gOf reports whether gp, a g, runs on m with its stack holding sp.
func gOf(gp, m, sp uintptr) bool {
	return peek(gp) <= sp && sp < peek(gp+wordSize) && peek(gp+gmWord*wordSize) == m
}

// waitParked reports, once the goroutine with the given id is blocked in
// a channel receive (so no thread runs it), true; false if it is not
// within a bounded number of looks.
func waitParked(id int64) bool {
	want := []byte("goroutine " + strconv.FormatInt(id, 10) + " [chan receive")
	buf := make([]byte, 1<<16)
	for try := 0; try < 1000; try++ {
		n := runtime.Stack(buf, true)
		if bytes.Contains(buf[:n], want) {
			return true
		}
		runtime.Gosched()
	}
	return false
}

// checkG reports whether the offsets find the calling goroutine's g and
// its id as runtime.Stack does.
func checkG(curg, goidAt uintptr) bool {
	for try := 0; try < 3; try++ {
		m := getm()
		gp, ok := safePeek(m + curg)
		if !ok || gp == 0 || !isOwnG(gp, m) {
			continue
		}
		id, ok := safePeek(gp + goidAt)
		return ok && int64(id) == stackGoID()
	}
	return false
}

// safePeek is peek for an address that may not be readable; the calling
// goroutine has called rdebug.SetPanicOnFault(true).
func safePeek(addr uintptr) (w uintptr, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return peek(addr), true
}
