package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"pmm.dev/pmm/plan"
	"pmm.dev/pmm/rt/load"
	"pmm.dev/pmm/rt/logfmt"
	"pmm.dev/pmm/schema"
)

func exportCommand() *command {
	return &command{
		name:    "export",
		summary: "send the aggregates of a running program as OpenTelemetry metrics",
		usage:   "[-otlp URL] [-interval D] [-logs DIR] [-once] [NAME...]",
		detail: `
Export reads the aggregates that a running instrumented program keeps in
cells (the questions that ask only for a count, sum, average, min or max)
and sends them as OpenTelemetry metrics over OTLP/HTTP (protobuf) every
-interval, until interrupted (SIGINT, SIGTERM), then once more. Run it
beside pmm run, or beside a program run with PMM_DIR (give -logs
$PMM_DIR/logs). It reads the files the program maps and writes nothing:
the program records an event as it does without it (the same atomic
adds to the same cells); the reading is pmm export's own work, once per
interval.

Each question is one instrument named pmm.QUESTION, its group's values
as attributes named as the columns of pmm answer: a count is a counter,
a sum an up-down counter, a min or max a gauge, and an average two
instruments, pmm.QUESTION.sum and pmm.QUESTION.count (divide them in the
dashboard; summed over machines they give the fleet's average). The
values are cumulative since each process began, summed over the
processes whose logs are in the directories read (a run's, until pmm
run loads them after the program ends). Questions whose answers are
computed after the run (relations, aggregates whose tuples are recorded)
cannot be exported: pmm answer answers them.

With no NAME, every question that can be exported is.

Example:

	pmm run . -- -serve :8080 &
	pmm export -otlp http://127.0.0.1:4318 -interval 10s
`,
		define: func(fs *flag.FlagSet) func(*env, []string) int {
			endpoint := fs.String("otlp", "http://localhost:4318", "the OTLP/HTTP `URL` of the collector (path /v1/metrics if none)")
			interval := fs.Duration("interval", 10*time.Second, "the time between exports")
			logs := fs.String("logs", "", "the log `directory` of the program (default: those of the runs of pmm run in .pmm)")
			once := fs.Bool("once", false, "export once and exit")
			return func(e *env, args []string) int {
				p, code := readProject(e, "export")
				if p == nil {
					return code
				}
				o := exportOptions{interval: *interval, once: *once}
				if *interval <= 0 {
					fmt.Fprintln(e.stderr, "pmm export: -interval must be positive")
					return exitUsage
				}
				var err error
				if o.endpoint, err = otlpMetricsURL(*endpoint); err != nil {
					fmt.Fprintf(e.stderr, "pmm export: -otlp %s: %v\nhint: give the collector's OTLP/HTTP address, e.g. http://127.0.0.1:4318\n", *endpoint, err)
					return exitUsage
				}
				var refused []string
				if o.questions, refused, err = exportable(p, args); err != nil {
					fmt.Fprintf(e.stderr, "pmm export: %v\n", err)
					return exitUsage
				}
				for _, r := range refused {
					fmt.Fprintf(e.stderr, "pmm export: not exported: %s\n", r)
				}
				o.logDirs = func() []string {
					dirs, _ := filepath.Glob(filepath.Join(runsDir(p.Root), "*", "logs"))
					return dirs
				}
				if *logs != "" {
					dir := *logs
					if !filepath.IsAbs(dir) {
						dir = filepath.Join(e.dir, dir)
					}
					o.logDirs = func() []string { return []string{dir} }
				}
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				if err := exportMetrics(ctx, e, o); err != nil {
					fmt.Fprintf(e.stderr, "pmm export: %v\n", err)
					return exitFailure
				}
				return exitOK
			}
		},
	}
}

// otlpMetricsURL is the URL metrics are posted to: endpoint, with the
// OTLP/HTTP path of metrics if it has no path.
func otlpMetricsURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", errors.New("not an http:// or https:// URL")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/metrics"
	}
	return u.String(), nil
}

// exportedQuestion is a question kept in cells: its cells table, its
// operation, and the names of its group's columns.
type exportedQuestion struct {
	name   string
	table  uint16
	op     string
	unit   string
	groups []string
}

// exportable returns the questions named (all that can be, if none) that
// are aggregates kept in cells, and why the others cannot be; a question
// named that cannot be is an error that says why.
func exportable(p *plan.Project, names []string) (out []exportedQuestion, refused []string, err error) {
	inCells := map[string]bool{}
	for _, d := range p.RunTime {
		if d.On && strings.HasSuffix(d.What, plan.KeptInCells) {
			inCells[d.Question] = true
		}
	}
	for _, q := range p.Questions {
		if len(names) > 0 && !slices.Contains(names, q) {
			continue
		}
		op := p.Shapes[q].Aggregate
		var t *schema.Table
		for i := range p.Tables {
			if p.Tables[i].Question == q && p.Tables[i].Prim == schema.KindCells {
				t = &p.Tables[i]
			}
		}
		switch {
		case op == "" || t == nil:
			refused = append(refused, q+" is a relation: pmm answer "+q+" answers it after the run")
			continue
		case !inCells[q]:
			refused = append(refused, q+" is an aggregate of recorded tuples, not kept in cells: pmm answer "+q+" answers it after the run")
			continue
		}
		eq := exportedQuestion{name: q, table: t.ID, op: op}
		if u := p.Units[q]; len(u) > 0 {
			eq.unit = u[len(u)-1]
		}
		for _, c := range t.Columns[1:] { // after the cell number
			eq.groups = append(eq.groups, c.Name)
		}
		out = append(out, eq)
	}
	for _, n := range names {
		if !slices.Contains(p.Questions, n) {
			return nil, nil, fmt.Errorf("no question %q in .pmm/plan.json\nhint: the questions are %s", n, strings.Join(p.Questions, ", "))
		}
	}
	if len(names) > 0 && len(refused) > 0 {
		return nil, nil, fmt.Errorf("cannot export while the program runs: %s\nhint: pmm export sends the aggregates kept in cells (count, sum, average, min, max, which pmm stats lists as kept in cells)", strings.Join(refused, "; "))
	}
	if len(out) == 0 {
		return nil, nil, errors.New("no question is an aggregate kept in cells, so none can be exported while the program runs\nhint: pmm export sends count, sum, average, min and max questions that pmm instrument (in its default mode) keeps in cells; pmm answer answers the others after the run")
	}
	return out, refused, nil
}

// exportOptions are what pmm export was asked.
type exportOptions struct {
	endpoint  string
	interval  time.Duration
	once      bool
	questions []exportedQuestion
	logDirs   func() []string // the log directories to read, at each export
}

// exportMetrics sends the questions' cells as metrics every o.interval
// until ctx is done, then once more (or only once, with o.once).
func exportMetrics(ctx context.Context, e *env, o exportOptions) error {
	exp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(o.endpoint))
	if err != nil {
		return err
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { fmt.Fprintf(e.stderr, "pmm export: %v\n", err) }))
	reader := sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(o.interval))
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	meter := provider.Meter("pmm.dev/pmm")
	src := &cellSource{questions: o.questions, dirs: o.logDirs, readers: map[string]*load.CellReader{}}
	var observables []metric.Observable
	for _, q := range o.questions {
		ins, err := newQuestionInstruments(meter, q)
		if err != nil {
			return err
		}
		src.instruments = append(src.instruments, ins)
		observables = append(observables, ins.observables()...)
	}
	if _, err := meter.RegisterCallback(src.observe, observables...); err != nil {
		return err
	}
	if !o.once {
		<-ctx.Done()
	}
	// Shutdown collects and exports once more: the last values.
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if o.once {
		if err := provider.ForceFlush(sctx); err != nil {
			provider.Shutdown(sctx)
			return err
		}
	}
	return provider.Shutdown(sctx)
}

// questionInstruments are the instruments of one question: one, or two
// for an average (its sum and count).
type questionInstruments struct {
	q     exportedQuestion
	count metric.Int64ObservableCounter
	sum   metric.Float64ObservableUpDownCounter
	gauge metric.Float64ObservableGauge // min or max
}

func newQuestionInstruments(m metric.Meter, q exportedQuestion) (*questionInstruments, error) {
	name := "pmm." + instrumentName(q.name)
	ins := &questionInstruments{q: q}
	var err error
	switch q.op {
	case "count":
		ins.count, err = m.Int64ObservableCounter(name, metric.WithDescription("pmm question "+q.name+": count of its tuples per group, since the process began"))
	case "sum":
		ins.sum, err = m.Float64ObservableUpDownCounter(name, metric.WithUnit(q.unit), metric.WithDescription("pmm question "+q.name+": sum per group, since the process began"))
	case "min", "max":
		ins.gauge, err = m.Float64ObservableGauge(name, metric.WithUnit(q.unit), metric.WithDescription("pmm question "+q.name+": "+q.op+" per group, since the process began"))
	case "average":
		if ins.sum, err = m.Float64ObservableUpDownCounter(name+".sum", metric.WithUnit(q.unit), metric.WithDescription("pmm question "+q.name+": the sum of its average, per group")); err == nil {
			ins.count, err = m.Int64ObservableCounter(name+".count", metric.WithDescription("pmm question "+q.name+": the count of its average, per group"))
		}
	default:
		err = fmt.Errorf("question %s: unknown aggregate %s", q.name, q.op)
	}
	return ins, err
}

// instrumentName is question written with the characters OpenTelemetry
// allows in an instrument's name (letters, digits, _ . - /), others as _.
func instrumentName(question string) string {
	return strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.-/", r)) {
			return r
		}
		return '_'
	}, question)
}

func (ins *questionInstruments) observables() []metric.Observable {
	var out []metric.Observable
	if ins.count != nil {
		out = append(out, ins.count)
	}
	if ins.sum != nil {
		out = append(out, ins.sum)
	}
	if ins.gauge != nil {
		out = append(out, ins.gauge)
	}
	return out
}

// cellSource reads the cells at each collection.
type cellSource struct {
	questions   []exportedQuestion
	instruments []*questionInstruments
	dirs        func() []string
	readers     map[string]*load.CellReader // by log directory
}

// groupTotal is a group's cells combined over processes: counts and sums
// add, minima and maxima combine.
type groupTotal struct {
	attrs         attribute.Set
	count         int64
	sum, min, max float64
}

// observe reads every log directory's cells and observes each question's
// groups.
func (s *cellSource) observe(_ context.Context, o metric.Observer) error {
	var tables []uint16
	byTable := map[uint16]int{}
	for i, q := range s.questions {
		tables = append(tables, q.table)
		byTable[q.table] = i
	}
	totals := make([]map[attribute.Distinct]*groupTotal, len(s.questions))
	for i := range totals {
		totals[i] = map[attribute.Distinct]*groupTotal{}
	}
	dirs := s.dirs()
	for dir := range s.readers {
		if !slices.Contains(dirs, dir) {
			delete(s.readers, dir) // loaded and removed
		}
	}
	var errs []error
	for _, dir := range dirs {
		r := s.readers[dir]
		if r == nil {
			r = load.NewCellReader(dir, tables)
			s.readers[dir] = r
		}
		cells, err := r.Read()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, c := range cells {
			qi := byTable[c.Table]
			attrs := groupAttributes(s.questions[qi].groups, c.Group)
			t := totals[qi][attrs.Equivalent()]
			sum, lo, hi := cellValues(c.AggCell)
			if t == nil {
				t = &groupTotal{attrs: attrs, min: lo, max: hi}
				totals[qi][attrs.Equivalent()] = t
			}
			t.count += int64(c.Count)
			t.sum += sum
			t.min, t.max = min(t.min, lo), max(t.max, hi)
		}
	}
	for i, ins := range s.instruments {
		for _, t := range totals[i] {
			opt := metric.WithAttributeSet(t.attrs)
			if ins.count != nil {
				o.ObserveInt64(ins.count, t.count, opt)
			}
			if ins.sum != nil && !math.IsNaN(t.sum) {
				o.ObserveFloat64(ins.sum, t.sum, opt)
			}
			if ins.gauge != nil {
				v := t.min
				if ins.q.op == "max" {
					v = t.max
				}
				o.ObserveFloat64(ins.gauge, v, opt)
			}
		}
	}
	return errors.Join(errs...)
}

// cellValues are a cell's sum, min and max as numbers.
func cellValues(c logfmt.AggCell) (sum, lo, hi float64) {
	if c.Kind == logfmt.AggKindFloat {
		return math.Float64frombits(c.Sum), math.Float64frombits(c.Min), math.Float64frombits(c.Max)
	}
	return float64(int64(c.Sum)), float64(int64(c.Min)), float64(int64(c.Max))
}

// groupAttributes are a group's values as attributes named by names.
func groupAttributes(names []string, values []any) attribute.Set {
	var kvs []attribute.KeyValue
	for i, v := range values {
		if i >= len(names) {
			break
		}
		k := attribute.Key(names[i])
		switch v := v.(type) {
		case string:
			kvs = append(kvs, k.String(v))
		case int64:
			kvs = append(kvs, k.Int64(v))
		case uint64:
			if v <= math.MaxInt64 {
				kvs = append(kvs, k.Int64(int64(v)))
			} else {
				kvs = append(kvs, k.String(fmt.Sprint(v)))
			}
		case float64:
			kvs = append(kvs, k.Float64(v))
		case bool:
			kvs = append(kvs, k.Bool(v))
		case nil:
			kvs = append(kvs, k.String("NULL"))
		}
	}
	return attribute.NewSet(kvs...)
}
