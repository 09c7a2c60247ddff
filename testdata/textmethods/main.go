// The program textmethods passes values whose types have Error or String
// methods to functions a question records the parameters of. Some of
// those methods are free of effects, so pmm may call them to record the
// value's text; the others count their calls, take a lock the caller
// holds, or send on a channel, and pmm must not call them. The program
// prints how often each was called, which instrumentation must not
// change, and the values as pmm should record them.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"example.com/textmethods/kinds"
)

// ParseError is an error whose Error formats its fields: free of effects.
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Point is printed by a String with a strings.Builder of its own.
type Point struct{ X, Y int }

func (p Point) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "(%d,%d)", p.X, p.Y)
	return b.String()
}

// Counted counts the calls of its Error: a side effect.
type Counted struct{ Code int }

var countedCalls int

func (c Counted) Error() string {
	countedCalls++
	return fmt.Sprint("code ", c.Code)
}

// Guarded's String takes its mutex, which its caller may hold.
type Guarded struct {
	mu sync.Mutex
	n  int
}

func (g *Guarded) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return fmt.Sprint(g.n)
}

// Wrapped's Error calls the Error of the error it wraps, whatever it is.
type Wrapped struct{ Err error }

func (w Wrapped) Error() string { return "wrapped: " + w.Err.Error() }

// Labelled prints a kinds.Kind, whose String is free of effects.
type Labelled struct{ K kinds.Kind }

func (l Labelled) String() string { return fmt.Sprintf("label %v", l.K) }

// Logged sends on a channel in String.
type Logged int

var logged = make(chan string, 100)

func (l Logged) String() string {
	logged <- "String called"
	return "logged"
}

// Joined prints values it holds, of types not known where it prints.
type Joined struct{ parts []any }

func (j Joined) String() string { return fmt.Sprint(j.parts...) }

//go:noinline
func parse(err error) bool { return err != nil }

//go:noinline
func show(s fmt.Stringer) string { return "shown" }

//go:noinline
func kind(k kinds.Kind) int { return int(k) }

//go:noinline
func bump(g *Guarded) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	report(g) // called while g.mu is held: calling g.String here deadlocks
}

//go:noinline
func report(s fmt.Stringer) {}

func main() {
	parse(&ParseError{Line: 3, Msg: "bad"})
	parse(errors.New("std"))
	parse(Counted{Code: 7})
	parse(Counted{Code: 8})
	parse(Wrapped{Err: &ParseError{Line: 4, Msg: "inner"}})
	show(Point{1, 2})
	show(Labelled{kinds.Large})
	show(Logged(1))
	show(Joined{[]any{Counted{9}}})
	kind(kinds.Small)
	kind(kinds.Large)
	g := &Guarded{}
	bump(g)
	bump(g)
	fmt.Printf("Counted.Error calls: %d\n", countedCalls)
	fmt.Printf("Logged.String calls: %d\n", len(logged))
	fmt.Printf("Guarded: %d\n", g.n)
	if countedCalls != 0 || len(logged) != 0 {
		os.Exit(1)
	}
}
