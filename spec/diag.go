package spec

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Pos is a position in a PMM source file; Line and Col count from 1, Col
// in bytes as Go's own tools do.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether p names a place in a file.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Error is one problem in the user's questions.
type Error struct {
	Pos  Pos
	Msg  string
	Hint string // one line that says what to do; may be empty
	line string // the source line, for the caret display
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Detail formats the error as file:line:col, the message, the source line
// with a caret under the column, and the hint. A line longer than
// maxShownLine is shown as the part of it around the column.
func (e *Error) Detail() string {
	var b strings.Builder
	b.WriteString(e.Error())
	b.WriteByte('\n')
	if e.line != "" && e.Pos.Col > 0 {
		line, col := excerpt(strings.TrimRight(e.line, "\r"), e.Pos.Col-1)
		b.WriteString("\t" + line + "\n\t")
		// Keep the line's tabs so that the caret lines up.
		for i := 0; i < col && i < len(line); i++ {
			if line[i] == '\t' {
				b.WriteByte('\t')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString("^\n")
	}
	if e.Hint != "" {
		b.WriteString("\thint: " + e.Hint + "\n")
	}
	return b.String()
}

const maxShownLine = 160

// excerpt returns at most maxShownLine bytes of line around the byte
// offset col, with "..." where it was cut, and col within the excerpt.
func excerpt(line string, col int) (string, int) {
	if len(line) <= maxShownLine {
		return line, col
	}
	from := max(0, min(col-maxShownLine/2, len(line)-maxShownLine))
	to := from + maxShownLine
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to++
	}
	out, col := line[from:to], col-from
	if from > 0 {
		out, col = "..."+out, col+3
	}
	if to < len(line) {
		out += "..."
	}
	return out, col
}

// ErrorList is every problem found in a set of PMM files, in source order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0].Error(), len(l)-1)
}

// MaxDetailedErrors is how many errors Detail shows with their source
// line and hint; the rest are counted, as the Go compiler does, since
// the first ones are the ones to fix.
const MaxDetailedErrors = 10

// Detail formats the first MaxDetailedErrors errors with their source
// line and hint, and counts the others.
func (l ErrorList) Detail() string {
	var b strings.Builder
	for i, e := range l {
		if i == MaxDetailedErrors {
			fmt.Fprintf(&b, "and %d more errors\n", len(l)-i)
			break
		}
		b.WriteString(e.Detail())
	}
	return b.String()
}

// diagnostics collects errors while a file is checked.
type diagnostics struct {
	sources map[string][]string // file name → its lines
	order   map[string]int      // file name → its place on the command line
	errs    ErrorList
	seen    map[string]bool
}

func newDiagnostics() *diagnostics {
	return &diagnostics{sources: map[string][]string{}, order: map[string]int{}, seen: map[string]bool{}}
}

func (d *diagnostics) addSource(file string, src []byte) {
	d.sources[file] = strings.Split(string(src), "\n")
	d.order[file] = len(d.order)
}

// errorf records an error at pos with a hint; the same error at the same
// place is recorded once (an atom of a derived event is checked at every
// use of the event).
func (d *diagnostics) errorf(pos Pos, hint, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	key := pos.String() + "\x00" + msg
	if d.seen[key] {
		return
	}
	d.seen[key] = true
	e := &Error{Pos: pos, Msg: msg, Hint: hint}
	if lines := d.sources[pos.File]; pos.Line >= 1 && pos.Line <= len(lines) {
		e.line = lines[pos.Line-1]
	}
	d.errs = append(d.errs, e)
}

// result returns the errors sorted by position, or nil.
func (d *diagnostics) result() error {
	if len(d.errs) == 0 {
		return nil
	}
	sort.SliceStable(d.errs, func(i, j int) bool {
		a, b := d.errs[i].Pos, d.errs[j].Pos
		if a.File != b.File {
			return d.order[a.File] < d.order[b.File]
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return d.errs
}
