package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"pmm.dev/pmm/sites"
)

func explainCommand() *command {
	return &command{
		name:    "explain",
		summary: "show where pmm would record each question's events, and why",
		usage:   "[-json] [-tests] [-tags T] [-callgraph vta|cha|static] [PATTERNS] QUESTIONS.pmm...",
		detail: `
Explain builds (or reuses) the static database of the packages matching
PATTERNS (default ./...), works out from the code which functions each
event of the questions of the .pmm files can be (static approximation:
what pmm instrument does first), and prints, per question and event
variable: the query over
.pmm/static.db, the functions the event can be an execution of, the sites
where it will be recorded (a definition or call sites, with file:line:col
and why), and how many candidates were eliminated and why.

A question whose events match nothing gets a warning that names the event
and the function it looked for.

Example:

	pmm explain ./... questions.pmm
	pmm explain -json questions.pmm
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			asJSON := fs.Bool("json", false, "print the selection as JSON")
			analysis := defineAnalysisFlags(fs)
			return func(e *env, args []string) int {
				patterns, files := splitQuestions(args)
				prog, code := compileQuestions(e, "explain", files)
				if prog == nil {
					return code
				}
				ctx := context.Background()
				analysis.escapeFor(prog)
				_, db, code := analysis.open(ctx, e, "explain", patterns)
				if db == nil {
					return code
				}
				defer db.Close()
				sel, err := sites.Select(ctx, db, prog)
				if err != nil {
					fmt.Fprintf(e.stderr, "pmm explain: %v\n", err)
					return exitFailure
				}
				for _, q := range sel.Questions {
					for _, w := range q.Warnings {
						fmt.Fprintf(e.stderr, "pmm explain: warning: question %s: %s\n", q.Name, w)
					}
				}
				if *asJSON {
					enc := json.NewEncoder(e.stdout)
					enc.SetIndent("", "  ")
					enc.SetEscapeHTML(false)
					if err := enc.Encode(sel); err != nil {
						fmt.Fprintf(e.stderr, "pmm explain: %v\n", err)
						return exitFailure
					}
					return exitOK
				}
				printSelection(e.stdout, sel)
				return exitOK
			}
		},
	}
}

func printSelection(w io.Writer, sel *sites.Selection) {
	for i, q := range sel.Questions {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "question %s\n", q.Name)
		for j, d := range q.Disjuncts {
			if len(q.Disjuncts) > 1 {
				fmt.Fprintf(w, "  disjunct %d\n", j+1)
			}
			printDisjunct(w, d, "  ")
		}
	}
}

func printDisjunct(w io.Writer, d *sites.Disjunct, indent string) {
	if len(d.Vars) == 0 && len(d.Negated) == 0 {
		// Only comparisons and aggregates used as relations, which
		// their own questions record.
		fmt.Fprintf(w, "%sno event to record\n", indent)
	}
	for _, v := range d.Vars {
		var names []string
		for _, f := range v.Functions {
			names = append(names, f.Name)
		}
		if len(names) == 0 {
			names = []string{"no function matches"}
		}
		fmt.Fprintf(w, "%sevent %s: %s\n", indent, v.Name, strings.Join(names, ", "))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, s := range v.Sites {
			where := s.Function
			if s.Kind == "call" {
				where = "call of " + s.Function + " in " + s.Caller
			}
			fmt.Fprintf(tw, "%s  %s\t%s\t%s\t(%s)\n", indent, s.Position(), s.Kind, where, s.Reason)
		}
		tw.Flush()
		for _, el := range v.Eliminated {
			fmt.Fprintf(w, "%s  eliminated %d of %d: %s\n", indent, el.Count, v.Candidates, el.Reason)
		}
		for _, g := range v.Gaps {
			fmt.Fprintf(w, "%s  may be incomplete: %s\n", indent, withPosition(g.Reason, g.Position))
		}
		fmt.Fprintf(w, "%s  sql: %s\n", indent, v.SQL)
	}
	for _, n := range d.Negated {
		if len(n.Vars) == 0 && len(n.Negated) == 0 {
			continue // a negated comparison: nothing to record
		}
		fmt.Fprintf(w, "%snegated part:\n", indent)
		printDisjunct(w, n, indent+"  ")
	}
}
