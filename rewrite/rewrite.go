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
	"encoding/json"
	"fmt"
	"go/format"
	"go/scanner"
	"go/token"
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
}

// Result lists what was written.
type Result struct {
	Overlay string            // the overlay file for go build -overlay
	Replace map[string]string // original (or new) path → rewritten file
}

// Write writes the rewritten files, the helpers, the runtime and the
// overlay file.
func Write(cfg Config) (*Result, error) {
	if err := os.RemoveAll(cfg.OutDir); err != nil {
		return nil, err
	}
	res := &Result{Overlay: filepath.Join(filepath.Dir(cfg.OutDir), "overlay.json"), Replace: map[string]string{}}
	put := func(orig string, content []byte) error {
		rel, err := filepath.Rel(cfg.Root, orig)
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("%s is outside the module at %s", orig, cfg.Root)
		}
		dst := filepath.Join(cfg.OutDir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, content, 0o644); err != nil {
			return err
		}
		res.Replace[orig] = dst
		return nil
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
		out, err := Apply(f, src, cfg.Code.Files[f])
		if err != nil {
			return nil, err
		}
		if err := put(f, out); err != nil {
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
		out, err := helperFile(path, h, src)
		if err != nil {
			return nil, fmt.Errorf("helpers of %s: %w", f, err)
		}
		if err := put(path, out); err != nil {
			return nil, err
		}
	}
	for name, content := range cfg.Runtime {
		if err := put(filepath.Join(cfg.Root, cfg.RuntimeDir, name), content); err != nil {
			return nil, err
		}
	}
	overlay, err := json.MarshalIndent(map[string]map[string]string{"Replace": res.Replace}, "", "\t")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(res.Overlay, append(overlay, '\n'), 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

// Apply applies edits to the source of file and formats the result.
func Apply(file string, src []byte, edits []instrument.Edit) ([]byte, error) {
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
	edited, inserted := a.b.Bytes(), a.inserted
	formatted, err := format.Source(edited)
	if err != nil {
		return nil, fmt.Errorf("%s: the instrumented source does not parse: %v", file, err)
	}
	var replaced [][2]int // ranges of the source that edits replaced
	for _, e := range edits {
		if e.End > e.Off {
			replaced = append(replaced, [2]int{e.Off, e.End})
		}
	}
	if keepsPositions(file, src, edited, formatted, replaced, inserted) {
		return formatted, nil
	}
	return edited, nil
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
// statements, says where the user's next token (at offset next) is:
// gofmt breaks the line after inserted statements.
func (a *applier) insert(text string, next int) {
	start := a.b.Len()
	a.b.WriteString(text)
	if strings.Contains(text, ";") {
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

// helperFile writes the helpers of a source file as a Go file with its
// build constraints and package.
func helperFile(path string, h *instrument.Helpers, src []byte) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by pmm from " + filepath.Base(h.Source) + ". DO NOT EDIT.\n\n")
	if c := buildConstraint(src); c != "" {
		b.WriteString(c + "\n\n")
	}
	b.WriteString("package " + h.Package + "\n\n")
	var paths []string
	for p := range h.Imports {
		paths = append(paths, p)
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
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, b.Bytes())
	}
	return restorePositions(path, out), nil
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
