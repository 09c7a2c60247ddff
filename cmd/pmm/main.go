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
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"pmm.dev/pmm/spec"
)

// Exit codes, as Go tools use them; exitCodesHelp says them to the user.
const (
	exitOK      = 0 // the command did what was asked
	exitFailure = 1 // the command could not do it (I/O, build, run failure)
	exitUsage   = 2 // bad usage or bad input (flags, questions with errors)
)

// exitCodesHelp is what pmm help says of the exit codes.
const exitCodesHelp = `Exit status: 0 when the command did what was asked; 1 when it could not
(a build, a run or a file failed); 2 on bad usage or bad input: flags,
questions with errors or that can have no answer in the program (see
pmm help instrument), no module (go.mod) where pmm runs. pmm run and
pmm test exit with the program's status.`

// version is the version of the formats pmm writes (the static
// database records it, and rebuilds when it differs); pmm version
// prints the build's own version too.
const version = "0.1.0-dev"

// command is one subcommand of pmm.
type command struct {
	name    string
	summary string // one line, shown in "pmm help"
	usage   string // the argument synopsis after "pmm NAME"
	detail  string // what it does, shown in "pmm help NAME"
	// flagsNote, for a command whose flags are not all its own (pmm
	// test passes those after -- to go test), says so under "Flags:".
	flagsNote string
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
		reportCommand(),
		mergeCommand(),
		exportCommand(),
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
	if len(args) > 1 {
		fmt.Fprintln(e.stderr, "pmm help: give one command or topic\nUsage: pmm help [COMMAND | language]")
		return exitUsage
	}
	switch args[0] {
	case "help":
		fmt.Fprintf(e.stdout, "Usage: pmm help [COMMAND | language]\n\n%s\n", strings.TrimSpace(helpHelp))
		return exitOK
	case "language":
		fmt.Fprint(e.stdout, languageHelp())
		return exitOK
	}
	cmd := lookup(args[0])
	if cmd == nil {
		fmt.Fprintf(e.stderr, "pmm help: unknown command or topic %q\n", args[0])
		if s := spec.Closest(args[0], append(commandNames(), "help", "language")); s != "" {
			fmt.Fprintf(e.stderr, "hint: did you mean %q?\n", s)
		}
		fmt.Fprintln(e.stderr, "Run 'pmm help' for the list of commands.")
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
	fmt.Fprintf(w, `
Run 'pmm help COMMAND' for more about a command, 'pmm help language' for
the question language.

Flags are written as the go command writes them, with one dash (-json);
two dashes (--json) work too.

%s
`, exitCodesHelp)
}

// helpHelp is what pmm help help says.
const helpHelp = `
Help prints the list of commands, or the usage, the flags and an example
of one command. 'pmm help language' summarizes the question language:
the forms of a question file and every primitive, with an example.
`

func commandHelp(w io.Writer, cmd *command, flags *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: pmm %s %s\n\n%s\n", cmd.name, cmd.usage, strings.TrimSpace(cmd.detail))
	hasFlags := false
	flags.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags || cmd.flagsNote != "" {
		fmt.Fprintln(w, "\nFlags:")
	}
	if hasFlags {
		flags.SetOutput(w)
		flags.PrintDefaults()
	}
	if cmd.flagsNote != "" {
		fmt.Fprintf(w, "%s\n", strings.TrimRight(cmd.flagsNote, "\n"))
	}
}

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print the pmm version",
		usage:   "",
		detail: `
Version prints the version of pmm: the module version the go command
recorded when it built pmm, or "devel" and the commit of the clone it
was built in when it recorded version control information ("+dirty"
when the clone had changes), then the Go version and platform it was
built with.
`,
		define: func(*flag.FlagSet) func(*env, []string) int {
			return func(e *env, args []string) int {
				if len(args) > 0 {
					fmt.Fprintln(e.stderr, "pmm version: takes no arguments")
					return exitUsage
				}
				fmt.Fprintf(e.stdout, "pmm version %s %s %s/%s\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
				return exitOK
			}
		},
	}
}

// buildVersion is the version of this build of pmm: the module's, when
// the go command recorded one (go install pmm.dev/pmm/cmd/pmm@VERSION),
// else "devel" and the version control information of the clone it
// was built in, if any.
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	out := "devel"
	if rev := settings["vcs.revision"]; rev != "" {
		out += " " + rev
		if settings["vcs.modified"] == "true" {
			out += "+dirty"
		}
	}
	return out
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
