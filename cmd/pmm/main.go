// Command pmm answers performance questions about Go programs.
//
// A question is written in the PMM language (see docs/LANGUAGE.md): a
// relational calculus over program events such as function executions,
// calls, parameters and durations. pmm checks the questions, finds the
// places in the program where the needed data can be collected, rewrites a
// copy of the program to collect exactly that, and leaves the answers as
// SQL views in a SQLite database.
//
// Run "pmm help" for the list of commands, "pmm help COMMAND" for one.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"pmm.dev/pmm/spec"
)

// Exit codes, as Go tools use them.
const (
	exitOK      = 0 // the command did what was asked
	exitFailure = 1 // the command could not do it (I/O, build, run failure)
	exitUsage   = 2 // bad usage or bad input (flags, questions with errors)
)

// version is the pmm version, recorded in the databases pmm writes.
const version = "0.1.0-dev"

// command is one subcommand of pmm.
type command struct {
	name    string
	summary string // one line, shown in "pmm help"
	usage   string // the argument synopsis after "pmm NAME"
	detail  string // what it does, shown in "pmm help NAME"
	// define defines the command's flags on fs and returns the function
	// that runs the command on the arguments left after the flags.
	define func(fs *flag.FlagSet) func(e *env, args []string) int
}

// env is what a command may touch of the outside world, so that tests can
// run commands in-process.
type env struct {
	stdout io.Writer
	stderr io.Writer
	dir    string // working directory
}

func commands() []*command {
	return []*command{
		checkCommand(),
		explainCommand(),
		instrumentCommand(),
		runCommand(),
		testCommand(),
		answerCommand(),
		statsCommand(),
		cleanCommand(),
		versionCommand(),
		sitesCommand(),
	}
}

func main() {
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pmm:", err)
		os.Exit(exitFailure)
	}
	os.Exit(run(&env{stdout: os.Stdout, stderr: os.Stderr, dir: wd}, os.Args[1:]))
}

// run dispatches args to a command and returns the exit code.
func run(e *env, args []string) int {
	// -C DIR, as in the go command: work in DIR.
	for len(args) >= 1 && (args[0] == "-C" || strings.HasPrefix(args[0], "-C=")) {
		dir := strings.TrimPrefix(args[0], "-C=")
		args = args[1:]
		if dir == "-C" {
			if len(args) == 0 {
				fmt.Fprintln(e.stderr, "pmm: -C needs a directory")
				return exitUsage
			}
			dir, args = args[0], args[1:]
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(e.dir, dir)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			fmt.Fprintf(e.stderr, "pmm: -C %s: not a directory\n", dir)
			return exitUsage
		}
		e = &env{stdout: e.stdout, stderr: e.stderr, dir: dir}
	}
	if len(args) == 0 {
		printUsage(e.stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		return help(e, args[1:])
	}
	cmd := lookup(name)
	if cmd == nil {
		fmt.Fprintf(e.stderr, "pmm: unknown command %q\n", name)
		if s := spec.Closest(name, commandNames()); s != "" {
			fmt.Fprintf(e.stderr, "hint: did you mean %q?\n", s)
		}
		fmt.Fprintln(e.stderr, "Run 'pmm help' for the list of commands.")
		return exitUsage
	}
	flags := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	flags.SetOutput(e.stderr)
	flags.Usage = func() { commandHelp(e.stderr, cmd, flags) }
	runCmd := cmd.define(flags)
	if err := flags.Parse(args[1:]); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	return runCmd(e, flags.Args())
}

func lookup(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

func help(e *env, args []string) int {
	if len(args) == 0 {
		printUsage(e.stdout)
		return exitOK
	}
	cmd := lookup(args[0])
	if cmd == nil {
		fmt.Fprintf(e.stderr, "pmm help: unknown command %q\n", args[0])
		return exitUsage
	}
	flags := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	cmd.define(flags)
	commandHelp(e.stdout, cmd, flags)
	return exitOK
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `pmm answers performance questions about Go programs.

Usage:

	pmm [-C DIR] COMMAND [ARGUMENTS]

-C DIR runs the command in DIR, as the go command does.

Commands:

`)
	for _, c := range commands() {
		fmt.Fprintf(w, "\t%-12s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'pmm help COMMAND' for more about a command.
The question language is described in docs/LANGUAGE.md.
`)
}

func commandHelp(w io.Writer, cmd *command, flags *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: pmm %s %s\n\n%s\n", cmd.name, cmd.usage, strings.TrimSpace(cmd.detail))
	hasFlags := false
	flags.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nFlags:")
		flags.SetOutput(w)
		flags.PrintDefaults()
	}
}

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print the pmm version",
		usage:   "",
		detail:  "Version prints the version of pmm.",
		define: func(*flag.FlagSet) func(*env, []string) int {
			return func(e *env, args []string) int {
				if len(args) > 0 {
					fmt.Fprintln(e.stderr, "pmm version: takes no arguments")
					return exitUsage
				}
				fmt.Fprintf(e.stdout, "pmm %s\n", version)
				return exitOK
			}
		},
	}
}

// resolve makes paths relative to the command's working directory absolute.
func resolve(e *env, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if filepath.IsAbs(p) {
			out[i] = p
		} else {
			out[i] = filepath.Join(e.dir, p)
		}
	}
	return out
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
