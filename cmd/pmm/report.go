package main

import (
	"bufio"
	"cmp"
	"context"
	"flag"
	"fmt"
	"html/template"
	"math"
	"math/bits"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"pmm.dev/pmm/plan"
)

func reportCommand() *command {
	return &command{
		name:    "report",
		summary: "write the answers, with charts, as one HTML file",
		usage:   "[-run N | -all-runs] [-o FILE]",
		detail: `
Report writes one self-contained HTML file (no script, nothing fetched
when it is viewed: open it anywhere, attach it, archive it) with, for the
last run, a given run or all runs:

  - each question's answer as a table (its first 500 rows; pmm answer
    prints them all), with why it is incomplete when it is;
  - a chart where the answer suits one: a histogram of the durations of
    an answer with one duration per row, a bar chart of an aggregate
    grouped by some input (its largest 40 groups);
  - where an answer leaves out what code outside the module allocated,
    those allocations by the module's call and by its functions on the
    stack, each figure labeled exact or sampled, as pmm answer shows
    them;
  - the counters of pmm stats: entries checked and recorded at each
    site, the executions added to cells;
  - what was instrumented: the sites, what run time decides, the sites
    skipped and why.

The charts are SVG drawn by pmm. The file is written whole or not at
all; the default is .pmm/report.html, and its path is printed.

Example:

	pmm report
	pmm report -o report.html && xdg-open report.html
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			runID := fs.Int64("run", 0, "report run `N` (default: the last run)")
			all := fs.Bool("all-runs", false, "report every run")
			outFile := fs.String("o", "", "write the report to `FILE` (default .pmm/report.html)")
			return func(e *env, args []string) int {
				if len(args) > 0 {
					fmt.Fprintln(e.stderr, "pmm report: takes no arguments")
					return exitUsage
				}
				p, dbPath, code := readRecorded(e, "report", *runID, *all)
				if p == nil {
					return code
				}
				path := *outFile
				if path == "" {
					path = filepath.Join(pmmDir(p.Root), "report.html")
				}
				rep, err := buildReport(p, dbPath, *runID, *all)
				if err == nil {
					err = writeReport(e, path, rep)
				}
				if err != nil {
					fmt.Fprintf(e.stderr, "pmm report: %v\n", err)
					return exitFailure
				}
				if !filepath.IsAbs(path) {
					path = filepath.Join(e.dir, path)
				}
				fmt.Fprintf(e.stdout, "wrote %s\n", path)
				return exitOK
			}
		},
	}
}

// reportRows is how many rows of an answer the report shows.
const reportRows = 500

// reportBars is how many groups a bar chart shows.
const reportBars = 40

// report is what the HTML report shows.
type report struct {
	Module    string
	What      string // "run 3", "every run"
	Runs      []reportRun
	Answers   []reportAnswer
	Stats     []*runStats
	Sites     []plan.ProjectSite
	RunTime   []plan.ProjectDecision
	Skipped   []string
	Generated string
}

type reportRun struct {
	ID                             int64
	Start, End, Command, GoVersion string
	ExitStatus                     string
	Signal                         string
}

// reportCell is a cell of an answer's table; a number is right-aligned.
type reportCell struct {
	Text   string
	Number bool
}

type reportAnswer struct {
	Question   string
	Anchor     string
	Header     []string
	Rows       [][]reportCell
	More       int // rows not shown
	Total      int
	Incomplete []string
	Chart      template.HTML // an SVG, or ""
	ChartNote  string
	// Outside: a table of allocations outside the module (pmm answer's
	// outsideSections), not an answer.
	Outside bool
}

func buildReport(p *plan.Project, dbPath string, run int64, all bool) (*report, error) {
	db, err := openAnswers(dbPath, true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	ctx := context.Background()
	if !all && run == 0 {
		if err := db.QueryRowContext(ctx, "SELECT coalesce(max(id), 0) FROM runs").Scan(&run); err != nil {
			return nil, err
		}
	}
	rep := &report{Module: p.Module, What: fmt.Sprintf("run %d", run), Sites: p.Sites, RunTime: p.RunTime, Skipped: p.Skipped,
		Generated: time.Now().UTC().Format(time.RFC3339)}
	if all {
		rep.What = "every run"
	}
	query := "SELECT id, coalesce(start, ''), coalesce(end, ''), coalesce(command, ''), coalesce(go_version, ''), coalesce(exit_status, ''), coalesce(signal, '') FROM runs"
	var args []any
	if !all {
		query += " WHERE id = ?"
		args = append(args, run)
	}
	rows, err := db.QueryContext(ctx, query+" ORDER BY id", args...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var r reportRun
		if err := rows.Scan(&r.ID, &r.Start, &r.End, &r.Command, &r.GoVersion, &r.ExitStatus, &r.Signal); err != nil {
			rows.Close()
			return nil, err
		}
		rep.Runs = append(rep.Runs, r)
	}
	rows.Close()
	if len(rep.Runs) == 0 {
		return nil, fmt.Errorf("no run %d (pmm.db has the runs of pmm run and pmm test)", run)
	}
	for _, name := range userQuestions(p) {
		a, err := reportAnswerOf(ctx, dbPath, p, name, run, all)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		notes, err := incompleteNotes(ctx, db, name, run, all)
		if err != nil {
			return nil, err
		}
		a.Incomplete = append(a.Incomplete, noteLabels(notes, all)...)
		rep.Answers = append(rep.Answers, *a)
	}
	// After the answers that leave them out, the allocations outside
	// the module, as pmm answer shows them.
	sections, err := outsideSections(ctx, db, p, userQuestions(p))
	if err != nil {
		return nil, err
	}
	for i, sec := range sections {
		a, err := reportSectionOf(dbPath, sec, i, run, all)
		if err != nil {
			return nil, err
		}
		rep.Answers = append(rep.Answers, *a)
	}
	for _, r := range rep.Runs {
		st, err := readStats(p, r.ID)
		if err != nil {
			return nil, err
		}
		rep.Stats = append(rep.Stats, st)
	}
	return rep, nil
}

// reportAnswerOf reads the answer of question name and draws its chart.
func reportAnswerOf(ctx context.Context, dbPath string, p *plan.Project, name string, run int64, all bool) (*reportAnswer, error) {
	header, rows, done, err := readAnswer(dbPath, p, name, run, all)
	if err != nil {
		return nil, err
	}
	defer done()
	a := &reportAnswer{Question: name, Anchor: "q-" + name, Header: withUnits(header, p.Units[name])}
	shape := p.Shapes[name]
	offset := len(header) - len(shape.Columns)
	if offset < 0 || offset > 1 {
		shape, offset = plan.AnswerShape{}, 0
	}
	// The chart's data: the durations of a relation with one per row, or
	// an aggregate's groups.
	durCol := -1
	if shape.Aggregate == "" {
		for i, k := range shape.Columns {
			if k == plan.ColumnDuration {
				if durCol >= 0 {
					durCol = -2 // two: no one histogram
					break
				}
				durCol = i
			}
		}
	}
	groups := shape.Aggregate != "" && len(shape.Columns) > 1
	var durations []int64
	var bars []reportBar
	for rows.Next() {
		row := rows.Row()
		a.add(row)
		switch {
		case durCol >= 0:
			if d, ok := row[offset+durCol].(int64); ok {
				durations = append(durations, d)
			}
		case groups:
			var keys []string
			for _, v := range row[:len(row)-1] {
				keys = append(keys, cellText(v))
			}
			if v, ok := number(row[len(row)-1]); ok {
				bars = append(bars, reportBar{label: strings.Join(keys, " "), value: v})
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	a.More = a.Total - len(a.Rows)
	switch {
	case len(durations) > 0:
		a.Chart = histogramSVG(durations, a.Header[offset+durCol])
		a.ChartNote = fmt.Sprintf("durations of %s", plural(len(durations), "row"))
	case len(bars) > 0:
		unit := kindUnit(shape.Columns[len(shape.Columns)-1])
		a.Chart = barsSVG(bars, unit)
		a.ChartNote = fmt.Sprintf("%s by %s", header[len(header)-1], strings.Join(header[:len(header)-1], ", "))
		if len(bars) > reportBars {
			a.ChartNote += fmt.Sprintf(" (the largest %d of %d groups)", reportBars, len(bars))
		}
	}
	return a, nil
}

// add counts row, and keeps its cells while the report shows rows.
func (a *reportAnswer) add(row []any) {
	a.Total++
	if len(a.Rows) >= reportRows {
		return
	}
	cells := make([]reportCell, len(row))
	for i, v := range row {
		cells[i].Text = "-"
		if v != nil {
			_, isNumber := number(v)
			cells[i] = reportCell{cellText(v), isNumber}
		}
	}
	a.Rows = append(a.Rows, cells)
}

// reportSectionOf reads the i-th table of allocations outside the
// module, sec.
func reportSectionOf(dbPath string, sec outsideSection, i int, run int64, all bool) (*reportAnswer, error) {
	header, rows, done, err := sec.read(dbPath, run, all)
	if err != nil {
		return nil, err
	}
	defer done()
	a := &reportAnswer{Question: sec.Title, Anchor: fmt.Sprintf("outside-%d", i+1), Header: header, Outside: true}
	for rows.Next() {
		a.add(rows.Row())
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	a.More = a.Total - len(a.Rows)
	return a, nil
}

// number is a numeric cell as a float.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

type reportBar struct {
	label string
	value float64
}

// barsSVG draws the largest groups as horizontal bars, labelled.
func barsSVG(bars []reportBar, unit string) template.HTML {
	bars = slices.Clone(bars)
	slices.SortStableFunc(bars, func(a, b reportBar) int { return cmp.Compare(b.value, a.value) })
	if len(bars) > reportBars {
		bars = bars[:reportBars]
	}
	const rowH, labelW, barW = 22, 280, 420
	maxV := 0.0
	for _, b := range bars {
		maxV = max(maxV, b.value)
	}
	var s strings.Builder
	h := rowH*len(bars) + 10
	fmt.Fprintf(&s, `<svg class="bars" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img">`, labelW+barW+120, h)
	for i, b := range bars {
		y := 5 + i*rowH
		w := 0.0
		if maxV > 0 {
			w = b.value / maxV * barW
		}
		text := formatValue(b.value, unit)
		fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end">%s</text>`, labelW-6, y+15, template.HTMLEscapeString(clip(b.label, 40)))
		fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%.1f" height="%d" data-label="%s" data-value="%s"><title>%s: %s</title></rect>`,
			labelW, y+2, math.Max(w, 1), rowH-6, template.HTMLEscapeString(b.label), template.HTMLEscapeString(text),
			template.HTMLEscapeString(b.label), template.HTMLEscapeString(text))
		fmt.Fprintf(&s, `<text x="%.1f" y="%d">%s</text>`, float64(labelW)+math.Max(w, 1)+6, y+15, template.HTMLEscapeString(text))
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// histogramSVG draws the distribution of durations (ns), axis the name
// of their column: bins that double when they span more than a factor
// of 16, else 20 equal bins.
func histogramSVG(ds []int64, axis string) template.HTML {
	lo, hi := slices.Min(ds), slices.Max(ds)
	var edges []int64 // bin i is [edges[i], edges[i+1])
	if lo > 0 && hi/lo >= 16 {
		for e := int64(1) << (63 - bits.LeadingZeros64(uint64(lo))); ; e *= 2 {
			edges = append(edges, e)
			if e > hi {
				break
			}
		}
	} else {
		step := max((hi-lo)/20+1, 1)
		for e := lo; ; e += step {
			edges = append(edges, e)
			if e > hi {
				break
			}
		}
	}
	counts := make([]int, len(edges)-1)
	for _, d := range ds {
		i, _ := slices.BinarySearch(edges, d+1) // the first edge above d
		counts[i-1]++
	}
	const w, h, left, bottom = 640, 200, 50, 40
	barW := float64(w-left) / float64(len(counts))
	maxC := slices.Max(counts)
	var s strings.Builder
	fmt.Fprintf(&s, `<svg class="histogram" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img">`, w+10, h+bottom)
	fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>`, left, h, w, h)
	fmt.Fprintf(&s, `<text x="%d" y="15" text-anchor="end">%d</text>`, left-4, maxC)
	for i, c := range counts {
		x := float64(left) + float64(i)*barW
		bh := float64(c) / float64(maxC) * (h - 20)
		title := fmt.Sprintf("%d in [%s, %s)", c, shortDuration(edges[i]), shortDuration(edges[i+1]))
		fmt.Fprintf(&s, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" data-count="%d"><title>%s</title></rect>`,
			x+1, h-bh, math.Max(barW-2, 1), bh, c, template.HTMLEscapeString(title))
		if i%int(math.Ceil(70/barW)) == 0 { // labels 70px apart at least
			fmt.Fprintf(&s, `<text x="%.1f" y="%d" class="tick">%s</text>`, x, h+15, shortDuration(edges[i]))
		}
	}
	fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end" class="tick">%s</text>`, w, h+32, template.HTMLEscapeString(axis))
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

// shortDuration is ns with three significant digits: 1.07ms.
func shortDuration(ns int64) string {
	d := time.Duration(ns)
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}, {time.Microsecond, "µs"}} {
		if d >= u.d {
			return strconv.FormatFloat(float64(d)/float64(u.d), 'g', 3, 64) + u.name
		}
	}
	return strconv.FormatInt(ns, 10) + "ns"
}

// formatValue is a bar's number, with its unit: a duration for ns.
func formatValue(v float64, unit string) string {
	if unit == unitNanoseconds {
		return time.Duration(v).String()
	}
	return cellText(v)
}

// clip shortens s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// writeReport writes rep to path, whole or not at all.
func writeReport(e *env, path string, rep *report) error {
	dest, err := newOutput(e, path)
	if err != nil {
		return err
	}
	defer dest.discard()
	w := bufio.NewWriter(dest.w)
	if err := reportTemplate.Execute(w, rep); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return dest.commit()
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>pmm report: {{.Module}}, {{.What}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ddd; padding: 2px 8px; text-align: left; font-family: ui-monospace, monospace; font-size: 13px; }
th { background: #f4f4f4; }
td.n { text-align: right; }
.incomplete { color: #a40; }
.note { color: #666; }
svg text { font: 12px system-ui, sans-serif; fill: #333; }
svg text.tick { font-size: 10px; }
svg rect { fill: #4a7bd0; }
nav a { margin-right: 1em; }
</style>
</head>
<body>
<h1>pmm report: {{.Module}}, {{.What}}</h1>
<table id="runs">
<tr><th>run</th><th>start</th><th>end</th><th>command</th><th>go</th><th>exit status</th><th>signal</th></tr>
{{range .Runs}}<tr><td class="n">{{.ID}}</td><td>{{.Start}}</td><td>{{.End}}</td><td>{{.Command}}</td><td>{{.GoVersion}}</td><td class="n">{{.ExitStatus}}</td><td>{{.Signal}}</td></tr>
{{end}}</table>
<nav>{{range .Answers}}<a href="#{{.Anchor}}">{{.Question}}</a>{{end}}<a href="#stats">counters</a><a href="#instrumented">instrumented</a></nav>
{{range .Answers}}
<section class="answer" id="{{.Anchor}}" data-question="{{.Question}}" data-rows="{{.Total}}">
<h2>{{.Question}}</h2>
<p class="note">{{.Total}} row{{if ne .Total 1}}s{{end}}{{if .Incomplete}}, <span class="incomplete">incomplete</span>{{end}}</p>
{{range .Incomplete}}<p class="incomplete">{{.}}</p>
{{end}}{{if .Chart}}<figure>{{.Chart}}<figcaption class="note">{{.ChartNote}}</figcaption></figure>
{{end}}{{if gt (len .Rows) 20}}<details><summary>the rows</summary>{{end}}<table class="rows">
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td{{if .Number}} class="n"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</table>{{if gt (len .Rows) 20}}</details>{{end}}
{{if .More}}<p class="note">{{.More}} more rows: {{if .Outside}}pmm answer{{else}}pmm answer -format csv {{.Question}}{{end}}</p>{{end}}
</section>
{{end}}
<section id="stats">
<h2>Counters (pmm stats)</h2>
{{range .Stats}}<h3>run {{.Run}}</h3>
<table class="stats">
<tr><th>site</th><th>function</th><th>kind</th><th>position</th><th>questions</th><th>checked</th><th>recorded</th></tr>
{{range .Sites}}<tr><td class="n">{{.Site}}</td><td>{{.Function}}</td><td>{{.Kind}}</td><td>{{.Position}}</td><td>{{range $i, $q := .Questions}}{{if $i}} {{end}}{{$q}}{{end}}</td><td class="n">{{.Checked}}</td><td class="n">{{.Recorded}}</td></tr>
{{end}}<tr><th>total</th><td></td><td></td><td></td><td></td><td class="n" data-total="checked">{{.Checked}}</td><td class="n" data-total="recorded">{{.Recorded}}</td></tr>
</table>
{{range .Cells}}<p>{{.Question}}: kept in cells: {{.Added}} executions added to {{.Cells}} cell(s)</p>
{{end}}{{end}}
</section>
<section id="instrumented">
<h2>What was instrumented</h2>
<table class="sites">
<tr><th>site</th><th>function</th><th>kind</th><th>position</th><th>questions</th><th>events</th></tr>
{{range .Sites}}<tr><td class="n">{{.Site}}</td><td>{{.Function}}</td><td>{{.Kind}}</td><td>{{.File}}:{{.Line}}:{{.Col}}</td><td>{{range $i, $q := .Questions}}{{if $i}} {{end}}{{$q}}{{end}}</td><td>{{range $i, $v := .Vars}}{{if $i}} {{end}}{{$v}}{{end}}</td></tr>
{{end}}</table>
{{if .RunTime}}<h3>Decided at run time</h3><ul>{{range .RunTime}}<li>{{.Question}}: {{.What}}</li>{{end}}</ul>{{end}}
{{if .Skipped}}<h3>Not instrumented</h3><ul>{{range .Skipped}}<li>{{.}}</li>{{end}}</ul>{{end}}
</section>
<p class="note">written by pmm at {{.Generated}}</p>
</body>
</html>
`))
