// Program semantics exercises what instrumentation must not change: its
// output, instrumented or not, is compared by cmd/pmm's semantics tests.
// With an argument it runs one case that ends the program (a panic, a
// runtime error, os.Exit, runtime.Goexit); without, every other case.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"

	"example.com/semantics/clash"
)

func main() {
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "":
		all()
	case "panic":
		fmt.Println("before the panic")
		panicDeep(3)
	case "runtime-error":
		fmt.Println(index([]int{1, 2, 3}, 5))
	case "nil-map":
		writeNil(nil, "k")
	case "error-panic":
		panicError()
	case "repanic":
		repanic()
	case "go-panic":
		goPanic()
	case "exit":
		exitInside(3)
	case "goexit":
		goexitMain()
	case "interface-nil":
		var s Shape
		fmt.Println(area(s))
	case "defer-nil-interface":
		deferNilInterface(nil)
	case "go-nil-interface":
		spawnArea(nil)
		select {}
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		os.Exit(2)
	}
}

func all() {
	section("init", func() { fmt.Println(strings.Join(initLog, "\n")); fmt.Println("table", table, "derived", derived) })
	section("results", results)
	section("recover", recovers)
	section("closures", closures)
	section("callers", callers)
	section("methods", methods)
	section("variadic", variadics)
	section("generics", generics)
	section("expressions", expressions)
	section("function values", funcValues)
	section("interfaces", interfaces)
	section("goroutines", goroutines)
	section("go statements", goShapes)
	section("regions", regionsCases)
	section("goexit", goexitWorkerCase)
	section("platform", platform)
	section("clash", func() { fmt.Println(clash.Run()) })
	section("alloc-order", func() { allocOrder(); allocConstOrder() })
	section("blocked", blockedCases)
	fmt.Fprintln(os.Stderr, "done on stderr")
}

// section runs one group of cases under a heading.
func section(name string, f func()) {
	fmt.Println("==", name)
	f()
}

// rec prints what pmm must record of an execution: the function, its
// parameters and results in JSON, and whether it panicked (the tests look
// for it in pmm.db).
func rec(fn string, params []any, panicked int, results ...any) {
	fmt.Println("rec", fn, js(params), js(results), panicked)
}

func js(vs []any) string {
	out := make([]any, len(vs))
	for i, v := range vs {
		if e, ok := v.(error); ok && e != nil {
			v = e.Error()
		}
		out[i] = v
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// where prints the file and line of its caller.
func where(label string) {
	_, file, line, ok := runtime.Caller(1)
	fmt.Println(label, file[strings.LastIndex(file, "/")+1:], line, ok)
}
