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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// answerPrintRowsEnv sets BenchmarkAnswerPrint's rows (default 500000,
// the rows of BenchmarkAnswer's durations answer at 1 M tuples).
const answerPrintRowsEnv = "PMM_BENCH_ROWS"

// BenchmarkAnswerPrint measures what pmm answer does after SQLite: read
// an answer of N rows (run, x, fn, d) from a table through database/sql
// (queryRows), drop its run column and print it as a table, as CSV, or
// as the JSON document of pmm answer --json, to io.Discard. It reports
// the wall and the CPU seconds of each step:
// query-s (the read alone) and print-s (dropping and printing).
//
//	go test ./cmd/pmm -run '^$' -bench AnswerPrint -benchtime 1x -count 3
func BenchmarkAnswerPrint(b *testing.B) {
	n := 500000
	if env := os.Getenv(answerPrintRowsEnv); env != "" {
		var err error
		if n, err = strconv.Atoi(env); err != nil {
			b.Fatalf("%s: %v", answerPrintRowsEnv, err)
		}
	}
	db, err := sql.Open("sqlite", filepath.Join(b.TempDir(), "answers.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE answer (run INTEGER, x INTEGER, fn TEXT, d INTEGER);
		WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < ?)
		INSERT INTO answer SELECT 1, x << 1, 'main.f' || (x % 40), (x * 7919) % 1000003 FROM i`, n); err != nil {
		b.Fatal(err)
	}
	printers := map[string]func(io.Writer, []string, [][]any) error{
		"table": printTable,
		"csv":   printCSV,
		"json":  printAnswerJSON,
	}
	for _, format := range []string{"table", "csv", "json"} {
		b.Run(format, func(b *testing.B) {
			var query, print, queryCPU, printCPU time.Duration
			for i := 0; i < b.N; i++ {
				start, cpu := time.Now(), processCPU()
				header, rows, err := queryRows(context.Background(), db, "SELECT * FROM answer WHERE run = ?", 1)
				if err != nil {
					b.Fatal(err)
				}
				query += time.Since(start)
				queryCPU += processCPU() - cpu
				start, cpu = time.Now(), processCPU()
				header, rows = dropColumn(header, rows, "run")
				if err := printers[format](io.Discard, header, rows); err != nil {
					b.Fatal(err)
				}
				print += time.Since(start)
				printCPU += processCPU() - cpu
				if len(rows) != n {
					b.Fatalf("%d rows, want %d", len(rows), n)
				}
			}
			b.ReportMetric(query.Seconds()/float64(b.N), "query-s")
			b.ReportMetric(queryCPU.Seconds()/float64(b.N), "query-cpu-s")
			b.ReportMetric(print.Seconds()/float64(b.N), "print-s")
			b.ReportMetric(printCPU.Seconds()/float64(b.N), "print-cpu-s")
		})
	}
}

// printAnswerJSON prints rows as the one answer of pmm answer --json.
func printAnswerJSON(w io.Writer, header []string, rows [][]any) error {
	text, err := answerRowsJSON(header, rows)
	if err != nil {
		return err
	}
	doc := jsonAnswers{Run: 1, Answers: []jsonAnswer{{Question: "durations", Rows: json.RawMessage(rowsPlaceholder), Incomplete: []incompleteNote{}}}, Questions: 1}
	return encodeAnswers(w, doc, []string{text})
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

// TestPrintJSONValues checks the JSON of each kind of value SQLite
// returns, and that a value JSON cannot hold writes nothing.
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
	if err := printJSON(&b, []string{"d"}, [][]any{{int64(1)}, {math.Inf(1)}}); err == nil || b.Len() != 0 {
		t.Errorf("an infinite value: error %v, output %q; want an error and nothing written", err, b.String())
	}
}

// TestDropColumn checks that the run column goes from the header and
// from every row, the other values keeping their order.
func TestDropColumn(t *testing.T) {
	header, rows := dropColumn([]string{"run", "x", "fn"}, [][]any{{int64(1), int64(2), "f"}, {int64(1), int64(4), nil}}, "run")
	if fmt.Sprint(header, rows) != "[x fn] [[2 f] [4 <nil>]]" {
		t.Errorf("got %v %v", header, rows)
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
		var rows []string
		for i, a := range answers {
			text, err := answerRowsJSON(a.header, a.rows)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, text)
			doc.Answers = append(doc.Answers, jsonAnswer{Question: fmt.Sprintf("q%d", i), Rows: json.RawMessage(rowsPlaceholder), Incomplete: a.notes})
		}
		var got strings.Builder
		if err := encodeAnswers(&got, doc, rows); err != nil {
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
