package sites

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestNonAllocatingPackages: every exported function and method of each
// package of nonAllocating, as the Go that runs the test has them,
// allocates nothing on the heap (testing.AllocsPerRun of a call). A
// package that gains a function fails the test until the function is
// called here, and found not to allocate.
func TestNonAllocatingPackages(t *testing.T) {
	var (
		i32  int32
		i64  int64
		u32  uint32
		u64  uint64
		uptr uintptr
		n    int
		up       = unsafe.Pointer(&n)
		box  any = &n

		b     atomic.Bool
		a32   atomic.Int32
		a64   atomic.Int64
		au32  atomic.Uint32
		au64  atomic.Uint64
		auptr atomic.Uintptr
		ptr   atomic.Pointer[int]
		val   atomic.Value
	)
	calls := map[string]func(){
		"sync/atomic.AddInt32":                  func() { atomic.AddInt32(&i32, 1) },
		"sync/atomic.AddInt64":                  func() { atomic.AddInt64(&i64, 1) },
		"sync/atomic.AddUint32":                 func() { atomic.AddUint32(&u32, 1) },
		"sync/atomic.AddUint64":                 func() { atomic.AddUint64(&u64, 1) },
		"sync/atomic.AddUintptr":                func() { atomic.AddUintptr(&uptr, 1) },
		"sync/atomic.AndInt32":                  func() { atomic.AndInt32(&i32, 1) },
		"sync/atomic.AndInt64":                  func() { atomic.AndInt64(&i64, 1) },
		"sync/atomic.AndUint32":                 func() { atomic.AndUint32(&u32, 1) },
		"sync/atomic.AndUint64":                 func() { atomic.AndUint64(&u64, 1) },
		"sync/atomic.AndUintptr":                func() { atomic.AndUintptr(&uptr, 1) },
		"sync/atomic.CompareAndSwapInt32":       func() { atomic.CompareAndSwapInt32(&i32, 1, 1) },
		"sync/atomic.CompareAndSwapInt64":       func() { atomic.CompareAndSwapInt64(&i64, 1, 1) },
		"sync/atomic.CompareAndSwapPointer":     func() { atomic.CompareAndSwapPointer(&up, up, up) },
		"sync/atomic.CompareAndSwapUint32":      func() { atomic.CompareAndSwapUint32(&u32, 1, 1) },
		"sync/atomic.CompareAndSwapUint64":      func() { atomic.CompareAndSwapUint64(&u64, 1, 1) },
		"sync/atomic.CompareAndSwapUintptr":     func() { atomic.CompareAndSwapUintptr(&uptr, 1, 1) },
		"sync/atomic.LoadInt32":                 func() { atomic.LoadInt32(&i32) },
		"sync/atomic.LoadInt64":                 func() { atomic.LoadInt64(&i64) },
		"sync/atomic.LoadPointer":               func() { atomic.LoadPointer(&up) },
		"sync/atomic.LoadUint32":                func() { atomic.LoadUint32(&u32) },
		"sync/atomic.LoadUint64":                func() { atomic.LoadUint64(&u64) },
		"sync/atomic.LoadUintptr":               func() { atomic.LoadUintptr(&uptr) },
		"sync/atomic.OrInt32":                   func() { atomic.OrInt32(&i32, 1) },
		"sync/atomic.OrInt64":                   func() { atomic.OrInt64(&i64, 1) },
		"sync/atomic.OrUint32":                  func() { atomic.OrUint32(&u32, 1) },
		"sync/atomic.OrUint64":                  func() { atomic.OrUint64(&u64, 1) },
		"sync/atomic.OrUintptr":                 func() { atomic.OrUintptr(&uptr, 1) },
		"sync/atomic.StoreInt32":                func() { atomic.StoreInt32(&i32, 1) },
		"sync/atomic.StoreInt64":                func() { atomic.StoreInt64(&i64, 1) },
		"sync/atomic.StorePointer":              func() { atomic.StorePointer(&up, up) },
		"sync/atomic.StoreUint32":               func() { atomic.StoreUint32(&u32, 1) },
		"sync/atomic.StoreUint64":               func() { atomic.StoreUint64(&u64, 1) },
		"sync/atomic.StoreUintptr":              func() { atomic.StoreUintptr(&uptr, 1) },
		"sync/atomic.SwapInt32":                 func() { atomic.SwapInt32(&i32, 1) },
		"sync/atomic.SwapInt64":                 func() { atomic.SwapInt64(&i64, 1) },
		"sync/atomic.SwapPointer":               func() { atomic.SwapPointer(&up, up) },
		"sync/atomic.SwapUint32":                func() { atomic.SwapUint32(&u32, 1) },
		"sync/atomic.SwapUint64":                func() { atomic.SwapUint64(&u64, 1) },
		"sync/atomic.SwapUintptr":               func() { atomic.SwapUintptr(&uptr, 1) },
		"sync/atomic.(*Bool).CompareAndSwap":    func() { b.CompareAndSwap(true, true) },
		"sync/atomic.(*Bool).Load":              func() { b.Load() },
		"sync/atomic.(*Bool).Store":             func() { b.Store(true) },
		"sync/atomic.(*Bool).Swap":              func() { b.Swap(true) },
		"sync/atomic.(*Int32).Add":              func() { a32.Add(1) },
		"sync/atomic.(*Int32).And":              func() { a32.And(1) },
		"sync/atomic.(*Int32).CompareAndSwap":   func() { a32.CompareAndSwap(1, 1) },
		"sync/atomic.(*Int32).Load":             func() { a32.Load() },
		"sync/atomic.(*Int32).Or":               func() { a32.Or(1) },
		"sync/atomic.(*Int32).Store":            func() { a32.Store(1) },
		"sync/atomic.(*Int32).Swap":             func() { a32.Swap(1) },
		"sync/atomic.(*Int64).Add":              func() { a64.Add(1) },
		"sync/atomic.(*Int64).And":              func() { a64.And(1) },
		"sync/atomic.(*Int64).CompareAndSwap":   func() { a64.CompareAndSwap(1, 1) },
		"sync/atomic.(*Int64).Load":             func() { a64.Load() },
		"sync/atomic.(*Int64).Or":               func() { a64.Or(1) },
		"sync/atomic.(*Int64).Store":            func() { a64.Store(1) },
		"sync/atomic.(*Int64).Swap":             func() { a64.Swap(1) },
		"sync/atomic.(*Pointer).CompareAndSwap": func() { ptr.CompareAndSwap(&n, &n) },
		"sync/atomic.(*Pointer).Load":           func() { ptr.Load() },
		"sync/atomic.(*Pointer).Store":          func() { ptr.Store(&n) },
		"sync/atomic.(*Pointer).Swap":           func() { ptr.Swap(&n) },
		"sync/atomic.(*Uint32).Add":             func() { au32.Add(1) },
		"sync/atomic.(*Uint32).And":             func() { au32.And(1) },
		"sync/atomic.(*Uint32).CompareAndSwap":  func() { au32.CompareAndSwap(1, 1) },
		"sync/atomic.(*Uint32).Load":            func() { au32.Load() },
		"sync/atomic.(*Uint32).Or":              func() { au32.Or(1) },
		"sync/atomic.(*Uint32).Store":           func() { au32.Store(1) },
		"sync/atomic.(*Uint32).Swap":            func() { au32.Swap(1) },
		"sync/atomic.(*Uint64).Add":             func() { au64.Add(1) },
		"sync/atomic.(*Uint64).And":             func() { au64.And(1) },
		"sync/atomic.(*Uint64).CompareAndSwap":  func() { au64.CompareAndSwap(1, 1) },
		"sync/atomic.(*Uint64).Load":            func() { au64.Load() },
		"sync/atomic.(*Uint64).Or":              func() { au64.Or(1) },
		"sync/atomic.(*Uint64).Store":           func() { au64.Store(1) },
		"sync/atomic.(*Uint64).Swap":            func() { au64.Swap(1) },
		"sync/atomic.(*Uintptr).Add":            func() { auptr.Add(1) },
		"sync/atomic.(*Uintptr).And":            func() { auptr.And(1) },
		"sync/atomic.(*Uintptr).CompareAndSwap": func() { auptr.CompareAndSwap(1, 1) },
		"sync/atomic.(*Uintptr).Load":           func() { auptr.Load() },
		"sync/atomic.(*Uintptr).Or":             func() { auptr.Or(1) },
		"sync/atomic.(*Uintptr).Store":          func() { auptr.Store(1) },
		"sync/atomic.(*Uintptr).Swap":           func() { auptr.Swap(1) },
		"sync/atomic.(*Value).CompareAndSwap":   func() { val.CompareAndSwap(box, box) },
		"sync/atomic.(*Value).Load":             func() { val.Load() },
		"sync/atomic.(*Value).Store":            func() { val.Store(box) },
		"sync/atomic.(*Value).Swap":             func() { val.Swap(box) },
	}
	if len(nonAllocating) != 1 || nonAllocating[0] != "sync/atomic" {
		t.Fatalf("nonAllocating is %v: call the functions of each package here", nonAllocating)
	}
	for _, name := range exported(t, "sync/atomic") {
		call, ok := calls[name]
		if !ok {
			t.Errorf("%s is not called here: call it, and keep it in nonAllocating only if it does not allocate", name)
			continue
		}
		if allocs := testing.AllocsPerRun(100, call); allocs != 0 {
			t.Errorf("%s allocates %v objects a call", name, allocs)
		}
		delete(calls, name)
	}
	for name := range calls {
		t.Errorf("%s is called here but is not in the package", name)
	}
}

// exported lists the exported functions and methods of the standard
// library package path, as pkg.F and pkg.(*T).M (type parameters left
// out).
func exported(t *testing.T, path string) []string {
	t.Helper()
	pkg, err := build.Default.Import(path, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, file := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(pkg.Dir, file), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv == nil {
				names = append(names, path+"."+fd.Name.Name)
				continue
			}
			recv := fd.Recv.List[0].Type
			star := ""
			if s, ok := recv.(*ast.StarExpr); ok {
				recv, star = s.X, "*"
			}
			if ix, ok := recv.(*ast.IndexExpr); ok {
				recv = ix.X
			}
			if id, ok := recv.(*ast.Ident); ok && id.IsExported() {
				names = append(names, path+".("+star+id.Name+")."+fd.Name.Name)
			}
		}
	}
	sort.Strings(names)
	if len(names) == 0 || !strings.HasPrefix(names[0], path) {
		t.Fatalf("no exported function in %s", path)
	}
	return names
}
