// Command ifacecalls makes interface calls whose values come from the
// standard library, for static's calls.external: the call graph finds no
// callee of the methods of a reflect.Type, nor of a value that went
// through reflect (TestUnresolvedInterfaceCalls).
package main

import (
	"fmt"
	"io"
	"io/fs"
	"reflect"
)

// T has a method Name of reflect.Type's signature: a call of
// reflect.Type's Name may run it, as far as static analysis can tell (a
// type of the module may implement reflect.Type by embedding one).
type T struct{}

func (T) Name() string { return "T" }

// R reads; F is an fs.File by embedding an io.ReadCloser: a call of
// fs.File's Read on an F runs R.Read, though R is no fs.File.
type R struct{}

func (R) Read(p []byte) (int, error) { return 0, io.EOF }
func (R) Close() error               { return nil }

type stat struct{}

func (stat) Stat() (fs.FileInfo, error) { return nil, nil }

type F struct {
	io.ReadCloser
	stat
}

func main() {
	t := reflect.TypeOf(1)
	k := t.Kind()              // no method of the module is a Kind() reflect.Kind
	n := t.Name()              // T.Name could be it
	s := t.Elem                // a method value of an interface: a function value
	_, _ = t.MethodByName("x") // no method of the module has its signature
	f := reflect.ValueOf(F{R{}, stat{}}).Interface().(fs.File)
	_, err := f.Read(nil) // R.Read
	fmt.Println(k, n, s != nil, T{}.Name(), err)
}
