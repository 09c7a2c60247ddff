package load

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"pmm.dev/pmm/rt/logfmt"
)

// LiveCell is one aggregate cell of a running program, read from its log
// directory: its question's cells table, its group's values (the columns
// of that table after the cell number), and its words as they were when
// read.
type LiveCell struct {
	Table uint16
	Group []any // string, int64, uint64, float64, bool or nil; a list as its text
	logfmt.AggCell
}

// CellReader reads the aggregate cells of the processes writing into a log
// directory while they run, without taking part in their recording: it
// reads the files the runtime maps (the records that name the cells'
// groups, and the chunk files), and writes nothing. Each Read sees every
// cell at one instant of its own: its words are stored by single stores
// (atomic adds, or a Cell's plain adds on its P), and its count is added
// last, so a cell read has real min and max and a sum of at least the
// values counted (a value being added may be in the sum and not yet in
// the count). A cell may be named by records of several tables (a Cell
// serving a count and a sum): Read returns it once for each.
type CellReader struct {
	dir    string
	tables map[uint16]bool
	// groups are the groups of the cells seen, by process and number: one
	// per table whose record names the cell (a cell may serve several
	// tables: pmmrt.NewCell).
	groups map[liveKey][]liveGroup
	// closed are the segments read whole once closed: nothing is added
	// to them.
	closed map[string]bool
	buf    []byte
}

type liveGroup struct {
	table  uint16
	values []any
}

type liveKey struct {
	pid, start int64
	tag        uint64
	cell       int64
}

// NewCellReader returns a reader of the cells of tables (the ids of cells
// tables, schema.KindCells) in logDir.
func NewCellReader(logDir string, tables []uint16) *CellReader {
	r := &CellReader{dir: logDir, tables: map[uint16]bool{}, groups: map[liveKey][]liveGroup{}, closed: map[string]bool{}}
	for _, t := range tables {
		r.tables[t] = true
	}
	return r
}

// Read returns the cells of the reader's tables counted so far by every
// process of the log directory. A cell whose group's record is not found
// (its process wrote the record first, so only a torn segment can lose
// it) is left out.
func (r *CellReader) Read() ([]LiveCell, error) {
	if err := r.readGroups(); err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(r.dir, "*"+logfmt.AggFileSuffix))
	if err != nil {
		return nil, err
	}
	var cells []LiveCell
	for _, path := range paths {
		if r.buf, err = readFile(path, r.buf); err != nil {
			if isNotExist(err) { // loaded and removed meanwhile
				continue
			}
			return nil, err
		}
		h, err := logfmt.ParseAggChunk(r.buf)
		if err != nil {
			continue // its header is not written yet
		}
		for i := 0; i < h.Cells; i++ {
			c := logfmt.ReadAggCell(r.buf, h, i)
			if c.Count == 0 || (c.Kind != logfmt.AggKindInt && c.Kind != logfmt.AggKindFloat) {
				continue
			}
			k := liveKey{h.PID, h.Start, h.Process, c.Number}
			for _, g := range r.groups[k] {
				cells = append(cells, LiveCell{Table: g.table, Group: g.values, AggCell: c})
			}
		}
	}
	return cells, nil
}

// readGroups reads the records of the cells tables in the segments not yet
// read whole.
func (r *CellReader) readGroups() error {
	paths, err := filepath.Glob(filepath.Join(r.dir, "*"+logfmt.SegmentFileSuffix))
	if err != nil {
		return err
	}
	for _, path := range paths {
		if r.closed[path] {
			continue
		}
		if r.buf, err = readFile(path, r.buf); err != nil {
			if isNotExist(err) {
				continue
			}
			return err
		}
		h, err := logfmt.ParseSegment(r.buf)
		if err != nil || h.Seq == logfmt.UnusedSegment {
			continue
		}
		if h.End != 0 {
			r.closed[path] = true
		}
		s := logfmt.NewScanner(r.buf, h)
		for s.Next() {
			rec := s.Record()
			if !r.tables[rec.Table] {
				continue
			}
			var f logfmt.Field
			if ok, err := rec.NextField(&f); !ok || err != nil || f.Kind != logfmt.KindInt {
				continue
			}
			k := liveKey{h.PID, h.Start, h.Process, f.Int}
			if slices.ContainsFunc(r.groups[k], func(g liveGroup) bool { return g.table == rec.Table }) {
				continue
			}
			group, err := groupValues(rec)
			if err != nil {
				return fmt.Errorf("%s: %v", path, err)
			}
			r.groups[k] = append(r.groups[k], liveGroup{rec.Table, group})
		}
	}
	return nil
}

// groupValues decodes the rest of a cell's record: its group's values,
// copied out of the segment.
func groupValues(rec *logfmt.Record) ([]any, error) {
	var group []any
	var list []string // the items of an open list
	depth := 0
	var f logfmt.Field
	for {
		ok, err := rec.NextField(&f)
		if err != nil {
			return nil, err
		}
		if !ok || f.Kind == logfmt.KindFieldsLost {
			return group, nil
		}
		var v any
		switch f.Kind {
		case logfmt.KindInt:
			v = f.Int
		case logfmt.KindUint:
			v = f.Uint
		case logfmt.KindFloat:
			v = f.Float
		case logfmt.KindBool:
			v = f.Int != 0
		case logfmt.KindString, logfmt.KindBytes:
			v = string(f.Data)
		case logfmt.KindNull:
		case logfmt.KindListBegin:
			depth++
			list = append(list, "[")
			continue
		case logfmt.KindListEnd:
			depth--
			list = append(list, "]")
			if depth == 0 {
				group = append(group, strings.Join(list, " "))
				list = nil
			}
			continue
		}
		if depth > 0 {
			list = append(list, fmt.Sprint(v))
			continue
		}
		group = append(group, v)
	}
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
