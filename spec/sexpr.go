package spec

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// sexprKind classifies the nodes the reader produces.
type sexprKind int

const (
	sList       sexprKind = iota + 1
	sSymbol               // a bare symbol: a keyword, name or variable
	sQuoted               // 'SYMBOL: a name written as a quoted symbol
	sQuotedList           // '(...): a list value, its elements in elems
	sString               // "..." with Go escapes
	sInt
	sFloat
)

// sexpr is one node of the s-expression syntax of PMM files.
type sexpr struct {
	kind  sexprKind
	pos   Pos
	text  string   // sSymbol, sQuoted, sString: the symbol or the unquoted string
	ival  int64    // sInt
	fval  float64  // sFloat
	elems []*sexpr // sList, sQuotedList
}

// isSymbol reports whether x is the bare symbol name (case-insensitive).
func (x *sexpr) isSymbol(name string) bool {
	return x.kind == sSymbol && strings.EqualFold(x.text, name)
}

// describe names x for error messages.
func (x *sexpr) describe() string {
	switch x.kind {
	case sList:
		return "a list"
	case sSymbol:
		return "the symbol " + x.text
	case sQuoted:
		return "the quoted symbol '" + x.text
	case sQuotedList:
		return "a quoted list"
	case sString:
		return "the string " + strconv.Quote(x.text)
	case sInt, sFloat:
		return "the number " + x.text
	}
	return "?"
}

// reader turns PMM source text into s-expressions.
type reader struct {
	file  string
	src   string
	off   int
	line  int
	col   int
	depth int // lists open around the one being read
	// unread is set when a part of the form being read could not be
	// read (a list nested past MaxNesting, a symbol that is not text):
	// the form is dropped whole, so that the missing part is not
	// reported again as errors of the forms around it.
	unread bool
	diags  *diagnostics
}

// MaxNesting is the deepest that lists may nest in a PMM file. Questions
// people write nest a dozen levels; the checks walk nested formulas once
// per enclosing quantifier and conjunction, so a limit keeps compiling
// fast and the reader's recursion shallow on any input.
const MaxNesting = 200

// readAll reads every top-level s-expression of src, reporting syntax
// errors to diags and going on after each.
func readAll(file string, src []byte, diags *diagnostics) []*sexpr {
	r := &reader{file: file, src: string(src), line: 1, col: 1, diags: diags}
	var forms []*sexpr
	for {
		r.skipSpace()
		if r.off >= len(r.src) {
			return forms
		}
		if r.src[r.off] == ')' {
			r.diags.errorf(r.pos(), "remove it, or add the matching ( before it", "unexpected )")
			r.advance(1)
			continue
		}
		r.unread = false
		if x := r.read(); x != nil && !r.unread {
			forms = append(forms, x)
		}
	}
}

func (r *reader) pos() Pos { return Pos{File: r.file, Line: r.line, Col: r.col} }

func (r *reader) advance(n int) {
	for i := 0; i < n && r.off < len(r.src); i++ {
		if r.src[r.off] == '\n' {
			r.line++
			r.col = 1
		} else {
			r.col++
		}
		r.off++
	}
}

// skipSpace skips white space and comments (from ; to the end of the line).
func (r *reader) skipSpace() {
	for r.off < len(r.src) {
		switch c := r.src[r.off]; {
		case c == ';':
			for r.off < len(r.src) && r.src[r.off] != '\n' {
				r.advance(1)
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			r.advance(1)
		default:
			return
		}
	}
}

// isDelimiter reports whether c ends a symbol.
func isDelimiter(c byte) bool {
	switch c {
	case '(', ')', '"', ';', '\'', '|', ' ', '\t', '\n', '\r', '\f', '\v':
		return true
	}
	return false
}

// read reads one s-expression starting at a non-space character; it
// returns nil after reporting an error when there is none to read.
func (r *reader) read() *sexpr {
	start := r.pos()
	switch c := r.src[r.off]; c {
	case '(':
		if r.depth >= MaxNesting {
			r.diags.errorf(start, "write the question with fewer nested forms: define parts of it with defevent",
				"lists nest deeper than %d levels", MaxNesting)
			r.skipList()
			r.unread = true
			return nil
		}
		r.depth++
		defer func() { r.depth-- }()
		r.advance(1)
		list := &sexpr{kind: sList, pos: start}
		for {
			r.skipSpace()
			if r.off >= len(r.src) {
				r.diags.errorf(start, "add the missing ) at the end of this form", "unclosed (: the file ends before its matching )")
				return list
			}
			if r.src[r.off] == ')' {
				r.advance(1)
				return list
			}
			if x := r.read(); x != nil {
				list.elems = append(list.elems, x)
			}
		}
	case '"':
		return r.readString(start)
	case '\'':
		r.advance(1)
		if r.off < len(r.src) && r.src[r.off] == '(' {
			// '(3 1): a list value. It is read as a list, so nesting
			// and unclosed parentheses are reported as for any list.
			x := r.read()
			if x == nil {
				return nil
			}
			x.kind, x.pos = sQuotedList, start
			return x
		}
		text := r.symbolText()
		if text == "" {
			r.diags.errorf(start, `write a name after the quote, as in 'FOO, or use a string such as "main.F"`, "a quote must be followed by a symbol")
			return nil
		}
		if !printable(text) {
			r.diags.errorf(start, "names and variables are written in UTF-8, without control characters",
				"the symbol %s is not valid UTF-8 or has control characters", strconv.Quote(text))
			r.unread = true
			return nil
		}
		return &sexpr{kind: sQuoted, pos: start, text: text}
	case '|':
		r.advance(1)
		return &sexpr{kind: sSymbol, pos: start, text: "|"}
	}
	text := r.symbolText()
	if text != "" && !printable(text) {
		r.diags.errorf(start, "names and variables are written in UTF-8, without control characters",
			"the symbol %s is not valid UTF-8 or has control characters", strconv.Quote(text))
		r.unread = true
		return nil
	}
	if text == "" {
		// Not reachable for well-formed input; guards against looping.
		_, size := utf8.DecodeRuneInString(r.src[r.off:])
		r.diags.errorf(start, "", "unexpected character %q", r.src[r.off:r.off+size])
		r.advance(size)
		return nil
	}
	return r.number(start, text)
}

// skipList skips the list that starts at r.off, without recursion: the
// rest of a form nested too deep is not read.
func (r *reader) skipList() {
	depth := 0
	for r.off < len(r.src) {
		switch r.src[r.off] {
		case '(':
			depth++
		case ')':
			depth--
		case ';':
			r.skipSpace()
			continue
		case '"':
			r.readString(r.pos())
			continue
		}
		r.advance(1)
		if depth == 0 {
			return
		}
	}
}

func (r *reader) symbolText() string {
	begin := r.off
	for r.off < len(r.src) && !isDelimiter(r.src[r.off]) {
		r.advance(1)
	}
	return r.src[begin:r.off]
}

// number makes a number of text if it is one, and a symbol otherwise.
func (r *reader) number(pos Pos, text string) *sexpr {
	c := text[0]
	if c == '+' || c == '-' || c == '.' {
		if len(text) == 1 || !(text[1] >= '0' && text[1] <= '9' || text[1] == '.') {
			return &sexpr{kind: sSymbol, pos: pos, text: text}
		}
	} else if !(c >= '0' && c <= '9') {
		return &sexpr{kind: sSymbol, pos: pos, text: text}
	}
	if i, err := strconv.ParseInt(text, 0, 64); err == nil {
		return &sexpr{kind: sInt, pos: pos, text: text, ival: i}
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil && !strings.ContainsAny(text, "xXpP_") {
		return &sexpr{kind: sFloat, pos: pos, text: text, fval: f}
	}
	r.diags.errorf(pos, "write an integer such as 42 or a decimal such as 1.5", "malformed number %s", text)
	return nil
}

// readString reads a string literal with Go's escapes.
func (r *reader) readString(start Pos) *sexpr {
	begin := r.off
	r.advance(1)
	for r.off < len(r.src) {
		switch r.src[r.off] {
		case '\\':
			r.advance(2)
			continue
		case '\n':
			r.diags.errorf(start, `close the string with " on the same line; write \n for a newline`, "string not terminated")
			return nil
		case '"':
			r.advance(1)
			text, err := strconv.Unquote(r.src[begin:r.off])
			if err != nil {
				r.diags.errorf(start, `strings use Go's escapes: \" \\ \n \t \xFF \u00e9`, "malformed string: invalid escape")
				// Go on with the raw text, so that the form around it is
				// not reported as wrong too.
				text = r.src[begin+1 : r.off-1]
			}
			return &sexpr{kind: sString, pos: start, text: text}
		}
		r.advance(1)
	}
	r.diags.errorf(start, `close the string with "`, "string not terminated")
	return nil
}
