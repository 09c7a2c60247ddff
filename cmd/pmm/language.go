package main

import (
	"fmt"
	"strings"

	"pmm.dev/pmm/spec"
)

// languageIntro is the first part of pmm help language: the forms of a
// question file. The primitives follow, from the vocabulary itself.
const languageIntro = `A question file (FILE.pmm) states what you want to know about a run of a
Go program: a relational calculus over events (executions of functions,
their begin and end points), their attributes and the relations between
them. pmm records only what the questions need.

Example: the calls of G from F that repeat the arguments of an earlier
call of G in the same execution of F, what a cache in F would save:

	(defevent repeated-call :definition
	  ((g2) s.t. (exists (f g1 args)
	               (and (function-execution f "main.F")
	                    (function-execution g1 "main.G")
	                    (function-execution g2 "main.G")
	                    (calls f g1) (calls f g2) (before g1 g2)
	                    (parameters g1 args) (parameters g2 args)))))
	(defquestion cacheable-calls :definition
	  ((g d) s.t. (and (repeated-call g) (duration g d))))
	(defquestion cacheable-time :definition (sum cacheable-calls (output output)))

Definitions (a name is defined once, before it is used):

	(defevent NAME :definition ((VARS) s.t. FORMULA))
	    a derived event or relation: the tuples of VARS that satisfy FORMULA
	(defquestion NAME :definition ((VARS) s.t. FORMULA))
	    a question: its answer is that relation, printed by pmm answer and
	    a SQL view of .pmm/pmm.db named NAME (dashes as underscores)
	(defquestion NAME :definition (OP ACTIVITY (input|output ...)))
	    an aggregate: OP is count, sum, average, min or max; one input or
	    output per column of the event or question ACTIVITY; the inputs
	    are the group keys, sum, average, min and max aggregate the one
	    output that holds a value. An aggregate is a relation like any
	    other: (and (lookups-per-key k n) (> n 2)).

Formulas:

	(and F ...) (or F ...) (not F) (exists (VARS) F)
	(NAME ARG ...)   a primitive, or a defined event or question
	(= a b) (/= a b) (< a b) (<= a b) (> a b) (>= a b)
	                 comparisons; events compare only with = and /=

Literals: integers, floats, strings with Go's escapes ("main.F"), quoted
symbols ('FOO), true, false, nil, quoted lists ('(3 1)). Comments run from
; to the end of the line. Names and keywords are case-insensitive; strings
are not.

Functions are named as Go's runtime and pprof name them: "main.F",
"example.com/m/pkg.F", "example.com/m/pkg.(*T).M", "example.com/m/pkg.T.M",
"example.com/m/pkg.F.func1" (the first function literal in F), a generic
function "example.com/m/pkg.Map" or "example.com/m/pkg.Map[...]" (every
instantiation).

Durations and times are in nanoseconds; pmm answer names the unit in the
header of their column ("d (ns)").

Primitives:
`

// languageOutro closes pmm help language.
const languageOutro = `
'pmm check -v FILE.pmm' checks a file and prints each question's normal
form. An answer pmm could not record exactly says so: see pmm help answer.
`

// languageHelp is the summary of the question language that pmm help
// language prints: it is in the binary, so it needs no clone of pmm, and
// its primitives are those of the vocabulary pmm checks questions with.
func languageHelp() string {
	var b strings.Builder
	b.WriteString(languageIntro)
	var headings []string
	entries := map[string][]string{}
	for _, p := range spec.Vocabulary() {
		h := kindHeading(p.Kind)
		if entries[h] == nil {
			headings = append(headings, h)
		}
		args := []string{p.Name}
		for i, a := range p.Args {
			args = append(args, signatureArg(p, i, a.Name))
		}
		entry := fmt.Sprintf("\t(%s)\n\t    %s", strings.Join(args, " "), p.Doc)
		if p.Example != "" && p.Example != "("+strings.Join(args, " ")+")" {
			entry += "\n\t    example: " + p.Example
		}
		entries[h] = append(entries[h], entry)
	}
	for _, h := range headings {
		fmt.Fprintf(&b, "\n  %s\n\n%s\n", h, strings.Join(entries[h], "\n"))
	}
	b.WriteString(languageOutro)
	return b.String()
}

// signatureArg is the name of argument i of p in its signature: the
// argument's own name, or the example's variable there when the doc
// speaks of that one (the doc of duration says "d is", its value
// argument is named v).
func signatureArg(p *spec.Primitive, i int, name string) string {
	words := strings.Fields(strings.Trim(p.Example, "()"))
	if len(words) == len(p.Args)+1 && strings.HasPrefix(p.Doc, words[i+1]+" is ") {
		return words[i+1]
	}
	return name
}

// kindHeading is the heading of the primitives of kind k.
func kindHeading(k spec.Kind) string {
	switch k {
	case spec.IntervalEvent, spec.PointEvent:
		return "Events:"
	case spec.Attribute:
		return "Attributes of events:"
	case spec.ControlRelation:
		return "Relations between events:"
	}
	return "Relations between values:"
}
