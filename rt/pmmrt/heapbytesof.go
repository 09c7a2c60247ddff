//go:build go1.18

package pmmrt

import (
	"reflect"
	"sync"
)

// HeapBytesOf is HeapBytes of n bytes of objects of type T, for the
// allocation sites of generic functions, whose code does not know
// whether an instantiation's T holds pointers. (The file's go1.18
// constraint keeps it out of the package as go 1.12 compiles it,
// TestGo112: a module that old has no generic function to call it.)
func HeapBytesOf[T any](n uintptr) uintptr {
	return HeapBytes(n, typeHasPointers(reflect.TypeOf((*T)(nil)).Elem()))
}

// pointerTypes caches typeHasPointers by type.
var pointerTypes sync.Map // reflect.Type → bool

// typeHasPointers says whether values of t hold pointers the collector
// scans, as the runtime's type descriptor says (PtrBytes > 0).
func typeHasPointers(t reflect.Type) bool {
	if v, ok := pointerTypes.Load(t); ok {
		return v.(bool)
	}
	has := false
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
	case reflect.Array:
		has = t.Len() > 0 && typeHasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField() && !has; i++ {
			has = typeHasPointers(t.Field(i).Type)
		}
	default: // pointers, strings, slices, maps, chans, funcs, interfaces
		has = true
	}
	pointerTypes.Store(t, has)
	return has
}
