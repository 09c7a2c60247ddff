package main

import (
	"fmt"
	"runtime"
	"strings"
)

// callerLine prints what runtime.Caller(0) says of itself.
func callerLine() {
	pc, file, line, _ := runtime.Caller(0)
	fmt.Println("runtime.Caller(0):", runtime.FuncForPC(pc).Name(), file[strings.LastIndex(file, "/")+1:], line)
}

// stack prints the frames of the goroutine as function file:line; a
// callee recorded at a call site has the frames of pmm's wrapper above it,
// which the tests leave out.
func stack() {
	buf := make([]byte, 1<<16)
	buf = buf[:runtime.Stack(buf, false)]
	lines := strings.Split(string(buf), "\n")
	for i := 1; i+1 < len(lines); i += 2 {
		fn := lines[i]
		if j := strings.LastIndex(fn, "("); j > 0 {
			fn = fn[:j]
		}
		loc := strings.TrimSpace(lines[i+1])
		if j := strings.LastIndex(loc, "/"); j >= 0 {
			loc = loc[j+1:]
		}
		if j := strings.Index(loc, " +0x"); j >= 0 {
			loc = loc[:j]
		}
		fmt.Println("frame", fn, loc)
	}
}

// callersFrames prints the frames runtime.Callers sees, as stack does.
func callersFrames() {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		fmt.Println("frame", f.Function, f.File[strings.LastIndex(f.File, "/")+1:]+":"+fmt.Sprint(f.Line))
		if !more {
			break
		}
	}
}

func callers() {
	callerLine()
	func() {
		pc, _, line, _ := runtime.Caller(0)
		fmt.Println("closure in callers", runtime.FuncForPC(pc).Name(), line)
	}()
	stack()
	callersFrames()
	where("where")
	fmt.Println("caller-name", self())
}
