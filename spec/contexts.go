package spec

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Calling contexts (issue 13, seed 003: JP's method call tree).
//
// The calling context of an execution or an allocation is the path of
// the functions whose executions contain it on its goroutine, from the
// goroutine's root, written as folded stacks write it: root first,
// separated by ";" ("main.main;main.Parse;main.parseItem"). pmm does
// not track it at run time: a program with a calling-context question
// gets one more question, FramesQuestion, that records every execution
// of the functions that can reach the events' functions (their frames:
// id, end and goroutine), and after the run cmd/pmm computes each
// event's path from the frames that contain it on its goroutine, which
// nest like a stack there.

// AttrCallingContext is the attribute whose value is an event's calling
// context.
const AttrCallingContext = "calling-context"

// FramesQuestion is the question pmm adds to a program that asks for
// calling contexts: its variable FramesVar is every execution of a
// function that may be on the path of an event whose context is asked.
const (
	FramesQuestion   = "pmm-calling-frames"
	FramesVar        = "y"
	FramesSourceName = "<calling contexts>" // the name of its source, in positions
)

var callingContext = eventNamed("e", attribute(AttrCallingContext, []string{TypeFunctionExecution, TypeAllocation}, ValText,
	"c is the calling context of e: the functions whose executions contain e on its goroutine, root first, "+
		"separated by \";\" (e's own function last), as folded stacks write them; only the module's functions, which pmm instruments, are on it.",
	`(calling-context x c)`, &Recording{Capture: "g", Column: "context", Context: true}))

// framesSource returns the text of the frames question for the events
// of prog whose calling context is asked, or "" when none is: the
// executions of the functions that can call those events' functions
// (calls*, statically), and of those functions themselves. An event
// whose function is not a literal makes every function a frame.
func framesSource(prog *Program) string {
	names := map[string]bool{}
	everyFunction := false
	for _, q := range prog.Questions {
		if q.Name == FramesQuestion {
			return "" // a program printed by String, compiled again
		}
	}
	for _, q := range prog.Questions {
		for _, conj := range q.Disjuncts {
			conj.EachAtom(func(a *Atom) {
				if a.Prim.Name != AttrCallingContext {
					return
				}
				name, ok := eventFunction(conj, a.Args[0].Var)
				if !ok {
					everyFunction = true
					return
				}
				names[name] = true
			})
		}
	}
	if !everyFunction && len(names) == 0 {
		return ""
	}
	var disjuncts []string
	if everyFunction {
		// The second disjunct, the first's executions that call
		// others, makes the question record their ends and goroutines.
		disjuncts = []string{fmt.Sprintf("(exists (n) (function-execution %s n))", FramesVar),
			fmt.Sprintf("(exists (n m z) (and (function-execution %s n) (function-execution z m) (calls* %s z)))", FramesVar, FramesVar)}
	} else {
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		sort.Strings(sorted)
		for _, n := range sorted {
			disjuncts = append(disjuncts,
				fmt.Sprintf("(function-execution %s %q)", FramesVar, n),
				fmt.Sprintf("(exists (n z) (and (function-execution %s n) (function-execution z %q) (calls* %s z)))", FramesVar, n, FramesVar))
		}
	}
	return fmt.Sprintf("; The frames of the calling contexts pmm computes (docs/LANGUAGE.md, \"Calling contexts\").\n"+
		"(defquestion %s :definition ((%s) s.t. (or %s)))\n", FramesQuestion, FramesVar, strings.Join(disjuncts, "\n    "))
}

// eventFunction returns the literal function name that conj gives the
// execution or allocation v, if it gives one.
func eventFunction(conj *Conj, v string) (string, bool) {
	name, found := "", false
	conj.EachAtom(func(a *Atom) {
		if found || len(a.Args) < 2 || a.Args[0].Var != v {
			return
		}
		if !slices.Contains([]string{TypeFunctionExecution, TypeAllocation}, a.Prim.Name) {
			return
		}
		if l := a.Args[1].Lit; l != nil {
			name, found = l.Str, true
		}
	})
	return name, found
}
