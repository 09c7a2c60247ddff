// Command ifacecalls makes interface calls whose values come from the
// standard library, for static's calls.external: the call graph finds no
// callee of the methods of a reflect.Type (TestUnresolvedInterfaceCalls).
package main

import (
	"fmt"
	"reflect"
)

// T has a method Name but does not implement reflect.Type: no call of
// reflect.Type's Name runs it.
type T struct{}

func (T) Name() string { return "T" }

// U implements reflect.Type by embedding one, with a Name of its own: a
// call of reflect.Type's Name may run it, one of its Kind runs
// reflect's.
type U struct{ reflect.Type }

func (U) Name() string { return "U" }

func main() {
	t := reflect.TypeOf(1)
	k := t.Kind() // no type of the module has a Kind of its own
	n := t.Name() // U.Name could be it
	fmt.Println(k, n, T{}.Name(), U{t}.Name())
}
