package load

import (
	"errors"
	"math"
	"path/filepath"

	"pmm.dev/pmm/rt/logfmt"
)

// CellsTable is the table of the aggregate cells of all runs: the
// partial results (count, sum, min, max per group) that the runtime keeps
// instead of tuples for the questions that ask only for aggregates. A
// cell's group is the row of the question's cells table whose ID column
// holds the same cell number in the same run: they join on (run, cell).
const CellsTable = "pmm_cells"

// CellsTableDDL creates CellsTable. sum, min and max are INTEGER for the
// cells of int values and REAL for those of float values (a NaN sum is
// NULL). Load runs it; the schema package may run it too.
const CellsTableDDL = `CREATE TABLE IF NOT EXISTS pmm_cells (run INTEGER, cell INTEGER, count INTEGER, sum, min, max)`

// cellsResult is what loadCells read.
type cellsResult struct {
	stored    int64    // rows inserted
	malformed int64    // counted cells of an unknown kind
	skipped   int      // chunk files of a process without segments, left in place
	files     []string // chunk files loaded, and files that are not chunks: removed after the commit
}

// loadCells inserts the counted cells of the chunk files in logDir into
// CellsTable, with the run's id, in the caller's transaction. A cell's
// number is offset like an ID column (by its process's index in procs,
// shifted by ProcessShift), so that it matches its record's. A chunk file
// whose process has no log segment in procs is skipped and left in
// logDir (it cannot happen: the runtime writes a cell's record before
// the cell); a file too short for a chunk header (its process died before
// writing it) holds no cells and is removed with the loaded files.
func loadCells(c *conn, logDir string, procs []*process, run int64) (r cellsResult, err error) {
	if err := c.exec(CellsTableDDL); err != nil {
		return r, err
	}
	paths, err := filepath.Glob(filepath.Join(logDir, "*"+logfmt.AggFileSuffix))
	if err != nil || len(paths) == 0 {
		return r, err
	}
	type key struct {
		pid, start int64
		tag        uint64
	}
	index := make(map[key]int64, len(procs))
	for i, p := range procs {
		index[key{p.header.PID, p.header.Start, p.header.Process}] = int64(i)
	}
	st, err := c.prepare("INSERT INTO " + CellsTable + " (run, cell, count, sum, min, max) VALUES (?, ?, ?, ?, ?, ?)")
	if err != nil {
		return r, err
	}
	defer st.close()
	var data []byte
	for _, path := range paths {
		if data, err = readFile(path, data); err != nil {
			return r, err
		}
		h, err := logfmt.ParseAggChunk(data)
		if errors.Is(err, logfmt.ErrNotAggChunk) {
			r.files = append(r.files, path)
			continue
		}
		proc, ok := index[key{h.PID, h.Start, h.Process}]
		if !ok {
			r.skipped++
			continue
		}
		for i := 0; i < h.Cells; i++ {
			cell := logfmt.ReadAggCell(data, h, i)
			if cell.Count == 0 {
				continue
			}
			st.bindInt64(1, run)
			st.bindInt64(2, proc<<ProcessShift+cell.Number)
			st.bindInt64(3, int64(cell.Count))
			switch cell.Kind {
			case logfmt.AggKindInt:
				st.bindInt64(4, int64(cell.Sum))
				st.bindInt64(5, int64(cell.Min))
				st.bindInt64(6, int64(cell.Max))
			case logfmt.AggKindFloat:
				for j, bits := range []uint64{cell.Sum, cell.Min, cell.Max} {
					if v := math.Float64frombits(bits); math.IsNaN(v) {
						st.bindNull(4 + j)
					} else {
						st.bindFloat(4+j, v)
					}
				}
			default:
				r.malformed++
				continue
			}
			if err := st.exec(); err != nil {
				return r, err
			}
			r.stored++
		}
		r.files = append(r.files, path)
	}
	return r, nil
}
