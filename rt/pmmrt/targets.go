package pmmrt

import (
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Targets tells, at one dynamic call site (a call of a function value),
// which of the functions the site records a call runs. Generated code
// compares the function value's code pointer with those of the targets
// it can name, taken once at init; a code pointer it does not know (a
// closure, a method value's wrapper, a generic instantiation, a function
// of a package the site cannot import) comes here: the first time, its
// function is found by name (runtime.CallersFrames), then by pointer
// among those already seen.
type Targets struct {
	names []string       // the recorded targets, index i is target i+1
	seen  unsafe.Pointer // *[]seenTarget, replaced (copied) on each new pointer
	mu    sync.Mutex     // serializes the additions to seen
}

type seenTarget struct {
	pc     uintptr
	target int
}

// NewTargets returns the Targets of a site that records the functions
// names (runtime names, as pprof writes them: main.F, pkg.(*T).M,
// main.F.func1, main.Map[...]).
func NewTargets(names ...string) *Targets {
	return &Targets{names: names}
}

// Func returns which recorded target (from 1) the function whose code
// begins at pc is, or 0 when it is none of them.
func (t *Targets) Func(pc uintptr) int {
	if p := (*[]seenTarget)(atomic.LoadPointer(&t.seen)); p != nil {
		for _, e := range *p {
			if e.pc == pc {
				return e.target
			}
		}
	}
	return t.find(pc)
}

// find looks the function at pc up by name and remembers it.
func (t *Targets) find(pc uintptr) int {
	target := t.byName(funcName(pc))
	t.mu.Lock()
	defer t.mu.Unlock()
	var seen []seenTarget
	if p := (*[]seenTarget)(atomic.LoadPointer(&t.seen)); p != nil {
		seen = append(seen, *p...)
	}
	seen = append(seen, seenTarget{pc, target})
	atomic.StorePointer(&t.seen, unsafe.Pointer(&seen))
	return target
}

// byName returns the recorded target a function's runtime name is: a
// method value's wrapper (pkg.T.M-fm) is its method's, and a wrapper of
// a method with a value receiver (pkg.(*T).M) is that method's. Type
// arguments are ignored (pprof writes every instantiation pkg.F[...]).
func (t *Targets) byName(name string) int {
	name = strings.TrimSuffix(name, "-fm")
	for _, n := range candidateNames(name) {
		for i, target := range t.names {
			if sameFunction(n, target) {
				return i + 1
			}
		}
	}
	return 0
}

// candidateNames are the names a function of that runtime name may have
// as a call's target: itself, and for a pointer wrapper pkg.(*T).M the
// method pkg.T.M it calls.
func candidateNames(name string) []string {
	out := []string{name}
	if i := strings.Index(name, ".(*"); i >= 0 {
		if j := strings.Index(name[i:], ")."); j >= 0 {
			out = append(out, name[:i]+"."+name[i+3:i+j]+name[i+j+1:])
		}
	}
	return out
}

// sameFunction compares two runtime names, with or without type
// arguments ([...]).
func sameFunction(a, b string) bool {
	if a == b {
		return true
	}
	return strings.Replace(a, "[...]", "", -1) == strings.Replace(b, "[...]", "", -1)
}

// funcName returns the name of the function whose code begins at pc.
// runtime.FuncForPC would name the innermost function inlined at pc,
// which at the first instruction of a small function may be one it
// calls; the frames of a return address just after pc end with the
// function itself.
func funcName(pc uintptr) string {
	frames := runtime.CallersFrames([]uintptr{pc + 1})
	name := ""
	for {
		f, more := frames.Next()
		if f.Function != "" {
			name = f.Function
		}
		if !more {
			return name
		}
	}
}

// Code returns the code pointer of a function value, as generated code
// reads it at a call: the first word of the funcval. It is called once
// per target, at init.
func Code(f interface{}) uintptr { return reflect.ValueOf(f).Pointer() }

// Generic says whether the dynamic type of x, the receiver of an
// interface call, is an instantiation of the generic type name of the
// package pkgPath, or a pointer to one when pointer; a package main
// (command) may be named "main" by reflect, as by the linker: generated
// code asks it of the generic types that run one of a call's targets
// when the sources do not write all their instantiations (Box[T] made
// in a generic function), which no case of a type switch can list.
func Generic(x interface{}, pkgPath, name string, command, pointer bool) bool {
	t := dynamicType(x, pkgPath, command, pointer)
	return t != nil && strings.HasPrefix(t.Name(), name+"[")
}

// Named says whether the dynamic type of x, the receiver of an
// interface call, is the type name of the package pkgPath, or a pointer
// to it when pointer: generated code asks it of the types that run one
// of a call's targets and that the call's package cannot name (an
// unexported type of another package), which no case of a type switch
// there can list.
func Named(x interface{}, pkgPath, name string, command, pointer bool) bool {
	t := dynamicType(x, pkgPath, command, pointer)
	return t != nil && t.Name() == name
}

// dynamicType is the dynamic type of x, or what it points to when
// pointer, if it is a type of the package pkgPath (of "main" too, for a
// command); nil otherwise.
func dynamicType(x interface{}, pkgPath string, command, pointer bool) reflect.Type {
	t := reflect.TypeOf(x)
	if t == nil {
		return nil
	}
	if pointer {
		if t.Kind() != reflect.Ptr {
			return nil
		}
		t = t.Elem()
	}
	if t.PkgPath() != pkgPath && !(command && t.PkgPath() == "main") {
		return nil
	}
	return t
}
