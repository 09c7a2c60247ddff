// Package trace prints the runtime name and line of its caller, so that
// tests can compare the names in static.db with the runtime's.
package trace

import (
	"fmt"
	"runtime"
)

// Here prints "name<TAB>file<TAB>line" of the function calling it.
func Here() {
	pc, file, line, _ := runtime.Caller(1)
	fmt.Printf("%s\t%s\t%d\n", runtime.FuncForPC(pc).Name(), file, line)
}
