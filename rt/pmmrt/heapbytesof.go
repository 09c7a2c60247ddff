//go:build go1.18

package pmmrt

import (
	"reflect"
	"sync"
	"unsafe"
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

// boxRule is how the runtime boxes a value of a type converted to an
// interface (cmd/compile's walk.dataWord, as static.BoxedBy has it): no
// object, an object of the type's size, or one unless the value is
// under 256 (convT16, convT32, convT64), "" (convTstring) or a nil
// slice (convTslice).
type boxRule uint8

const (
	boxNone boxRule = iota
	boxAlways
	boxUnless16
	boxUnless32
	boxUnless64
	boxUnlessEmpty
	boxUnlessNil
)

// boxRules caches boxRuleOf by type.
var boxRules sync.Map // reflect.Type → boxRule

// BoxBytes is the size of the object the runtime allocates for v, of a
// generic function's type parameter's type T, converted to an
// interface, or 0 when it allocates none: the rules static.BoxedBy
// applies to a type the source names, applied to the instantiation's.
func BoxBytes[T any](v T) uintptr {
	t := reflect.TypeOf((*T)(nil)).Elem()
	p := unsafe.Pointer(&v)
	switch boxRuleOf(t) {
	case boxNone:
		return 0
	case boxUnless16:
		if *(*uint16)(p) < 256 {
			return 0
		}
	case boxUnless32:
		if *(*uint32)(p) < 256 {
			return 0
		}
	case boxUnless64:
		if *(*uint64)(p) < 256 {
			return 0
		}
	case boxUnlessEmpty:
		if *(*string)(p) == "" {
			return 0
		}
	case boxUnlessNil:
		if *(*unsafe.Pointer)(p) == nil {
			return 0
		}
	}
	return t.Size()
}

// boxRuleOf is the boxRule of type t.
func boxRuleOf(t reflect.Type) boxRule {
	if r, ok := boxRules.Load(t); ok {
		return r.(boxRule)
	}
	rule := boxAlways
	sole := soleComponent(t)
	switch size, align, pointers := t.Size(), t.Align(), typeHasPointers(t); {
	case size == 0 || directInterface(t):
		rule = boxNone
	case sole.Kind() == reflect.Bool || sole.Kind() == reflect.Int8 || sole.Kind() == reflect.Uint8:
		rule = boxNone // runtime.staticuint64s
	case size == 2 && align == 2:
		rule = boxUnless16
	case size == 4 && align == 4 && !pointers:
		rule = boxUnless32
	case size == 8 && align == 8 && !pointers:
		rule = boxUnless64
	case sole.Kind() == reflect.String:
		rule = boxUnlessEmpty
	case sole.Kind() == reflect.Slice:
		rule = boxUnlessNil
	}
	boxRules.Store(t, rule)
	return rule
}

// soleComponent is t's one component, through structs of one field and
// arrays of one element, or t.
func soleComponent(t reflect.Type) reflect.Type {
	switch {
	case t.Kind() == reflect.Struct && t.NumField() == 1:
		return soleComponent(t.Field(0).Type)
	case t.Kind() == reflect.Array && t.Len() == 1:
		return soleComponent(t.Elem())
	}
	return t
}

// directInterface reports whether an interface holds a value of type t
// in its data word: a pointer, map, channel, function or unsafe.Pointer,
// or a struct or array of one such component.
func directInterface(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true
	case reflect.Struct:
		return t.NumField() == 1 && directInterface(t.Field(0).Type)
	case reflect.Array:
		return t.Len() == 1 && directInterface(t.Elem())
	}
	return false
}
