package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"pmm.dev/pmm/spec"
)

func checkCommand() *command {
	return &command{
		name:    "check",
		summary: "check questions and show their normalized form",
		usage:   "[-v] FILE.pmm...",
		detail: `
Check parses the PMM files, checks them (names and arities, no recursive
definitions, no temporal dependency cycles, safety, attributes on the event
types that define them) and normalizes each question to a disjunction of
conjunctions over primitive events.

The files form one program: a name defined in one file can be used in the
files after it. Every error is reported with file:line:col, the source line
and a hint. The exit status is 2 when there are errors.

Example:

	pmm check questions.pmm
	pmm check -v questions.pmm     # also print each question's normal form
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			verbose := fs.Bool("v", false, "print the normalized form of every question")
			return func(e *env, args []string) int {
				if len(args) == 0 {
					fmt.Fprintln(e.stderr, "pmm check: no files given\nUsage: pmm check [-v] FILE.pmm...")
					return exitUsage
				}
				srcs, err := spec.ReadFiles(resolve(e, args)...)
				if err != nil {
					fmt.Fprintln(e.stderr, "pmm check:", err)
					return exitUsage
				}
				prog, err := spec.Compile(srcs...)
				if err != nil {
					reportSpecErrors(e, err)
					return exitUsage
				}
				printSummary(e, prog, *verbose)
				return exitOK
			}
		},
	}
}

// reportSpecErrors prints the errors of spec.Compile with their source
// lines and hints, and a count.
func reportSpecErrors(e *env, err error) {
	var list spec.ErrorList
	if !errors.As(err, &list) {
		fmt.Fprintln(e.stderr, err)
		return
	}
	fmt.Fprint(e.stderr, list.Detail())
	if len(list) > 1 {
		fmt.Fprintf(e.stderr, "%d errors\n", len(list))
	}
}

func printSummary(e *env, prog *spec.Program, verbose bool) {
	var events, questions []string
	for _, d := range prog.Defs {
		sig := d.Name
		if d.Aggregate != nil {
			sig += " = " + d.Aggregate.Op + " of " + d.Aggregate.Of
		} else {
			var vars []string
			for _, h := range d.Head {
				vars = append(vars, h.Var)
			}
			sig += " (" + strings.Join(vars, " ") + ")"
		}
		if d.Question {
			questions = append(questions, sig)
		} else {
			events = append(events, sig)
		}
	}
	prims := map[string]bool{}
	var primList []string
	for _, q := range prog.Questions {
		for _, p := range q.Primitives() {
			if !prims[p] {
				prims[p] = true
				primList = append(primList, p)
			}
		}
	}
	fmt.Fprintf(e.stdout, "ok: %s, %s\n", plural(len(events), "event"), plural(len(questions), "question"))
	if len(events) > 0 {
		fmt.Fprintf(e.stdout, "events:     %s\n", strings.Join(events, "\n            "))
	}
	if len(questions) > 0 {
		fmt.Fprintf(e.stdout, "questions:  %s\n", strings.Join(questions, "\n            "))
	}
	if len(primList) > 0 {
		fmt.Fprintf(e.stdout, "primitives: %s\n", strings.Join(sortedCopy(primList), ", "))
	}
	if verbose {
		fmt.Fprintf(e.stdout, "\nnormalized:\n\n%s", prog)
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
