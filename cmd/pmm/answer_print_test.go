package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"pmm.dev/pmm/rt/load"
)

// answerPrintRowsEnv sets BenchmarkAnswerPrint's rows (default 500000,
// the rows of BenchmarkAnswer's durations answer at 1 M tuples).
const answerPrintRowsEnv = "PMM_BENCH_ROWS"

// answerPrintDBEnv names a pmm.db whose durations view BenchmarkAnswerPrint
// reads instead of a table of its own: the database of rt/load's
// BenchmarkAnswer that its PMM_BENCH_KEEP kept (durations-N.db), so
// that the read is pmm answer's, SQL of the view included. The rows are
// the view's (PMM_BENCH_ROWS is not read).
const answerPrintDBEnv = "PMM_BENCH_DB"

// BenchmarkAnswerPrint measures what pmm answer does after SQLite: read
// an answer of N rows (run, x, fn, d) from a table through SQLite's C
// API without its run column (load.Query, dropColumn) and print it, as a table, as
// CSV, or as the JSON document of pmm answer --json, to io.Discard, as
// pmm answer does: CSV and JSON each row as it is read, the table once
// all are. It reports the wall and CPU seconds of reading and printing
// (answer-s, answer-cpu-s) and the peak of the Go heap's live objects
// while it ran (heap-MiB, sampled every millisecond).
//
//	go test ./cmd/pmm -run '^$' -bench AnswerPrint -benchtime 1x -count 3
//	PMM_BENCH_DB=/tmp/durations-10000000.db go test ./cmd/pmm -run '^$' -bench 'AnswerPrint/(table|csv)$' -benchtime 1x
func BenchmarkAnswerPrint(b *testing.B) {
	path, query, n := os.Getenv(answerPrintDBEnv), "SELECT * FROM durations WHERE run = ?", -1
	if path == "" {
		path, query, n = filepath.Join(b.TempDir(), "answers.db"), "SELECT * FROM answer WHERE run = ?", 500000
		if env := os.Getenv(answerPrintRowsEnv); env != "" {
			var err error
			if n, err = strconv.Atoi(env); err != nil {
				b.Fatalf("%s: %v", answerPrintRowsEnv, err)
			}
		}
		fillAnswerPrintTable(b, path, n)
	}
	printers := map[string]func(io.Writer, []string, rowIter) error{
		"table": func(w io.Writer, header []string, rows rowIter) error {
			return printAnswerTable(w, "durations", false, header, rows, nil, false)
		},
		"csv": printCSV,
		"json": func(w io.Writer, header []string, rows rowIter) error {
			doc := jsonAnswers{Run: 1, Answers: []jsonAnswer{{Question: "durations", Rows: json.RawMessage(rowsPlaceholder), Incomplete: []incompleteNote{}}}, Questions: 1}
			return encodeAnswers(w, doc, func(_ int, w io.Writer) error {
				return writeJSONRows(w, header, rows, indentedJSONLayout(answerRowsDepth))
			})
		},
	}
	for _, format := range []string{"table", "csv", "json"} {
		b.Run(format, func(b *testing.B) {
			var answer, answerCPU time.Duration
			peak := watchHeap()
			for i := 0; i < b.N; i++ {
				runtime.GC()
				start, cpu := time.Now(), processCPU()
				r, err := load.Query(path, query, 1)
				if err != nil {
					b.Fatal(err)
				}
				header, rows := dropColumn(r.Columns(), r, "run")
				counted := &countingRows{rowIter: rows}
				if err := printers[format](io.Discard, header, counted); err != nil {
					b.Fatal(err)
				}
				r.Close()
				answer += time.Since(start)
				answerCPU += processCPU() - cpu
				if n >= 0 && counted.n != n || counted.n == 0 {
					b.Fatalf("%d rows, want %d", counted.n, n)
				}
			}
			b.ReportMetric(answer.Seconds()/float64(b.N), "answer-s")
			b.ReportMetric(answerCPU.Seconds()/float64(b.N), "answer-cpu-s")
			b.ReportMetric(float64(peak())/(1<<20), "heap-MiB")
		})
	}
}

// fillAnswerPrintTable makes the table answer of n rows (run, x, fn, d)
// in the database at path.
func fillAnswerPrintTable(b *testing.B, path string, n int) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE answer (run INTEGER, x INTEGER, fn TEXT, d INTEGER);
		WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < ?)
		INSERT INTO answer SELECT 1, x << 1, 'main.f' || (x % 40), (x * 7919) % 1000003 FROM i`, n); err != nil {
		b.Fatal(err)
	}
}

// countingRows counts the rows it yields.
type countingRows struct {
	rowIter
	n int
}

func (c *countingRows) Next() bool {
	if !c.rowIter.Next() {
		return false
	}
	c.n++
	return true
}

// watchHeap samples the bytes of the Go heap's live and unswept objects
// every millisecond until the returned function is called, which returns
// the largest sample.
func watchHeap() func() uint64 {
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-tick.C:
			case <-stop:
				done <- peak
				return
			}
		}
	}()
	return func() uint64 { close(stop); return <-done }
}

// processCPU is the processor time this process used so far, user and
// system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPrintTableAsTabwriter compares printTable's alignment with
// text/tabwriter's on tables of every shape: wide and multi-byte cells,
// NULL, one column, no rows, and cells holding tabwriter's control
// characters (quoted as %q would, so that they keep the alignment).
func TestPrintTableAsTabwriter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		rows   [][]any
	}{
		{"answer", []string{"x", "fn", "d"}, [][]any{{int64(2), "main.f1", int64(1234567)}, {int64(1099511627776), "main.Serve", nil}, {int64(-3), "", 2.5}}},
		{"multi-byte", []string{"name", "n"}, [][]any{{"héllo, 世界", int(3)}, {"a", int(12345)}}},
		{"wide header", []string{"a_long_column_name", "b"}, [][]any{{int64(1), int64(2)}}},
		{"one column", []string{"fn"}, [][]any{{"main.f"}, {nil}}},
		{"no rows", []string{"run", "fn"}, nil},
		{"tab and newline", []string{"s", "n"}, [][]any{{"a\tb", int64(1)}, {"c\nd", int64(22)}, {"e\xfff", int64(3)}}},
		{"ragged", []string{"a", "b", "c"}, [][]any{{"x", "y"}, {"1", "2", "3", "4"}}},
		{"chunks of cells", []string{"i", "s"}, manyRows(3*chunkCells/2 + 7)},
		{"ragged chunks", []string{"i", "s"}, append(manyRows(chunkCells), []any{"last"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, want strings.Builder
			if err := printTable(&got, tc.header, tc.rows); err != nil {
				t.Fatal(err)
			}
			tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, strings.Join(tc.header, "\t"))
			for _, row := range tc.rows {
				cells := make([]string, len(row))
				for i, v := range row {
					cells[i] = "-"
					if v != nil {
						cells[i] = fmt.Sprint(v)
					}
					if strings.ContainsAny(cells[i], "\t\n") || !utf8.ValidString(cells[i]) {
						cells[i] = fmt.Sprintf("%q", cells[i]) // quoted, to keep the alignment
					}
				}
				fmt.Fprintln(tw, strings.Join(cells, "\t"))
			}
			tw.Flush()
			if got.String() != want.String() {
				t.Errorf("printTable:\n%q\ntabwriter:\n%q", got.String(), want.String())
			}
		})
	}
}

// manyRows returns n rows of two cells of growing widths.
func manyRows(n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i * i), strings.Repeat("é", i%13)}
	}
	return rows
}

// TestPrintJSONValues checks the JSON of each kind of value SQLite
// returns, infinities included.
func TestPrintJSONValues(t *testing.T) {
	var b strings.Builder
	if err := printJSON(&b, []string{"x", "fn", "d", "note"}, [][]any{{int64(-7), "a<b\"", 2.5, nil}, {int64(1) << 41, "", 1e21, "é"}}); err != nil {
		t.Fatal(err)
	}
	want := "[\n  {\"x\": -7, \"fn\": \"a\\u003cb\\\"\", \"d\": 2.5, \"note\": null},\n  {\"x\": 2199023255552, \"fn\": \"\", \"d\": 1e+21, \"note\": \"é\"}\n]\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := printJSON(&b, []string{"d"}, [][]any{{int64(1)}, {math.Inf(1)}, {math.Inf(-1)}}); err != nil {
		t.Fatal(err)
	}
	if want := "[\n  {\"d\": 1},\n  {\"d\": \"+Inf\"},\n  {\"d\": \"-Inf\"}\n]\n"; b.String() != want {
		t.Errorf("infinities: got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestRowReaderDropsRun checks that the rows of an answer leave out the
// run column, from the header and from every row, the other values
// keeping their order, and that the rows read (each into the same
// slice), through database/sql or load.Query, are the table's.
func TestRowReaderDropsRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "answers.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE a (x INTEGER, run INTEGER, fn TEXT, b BLOB); INSERT INTO a VALUES (2, 1, 'f', x'41'), (4, 1, NULL, NULL), (6, 2, 'g', NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, via := range []string{"database/sql", "load.Query"} {
		var cols []string
		var it rowIter
		if via == "database/sql" {
			r, err := queryRowReader(context.Background(), db, "SELECT * FROM a WHERE run = ? ORDER BY x", 1)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cols, it = r.header, r
		} else {
			r, err := load.Query(path, "SELECT * FROM a WHERE run = ? ORDER BY x", 1)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			cols, it = r.Columns(), r
		}
		header, rows := dropColumn(cols, it, "run")
		var got []string
		for rows.Next() {
			got = append(got, fmt.Sprint(rows.Row()))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(header, got); got != "[x fn b] [[2 f A] [4 <nil> <nil>]]" {
			t.Errorf("%s: got %s", via, got)
		}
	}
}

// TestEncodeAnswersAsEncoder checks that pmm answer --json writes what
// encoding/json's indenting Encoder writes for the answers with their
// rows embedded (as before: the rows as printJSON prints them, in a
// json.RawMessage): values of every kind, no rows, no columns, and text
// that looks like the rows' key inside strings.
func TestEncodeAnswersAsEncoder(t *testing.T) {
	type answer struct {
		header []string
		rows   [][]any
		notes  []incompleteNote
	}
	answers := []answer{
		{[]string{"x", "fn", "d"}, [][]any{{int64(2), "main.f1", 2.5}, {int64(-1) << 41, `"rows": null <&> é` + "\u2028", nil}}, []incompleteNote{{Run: 1, Reason: `"rows": null`, Position: "a.go:1:2"}}},
		{[]string{"fn"}, nil, []incompleteNote{}},
		{nil, [][]any{{}, {}}, []incompleteNote{}},
		{[]string{"n"}, [][]any{{int64(0)}}, nil},
	}
	for _, run := range []int64{0, 7} {
		doc := jsonAnswers{Run: run, Incomplete: 1, Questions: len(answers)}
		for i, a := range answers {
			doc.Answers = append(doc.Answers, jsonAnswer{Question: fmt.Sprintf("q%d", i), Rows: json.RawMessage(rowsPlaceholder), Incomplete: a.notes})
		}
		var got strings.Builder
		err := encodeAnswers(&got, doc, func(i int, w io.Writer) error {
			return writeJSONRows(w, answers[i].header, &sliceRows{rows: answers[i].rows}, indentedJSONLayout(answerRowsDepth))
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range answers {
			var b strings.Builder
			if err := printJSON(&b, a.header, a.rows); err != nil {
				t.Fatal(err)
			}
			doc.Answers[i].Rows = json.RawMessage(b.String())
		}
		var want strings.Builder
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("run %d: encodeAnswers:\n%s\nencoding/json:\n%s", run, got.String(), want.String())
		}
	}
}
