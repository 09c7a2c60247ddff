// Package rewrite merges generated instrumentation into Go source (seed
// 001, 4.3.1): it applies the edits of package instrument to copies of the
// user's files, writes the typed helpers of each file beside it in the
// same package, adds the runtime package to the module, and describes it
// all in an overlay for go build -overlay. The user's files are never
// written.
//
// Edits insert text without line breaks, so every original token keeps
// its line; after gofmt, /*line*/ comments put back the positions of the
// tokens that follow inserted statements, so compiler errors, panics and
// stack traces name the original file:line. A formatted file whose
// positions do not all check is written unformatted instead.
package rewrite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"pmm.dev/pmm/instrument"
)

// Config says what to write where.
type Config struct {
	Root       string            // the module root
	OutDir     string            // where the rewritten files go (.pmm/overlay)
	Code       *instrument.Code  // the edits and helpers
	Runtime    map[string][]byte // the runtime package's files
	RuntimeDir string            // where the runtime package goes, relative to Root
	// Version names the code that formats (pmm's executable): a file
	// another version wrote is made again.
	Version string
}

// Result lists what was written.
type Result struct {
	Overlay string            // the overlay file for go build -overlay
	Replace map[string]string // original (or new) path → rewritten file
}

// Write writes the rewritten files, the helpers, the runtime and the
// overlay file. It writes only what differs from the last Write into
// cfg.OutDir: a file whose inputs are those it was made from then (its
// path, its source, its text before gofmt and the edits' ranges; the
// Version that made it) and that still holds what was written is
// neither formatted nor written again (overlay.sum, beside the overlay
// file, keeps a hash of each file's inputs and one of its content), a
// file whose content comes out the same is not written, and the files
// no longer in the overlay are removed. What it leaves is what a Write
// into an empty directory writes.
func Write(cfg Config) (*Result, error) {
	dir := filepath.Dir(cfg.OutDir)
	res := &Result{Overlay: filepath.Join(dir, "overlay.json"), Replace: map[string]string{}}
	old := readSums(filepath.Join(dir, sumsFile), cfg.Version)
	made := &sums{Version: cfg.Version, Files: map[string]fileSum{}}
	// put writes the file orig is replaced by, from inputs in (nil:
	// none but its content) with content.
	put := func(orig string, in []byte, content func() ([]byte, error)) error {
		rel, err := filepath.Rel(cfg.Root, orig)
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("%s is outside the module at %s", orig, cfg.Root)
		}
		dst := filepath.Join(cfg.OutDir, rel)
		res.Replace[orig] = dst
		key := ""
		if in != nil {
			key = hash([]byte(rel), in)
		}
		prev, readErr := os.ReadFile(dst)
		if had, ok := old[rel]; ok && key != "" && had.In == key && readErr == nil && hash(prev) == had.Out {
			made.Files[rel] = had
			return nil
		}
		text, err := content()
		if err != nil {
			return err
		}
		if key != "" {
			made.Files[rel] = fileSum{In: key, Out: hash(text)}
		}
		if readErr == nil && bytes.Equal(prev, text) {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, text, 0o644)
	}
	var files []string
	for f := range cfg.Code.Files {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		e, err := edit(f, src, cfg.Code.Files[f])
		if err != nil {
			return nil, err
		}
		if err := put(f, e.inputs(), e.format); err != nil {
			return nil, err
		}
	}
	var sources []string
	for f := range cfg.Code.Helpers {
		sources = append(sources, f)
	}
	sort.Strings(sources)
	for _, f := range sources {
		h := cfg.Code.Helpers[f]
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		path, err := helperPath(f)
		if err != nil {
			return nil, err
		}
		err = put(path, helperInputs(h, src), func() ([]byte, error) {
			text := helperText(h, src)
			out, err := format.Source(text)
			if err != nil {
				return nil, fmt.Errorf("helpers of %s: %v\n%s", f, err, text)
			}
			return restorePositions(path, out), nil
		})
		if err != nil {
			return nil, err
		}
	}
	for name, content := range cfg.Runtime {
		if err := put(filepath.Join(cfg.Root, cfg.RuntimeDir, name), nil, func() ([]byte, error) { return content, nil }); err != nil {
			return nil, err
		}
	}
	if err := removeOthers(cfg.OutDir, res.Replace); err != nil {
		return nil, err
	}
	if err := made.write(filepath.Join(dir, sumsFile)); err != nil {
		return nil, err
	}
	overlay, err := json.MarshalIndent(map[string]map[string]string{"Replace": res.Replace}, "", "\t")
	if err != nil {
		return nil, err
	}
	if prev, err := os.ReadFile(res.Overlay); err == nil && bytes.Equal(prev, append(overlay, '\n')) {
		return res, nil
	}
	if err := os.WriteFile(res.Overlay, append(overlay, '\n'), 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

// Apply applies edits to the source of file and formats the result.
func Apply(file string, src []byte, edits []instrument.Edit) ([]byte, error) {
	e, err := edit(file, src, edits)
	if err != nil {
		return nil, err
	}
	return e.format()
}

// editedFile is a source file with its edits applied, before gofmt.
type editedFile struct {
	file               string
	src, edited        []byte
	replaced, inserted [][2]int // ranges of the source that edits replaced, of edited that they inserted
}

// edit applies edits to the source of file.
func edit(file string, src []byte, edits []instrument.Edit) (*editedFile, error) {
	edits = append([]instrument.Edit(nil), edits...)
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].Off != edits[j].Off {
			return edits[i].Off < edits[j].Off
		}
		return edits[i].Order < edits[j].Order
	})
	a := applier{file: file, src: src, lines: lineStarts(src), edits: edits}
	if err := a.emit(0, len(src), nil); err != nil {
		return nil, err
	}
	e := &editedFile{file: file, src: src, edited: a.b.Bytes(), inserted: a.inserted}
	for _, ed := range edits {
		if ed.End > ed.Off {
			e.replaced = append(e.replaced, [2]int{ed.Off, ed.End})
		}
	}
	return e, nil
}

// inputs are all that format reads, as bytes to hash.
func (e *editedFile) inputs() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%q %d %d %v %v\n", e.file, len(e.src), len(e.edited), e.replaced, e.inserted)
	b.Write(e.src)
	b.Write(e.edited)
	return b.Bytes()
}

// format formats the edited file, or leaves it unformatted when gofmt
// would move a token of the user's to another line.
func (e *editedFile) format() ([]byte, error) {
	formatted, err := format.Source(e.edited)
	if err != nil {
		return nil, fmt.Errorf("%s: the instrumented source does not parse: %v", e.file, err)
	}
	if keepsPositions(e.file, e.src, e.edited, formatted, e.replaced, e.inserted) {
		return formatted, nil
	}
	return e.edited, nil
}

// applier writes a file's source with its edits.
type applier struct {
	file     string
	src      []byte
	lines    []int
	edits    []instrument.Edit // sorted by offset, then order
	b        bytes.Buffer
	inserted [][2]int // ranges of the output that are not the user's
}

// emit writes src[lo:hi] with the edits inside it that apply in the
// copies of the twins active (the edits Only for another are left out).
// A twin edit writes its copy of the source after its text, then the
// source follows as usual (instrument.Edit).
func (a *applier) emit(lo, hi int, active []int) error {
	pos := lo
	for _, e := range a.edits {
		if e.Off < lo || e.End > hi {
			continue
		}
		if (e.Only != 0 && !slices.Contains(active, e.Only)) || slices.Contains(active, e.Twin) {
			continue // another twin's, or the twin whose copy this is
		}
		if e.Off < pos || e.End < e.Off {
			return fmt.Errorf("%s: overlapping edits at offset %d", a.file, e.Off)
		}
		a.b.Write(a.src[pos:e.Off])
		a.insert(e.Text, e.End)
		if e.Twin != 0 {
			if err := a.emit(e.End, e.CopyEnd, append(slices.Clip(active), e.Twin)); err != nil {
				return err
			}
			a.insert(e.After, e.End)
		}
		pos = e.End
	}
	a.b.Write(a.src[pos:hi])
	return nil
}

// insert writes text that is not the user's, and when it holds
// statements or ends a line (a directive), says where the user's next
// token (at offset next) is: gofmt breaks the line after inserted
// statements.
func (a *applier) insert(text string, next int) {
	start := a.b.Len()
	a.b.WriteString(text)
	if strings.ContainsAny(text, ";\n") {
		line, col := position(a.lines, next)
		fmt.Fprintf(&a.b, "/*line %s:%d:%d*/", a.file, line, col)
	}
	a.inserted = append(a.inserted, [2]int{start, a.b.Len()})
}

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// position returns the 1-based line and column of offset off.
func position(starts []int, off int) (int, int) {
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	return i + 1, off - starts[i] + 1
}

// keepsPositions checks that every token of the user's in the formatted
// output has, after line directives, the line it has in the original.
// gofmt changes only white space, commas and semicolons, so the other
// tokens of edited and formatted correspond one to one; the tokens of the
// user's are those of src outside replaced and those of edited outside
// inserted.
func keepsPositions(file string, src, edited, formatted []byte, replaced, inserted [][2]int) bool {
	type tok struct {
		line int
		user bool
	}
	scan := func(text []byte, withLines bool, skip [][2]int) []tok {
		fset := token.NewFileSet()
		tf := fset.AddFile(file, -1, len(text))
		var s scanner.Scanner
		s.Init(tf, text, nil, 0)
		var out []tok
		k := 0
		for {
			p, t, _ := s.Scan()
			if t == token.EOF {
				return out
			}
			if t == token.COMMA || t == token.SEMICOLON {
				continue
			}
			off := tf.Offset(p)
			for k < len(skip) && skip[k][1] <= off {
				k++
			}
			user := !(k < len(skip) && skip[k][0] <= off && off < skip[k][1])
			out = append(out, tok{line: fset.PositionFor(p, withLines).Line, user: user})
		}
	}
	var orig []tok
	for _, t := range scan(src, false, replaced) {
		if t.user {
			orig = append(orig, t)
		}
	}
	ed := scan(edited, false, inserted)
	fm := scan(formatted, true, nil)
	if len(ed) != len(fm) {
		return false
	}
	i := 0
	for j, t := range ed {
		if !t.user {
			continue
		}
		if i >= len(orig) || fm[j].line != orig[i].line {
			return false
		}
		i++
	}
	return i == len(orig)
}

// helperPath names the generated file of a source file: beside it, with
// its name after "pmm_gen_", so that suffixes such as _test or _linux keep
// their meaning.
func helperPath(source string) (string, error) {
	dir, base := filepath.Split(source)
	for prefix := "pmm_gen_"; len(prefix) < 20; prefix = "z" + prefix {
		p := filepath.Join(dir, prefix+base)
		if _, err := os.Stat(p); os.IsNotExist(err) {
			return p, nil
		}
	}
	return "", fmt.Errorf("no free name for the helpers of %s", source)
}

// helperInputs are all that helperText reads of h and src, as bytes to
// hash: a helpers file whose inputs are unchanged is not made again,
// and making its text parses its declarations (qualifiers), which for
// every file of expr cost about 0.08 s of CPU after a change of the
// questions that changed two of them (docs/PERFORMANCE.md).
func helperInputs(h *instrument.Helpers, src []byte) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%q %q %q %d %d\n", filepath.Base(h.Source), buildConstraint(src), h.Package, len(h.Imports), len(h.Decls))
	for _, p := range slices.Sorted(maps.Keys(h.Imports)) {
		fmt.Fprintf(&b, "%q %q\n", p, h.Imports[p])
	}
	for _, d := range h.Decls {
		fmt.Fprintf(&b, "%d\n%s\n", len(d), d)
	}
	return b.Bytes()
}

// helperText is the Go file of the helpers of a source file, with its
// build constraints and package, before gofmt.
func helperText(h *instrument.Helpers, src []byte) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by pmm from " + filepath.Base(h.Source) + ". DO NOT EDIT.\n\n")
	if c := buildConstraint(src); c != "" {
		b.WriteString(c + "\n\n")
	}
	b.WriteString("package " + h.Package + "\n\n")
	used := qualifiers(h)
	var paths []string
	for p, name := range h.Imports {
		if used == nil || used[name] {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	b.WriteString("import (\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "\t%s %s\n", h.Imports[p], strconv.Quote(p))
	}
	b.WriteString(")\n\n")
	for _, d := range h.Decls {
		b.WriteString(d + "\n\n")
	}
	return b.Bytes()
}

// qualifiers returns the names the declarations of h qualify
// identifiers with (x in x.Sel), or nil if they do not parse (the
// helpers file then says why). The helpers import only those: an import
// name of h may be one a user's file needs alone, for the type
// arguments of a generic call the helpers do not name (chi's
// slices.Concat[Middlewares, func(http.Handler) http.Handler], whose
// wrapper names only Middlewares), and Go refuses an unused import.
func qualifiers(h *instrument.Helpers) map[string]bool {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n\n"+strings.Join(h.Decls, "\n\n"), parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	return used
}

// buildConstraint returns the //go:build line of a Go file, if any.
func buildConstraint(src []byte) string {
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "//go:build ") {
			return line
		}
		if strings.HasPrefix(line, "package ") {
			break
		}
	}
	return ""
}

// restorePositions follows every line holding a /*line*/ comment of the
// user's file with one that gives the generated file its own positions
// back, so that only the call at the user's position is attributed to
// the user's line.
func restorePositions(path string, src []byte) []byte {
	lines := strings.Split(string(src), "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.Contains(lines[i], "/*line ") && !strings.HasPrefix(strings.TrimSpace(lines[i+1]), "/*line") {
			lines[i+1] = fmt.Sprintf("/*line %s:%d:1*/%s", path, i+2, lines[i+1])
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// sumsFile is where Write keeps, beside the overlay file, what each file
// of the overlay was made from.
const sumsFile = "overlay.sum"

// sums are what the files of the overlay were made from, by path
// relative to the module root, and the Version that made them.
type sums struct {
	Version string
	Files   map[string]fileSum
}

// fileSum hashes a file's inputs and the content written from them.
type fileSum struct{ In, Out string }

// readSums returns the files of the sums at path if version made them;
// else none.
func readSums(path, version string) map[string]fileSum {
	data, err := os.ReadFile(path)
	var s sums
	if err != nil || json.Unmarshal(data, &s) != nil || s.Version != version {
		return nil
	}
	return s.Files
}

// write writes the sums to path, whole or not at all.
func (s *sums) write(path string) error {
	data, err := json.MarshalIndent(s, "", "\t")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// hash is the SHA-256 of parts, each preceded by its length.
func hash(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// removeOthers removes from dir the files that are not among those of
// replace, and the directories left empty.
func removeOthers(dir string, replace map[string]string) error {
	keep := map[string]bool{}
	for _, dst := range replace {
		keep[dst] = true
	}
	var dirs []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist) && path == dir:
			return filepath.SkipDir
		case err != nil:
			return err
		case d.IsDir():
			dirs = append(dirs, path)
		case !keep[path]:
			return os.Remove(path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i > 0; i-- { // the deepest first; dir itself stays
		if entries, err := os.ReadDir(dirs[i]); err == nil && len(entries) == 0 {
			if err := os.Remove(dirs[i]); err != nil {
				return err
			}
		}
	}
	return nil
}
