package dataflow

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// snapshot writes everything reachable from v, unexported fields
// included, as indented text: two snapshots of the same value are equal
// exactly when nothing reachable changed (what a func value does, and a
// channel's contents, are left out: their identity is written). A
// pointer's target is written where the walk first reaches it, and as
// the path of that place wherever else it is reached, so shared and
// cyclic values are written once; a map's entries are sorted by the
// snapshot of their keys.
func snapshot(v any) string {
	w := &walker{seen: map[target]string{}}
	w.walk(reflect.ValueOf(v), "$", 0)
	return w.b.String()
}

// target is a place a pointer points to: an address and the type there,
// since a struct and its first field share an address.
type target struct {
	addr uintptr
	typ  reflect.Type
}

type walker struct {
	b    strings.Builder
	seen map[target]string // where the walk first reached each target
}

func (w *walker) line(depth int, s string) {
	w.b.WriteString(strings.Repeat("  ", depth))
	w.b.WriteString(s)
	w.b.WriteByte('\n')
}

func (w *walker) walk(v reflect.Value, path string, depth int) {
	if !v.IsValid() {
		w.line(depth, "invalid")
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		w.line(depth, strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.line(depth, strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.line(depth, strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		w.line(depth, strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Complex64, reflect.Complex128:
		w.line(depth, strconv.FormatComplex(v.Complex(), 'g', -1, 128))
	case reflect.String:
		w.line(depth, strconv.Quote(v.String()))
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		w.line(depth, fmt.Sprintf("%s %#x", v.Type(), v.Pointer()))
	case reflect.Interface:
		if v.IsNil() {
			w.line(depth, "nil "+v.Type().String())
			return
		}
		w.line(depth, v.Elem().Type().String()+":")
		w.walk(v.Elem(), path, depth+1)
	case reflect.Pointer:
		if v.IsNil() {
			w.line(depth, "nil "+v.Type().String())
			return
		}
		t := target{v.Pointer(), v.Type().Elem()}
		if first, ok := w.seen[t]; ok {
			w.line(depth, "see "+first)
			return
		}
		w.seen[t] = path
		w.line(depth, "&")
		w.walk(v.Elem(), "(*"+path+")", depth+1)
	case reflect.Struct:
		w.line(depth, v.Type().String()+"{")
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			w.line(depth+1, f.Name+":")
			w.walk(v.Field(i), path+"."+f.Name, depth+2)
		}
		w.line(depth, "}")
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			w.line(depth, "nil "+v.Type().String())
			return
		}
		w.line(depth, fmt.Sprintf("%s len %d [", v.Type(), v.Len()))
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1)
		}
		w.line(depth, "]")
	case reflect.Map:
		if v.IsNil() {
			w.line(depth, "nil "+v.Type().String())
			return
		}
		// Keys are written each with a walker of their own, so that
		// their text does not depend on the order of the map.
		type entry struct {
			key string
			val reflect.Value
		}
		var entries []entry
		for it := v.MapRange(); it.Next(); {
			k := &walker{seen: map[target]string{}}
			k.walk(it.Key(), "key", 0)
			entries = append(entries, entry{k.b.String(), it.Value()})
		}
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
		w.line(depth, fmt.Sprintf("%s len %d {", v.Type(), v.Len()))
		for i, e := range entries {
			for _, l := range strings.Split(strings.TrimSuffix(e.key, "\n"), "\n") {
				w.line(depth+1, "key "+l)
			}
			w.walk(e.val, fmt.Sprintf("%s[#%d]", path, i), depth+1)
		}
		w.line(depth, "}")
	default:
		panic("snapshot: unhandled kind " + v.Kind().String())
	}
}

// firstDifference returns the first line where snapshots a and b differ,
// with the lines before it that open its enclosing values.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			var ctx []string
			indent := len(al[i]) - len(strings.TrimLeft(al[i], " "))
			for j := i - 1; j >= 0 && indent > 0; j-- {
				if in := len(al[j]) - len(strings.TrimLeft(al[j], " ")); in < indent {
					ctx = append([]string{al[j]}, ctx...)
					indent = in
				}
			}
			return fmt.Sprintf("%s\n-%s\n+%s", strings.Join(ctx, "\n"), al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}
