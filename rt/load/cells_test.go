package load

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"pmm.dev/pmm/rt/logfmt"
	"pmm.dev/pmm/rt/pmmrt"
)

// cellTables are the tables of the cells' records in the tests: the cell
// number (an ID column), then the group's fields.
var cellTables = []Table{
	{ID: 1, Name: "lat_cells", Columns: []Column{{"cell", "INTEGER", true}, {"name", "TEXT", false}, {"r", "INTEGER", false}}},
	{ID: 2, Name: "frac_cells", Columns: []Column{{"cell", "INTEGER", true}, {"r", "INTEGER", false}}},
	{ID: 3, Name: "events", Columns: []Column{{"id", "INTEGER", true}, {"i", "INTEGER", false}}},
}

// addCells is what the program of the tests records: n additions to three
// int cells and two float cells, and a tuple.
func addCells(n int) {
	var g pmmrt.Rec
	for i := 0; i < n; i++ {
		g.Str("k")
		g.Int(int64(i % 3))
		pmmrt.AggInt(1, &g, int64(i)-100)
		g.Int(int64(i % 2))
		pmmrt.AggFloat(2, &g, float64(i)/4)
	}
	pmmrt.Emit2(3, int64(pmmrt.NextID()), 0)
}

// wantCells is what addCells(n) records, joined: the rows of the queries
// below, for each process.
func wantCells(n int) (lat, frac [][]string) {
	for r := 0; r < 3; r++ {
		count, sum, min, max := 0, 0, 0, 0
		for i := r; i < n; i += 3 {
			v := i - 100
			if count == 0 || v < min {
				min = v
			}
			if count == 0 || v > max {
				max = v
			}
			count++
			sum += v
		}
		lat = append(lat, []string{"text:k", fmtInt(int64(r)), fmtInt(int64(count)), fmtInt(int64(sum)), fmtInt(int64(min)), fmtInt(int64(max))})
	}
	for r := 0; r < 2; r++ {
		count, sum := 0, 0.0
		for i := r; i < n; i += 2 {
			count++
			sum += float64(i) / 4
		}
		last := (n - 1 - r) / 2 * 2
		frac = append(frac, []string{fmtInt(int64(r)), fmtInt(int64(count)), fmt.Sprintf("real:%g", sum),
			fmt.Sprintf("real:%g", float64(r)/4), fmt.Sprintf("real:%g", float64(last+r)/4)})
	}
	return lat, frac
}

const (
	latQuery = `SELECT t.name, t.r, c.count, c.sum, c.min, c.max FROM lat_cells t JOIN pmm_cells c USING (run, cell)
		WHERE run = (SELECT max(id) FROM runs) ORDER BY t.cell`
	fracQuery = `SELECT t.r, c.count, c.sum, c.min, c.max FROM frac_cells t JOIN pmm_cells c USING (run, cell)
		WHERE run = (SELECT max(id) FROM runs) ORDER BY t.cell`
)

// TestCells records cells in this process, loads them and joins them
// with their records. It also checks what Load does with a chunk file of
// a process without segments (skipped, left) and with a file too short
// for a header (removed).
func TestCells(t *testing.T) {
	dir := record(t, func() { addCells(1000) })
	logs := filepath.Join(dir, "logs")
	chunks, _ := filepath.Glob(filepath.Join(logs, "*"+logfmt.AggFileSuffix))
	if len(chunks) != 1 {
		t.Fatalf("chunk files %v, want 1", chunks)
	}
	// A chunk of another process, with a counted cell, and an empty one.
	orphan := make([]byte, logfmt.AggHeaderSize+logfmt.AggCellSize)
	copy(orphan, logfmt.AggMagic)
	binary.LittleEndian.PutUint64(orphan[logfmt.AggHdrCells:], logfmt.AggCellsPerChunk)
	binary.LittleEndian.PutUint64(orphan[logfmt.AggHdrCellSize:], logfmt.AggCellSize)
	binary.LittleEndian.PutUint64(orphan[logfmt.AggHdrPID:], 1)
	cell := orphan[logfmt.AggHeaderSize:]
	binary.LittleEndian.PutUint64(cell[logfmt.AggCellKind:], logfmt.AggKindInt)
	binary.LittleEndian.PutUint64(cell[logfmt.AggCellCount:], 1)
	orphanPath := filepath.Join(logs, "1-0-0000000000000000-0000"+logfmt.AggFileSuffix)
	emptyPath := filepath.Join(logs, "2-0-0000000000000000-0000"+logfmt.AggFileSuffix)
	if err := os.WriteFile(orphanPath, orphan, 0644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(emptyPath, nil, 0644); err != nil {
		t.Fatal(err)
	}

	stats := load(t, dir, cellTables)
	if stats.Cells != 5 || stats.CellFilesSkipped != 1 || stats.Malformed != 0 || stats.Tuples["lat_cells"] != 3 || stats.Tuples["frac_cells"] != 2 {
		t.Errorf("stats %+v", stats)
	}
	db := open(t, dir)
	lat, frac := wantCells(1000)
	if got := rows(t, db, latQuery); !reflect.DeepEqual(got, lat) {
		t.Errorf("int cells\n got %q\nwant %q", got, lat)
	}
	if got := rows(t, db, fracQuery); !reflect.DeepEqual(got, frac) {
		t.Errorf("float cells\n got %q\nwant %q", got, frac)
	}
	// Every stored cell has its record.
	if got := rows(t, db, `SELECT count(*) FROM pmm_cells c WHERE NOT EXISTS (SELECT 1 FROM lat_cells t WHERE t.run = c.run AND t.cell = c.cell)
		AND NOT EXISTS (SELECT 1 FROM frac_cells t WHERE t.run = c.run AND t.cell = c.cell)`); got[0][0] != "int:0" {
		t.Errorf("cells without a record: %v", got)
	}
	left, _ := filepath.Glob(filepath.Join(logs, "*"))
	if !reflect.DeepEqual(left, []string{orphanPath}) {
		t.Errorf("files left %v, want the orphan chunk only", left)
	}
	// A second run appends its cells; the orphan is skipped again.
	os.Remove(orphanPath)
	record2 := func() {
		pmmrt.Close()
		os.Setenv("PMM_DIR", dir)
		defer os.Unsetenv("PMM_DIR")
		addCells(10)
		pmmrt.Close()
	}
	record2()
	load(t, dir, cellTables)
	lat, frac = wantCells(10)
	if got := rows(t, db, latQuery); !reflect.DeepEqual(got, lat) {
		t.Errorf("second run: int cells\n got %q\nwant %q", got, lat)
	}
	if got := rows(t, db, fracQuery); !reflect.DeepEqual(got, frac) {
		t.Errorf("second run: float cells\n got %q\nwant %q", got, frac)
	}
	if got := rows(t, db, `SELECT run, count(*) FROM pmm_cells GROUP BY run ORDER BY run`); !reflect.DeepEqual(got, [][]string{{"int:1", "int:5"}, {"int:2", "int:5"}}) {
		t.Errorf("cells by run %v", got)
	}
}

// The program of TestCellsExit: addCells, then the exit its argument
// names, without flushing. Its module says go 1.12.
const cellsProgram = `package main

import (
	"os"
	"syscall"
	"time"

	pmmrt "example.com/cells/internal/pmmrt_"
)

func main() {
	var g pmmrt.Rec
	for i := 0; i < 1000; i++ {
		g.Str("k")
		g.Int(int64(i % 3))
		pmmrt.AggInt(1, &g, int64(i)-100)
		g.Int(int64(i % 2))
		pmmrt.AggFloat(2, &g, float64(i)/4)
	}
	pmmrt.Emit2(3, int64(pmmrt.NextID()), 0)
	switch os.Args[1] {
	case "panic":
		panic("boom")
	case "exit":
		os.Exit(3)
	case "sigkill":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
	}
}
`

// TestCellsExit builds a program with the runtime placed by a build
// overlay, as pmm places it, runs it three times, exiting by a panic,
// os.Exit and SIGKILL (nothing flushed, no exit hook), loads the three
// processes at once and checks each one's cells.
func TestCellsExit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	_, pmmDir, bin := buildWithRuntime(t, "example.com/cells", cellsProgram)
	modes := []string{"panic", "exit", "sigkill"}
	for _, mode := range modes {
		cmd := exec.Command(bin, mode)
		cmd.Env = withoutEnv("PMM_DIR", "PMM_RECORD") // the compiled-in default: .pmm
		if err := cmd.Run(); err == nil {
			t.Fatalf("%s: exited normally", mode)
		}
	}
	stats, err := Load(filepath.Join(pmmDir, "pmm.db"), filepath.Join(pmmDir, "logs"), cellTables, Run{Command: "cells"})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Processes != 3 || stats.Cells != 15 || stats.CellFilesSkipped != 0 || stats.Torn != 0 || stats.Malformed != 0 {
		t.Errorf("stats %+v", stats)
	}
	db := open(t, pmmDir)
	lat, frac := wantCells(1000)
	for p := range modes {
		where := fmt.Sprintf(" AND cell >> %d = %d", ProcessShift, p)
		q := strings.Replace(latQuery, " ORDER BY", where+" ORDER BY", 1)
		if got := rows(t, db, q); !reflect.DeepEqual(got, lat) {
			t.Errorf("process %d: int cells\n got %q\nwant %q", p, got, lat)
		}
		q = strings.Replace(fracQuery, " ORDER BY", where+" ORDER BY", 1)
		if got := rows(t, db, q); !reflect.DeepEqual(got, frac) {
			t.Errorf("process %d: float cells\n got %q\nwant %q", p, got, frac)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(pmmDir, "logs", "*")); len(left) != 0 {
		t.Errorf("files left %v", left)
	}
}
