package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is a minimal OTLP/HTTP metrics receiver on loopback: it
// keeps each export it is sent, as metric name → its data points, each
// "attr=value ...:number", sorted.
type otlpReceiver struct {
	mu      sync.Mutex
	exports []map[string]string
	errs    []string
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	var msg colmetricpb.ExportMetricsServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &msg)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.URL.Path != "/v1/metrics" || req.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
		r.errs = append(r.errs, fmt.Sprintf("%s %s (%s): %v", req.Method, req.URL.Path, req.Header.Get("Content-Type"), err))
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	got := map[string]string{}
	for _, rm := range msg.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				var points []string
				add := func(attrs []string, v string, start uint64) {
					if start == 0 {
						r.errs = append(r.errs, m.Name+": a point with no start time")
					}
					slices.Sort(attrs)
					points = append(points, strings.Join(attrs, " ")+":"+v)
				}
				switch d := m.Data.(type) {
				case *metricpb.Metric_Sum:
					if d.Sum.AggregationTemporality != metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
						r.errs = append(r.errs, m.Name+": not cumulative")
					}
					for _, p := range d.Sum.DataPoints {
						add(otlpAttrs(p.Attributes), otlpNumber(p.GetAsInt(), p.GetAsDouble(), p.Value), p.StartTimeUnixNano)
					}
				case *metricpb.Metric_Gauge:
					for _, p := range d.Gauge.DataPoints {
						add(otlpAttrs(p.Attributes), otlpNumber(p.GetAsInt(), p.GetAsDouble(), p.Value), p.TimeUnixNano)
					}
				default:
					r.errs = append(r.errs, fmt.Sprintf("%s: unexpected data %T", m.Name, m.Data))
				}
				slices.Sort(points)
				got[m.Name] = strings.Join(points, " ")
			}
		}
	}
	r.exports = append(r.exports, got)
	out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func otlpAttrs(kvs []*commonpb.KeyValue) []string {
	var out []string
	for _, kv := range kvs {
		out = append(out, kv.Key+"="+kv.Value.GetStringValue())
	}
	return out
}

func otlpNumber(i int64, f float64, v any) string {
	if _, ok := v.(*metricpb.NumberDataPoint_AsInt); ok {
		return fmt.Sprint(i)
	}
	return fmt.Sprint(f)
}

// snapshot returns the exports received so far and the errors seen.
func (r *otlpReceiver) snapshot() ([]map[string]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.exports), slices.Clone(r.errs)
}

// otlpWant is what the metrics of testdata/manyruns should be after calls:
// manyRunsWant's answers of the questions kept in cells as pmm export
// sends them (an average as its sum and count, which otlpAverages
// divides back).
func otlpWant(calls [][2]any) map[string]string {
	want := map[string]string{}
	for q, v := range manyRunsWant(calls) {
		if q == "gets" || q == "mean-size" || q == "mean-per-key" {
			continue // not kept in cells; an average is checked as sum / count
		}
		var points []string
		for _, kv := range strings.Fields(v) {
			k, n, _ := strings.Cut(kv, "=")
			points = append(points, "key_="+k+":"+n)
		}
		want["pmm."+q] = strings.Join(points, " ")
	}
	want["pmm.mean-per-key"] = manyRunsWant(calls)["mean-per-key"]
	return want
}

// otlpAverages replaces each average's .sum and .count metrics of got by
// their quotient per group, as manyRunsWant prints it.
func otlpAverages(got map[string]string) map[string]string {
	out := map[string]string{}
	points := func(v string) map[string]float64 {
		m := map[string]float64{}
		for _, p := range strings.Split(v, " ") {
			if k, n, ok := strings.Cut(p, ":"); ok {
				var f float64
				fmt.Sscan(n, &f)
				m[k] = f
			}
		}
		return m
	}
	for name, v := range got {
		base, ok := strings.CutSuffix(name, ".sum")
		if !ok {
			if !strings.HasSuffix(name, ".count") {
				out[name] = v
			}
			continue
		}
		sums, counts := points(v), points(got[base+".count"])
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(sums)) {
			c, ok := counts[k]
			if !ok {
				parts = append(parts, k+": a sum with no count")
				continue
			}
			label := strings.TrimPrefix(k, "key_=")
			if label != "" {
				label += "="
			}
			parts = append(parts, label+fmt.Sprint(sums[k]/c))
		}
		out[base] = strings.Join(parts, " ")
	}
	return out
}

// TestExportOTLP runs testdata/manyruns under pmm run, stops it halfway (it
// waits for a file), and checks what pmm export sends to a receiver on
// loopback meanwhile, periodically and with -once: every aggregate
// question kept in cells, one instrument each (two for an average),
// its groups as attributes, the values of the work done so far, known
// by construction. The answers after the run are those of all the work.
func TestExportOTLP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an instrumented program")
	}
	dir := copyModule(t, "../../testdata/manyruns")
	if code, out, errOut := runPMM(t, dir, "instrument", "./...", "questions.pmm"); code != exitOK {
		t.Fatalf("pmm instrument: exit %d\n%s%s", code, out, errOut)
	}
	// Bad usage, and a relation: refused with why.
	for _, args := range [][]string{{"export", "gets"}, {"export", "-interval", "0s"}, {"export", "-otlp", "localhost:4318"}, {"export", "nosuch"}, {"export", "count-per-key", "mean-size"}} {
		code, _, errOut := runPMM(t, dir, args...)
		if code != exitUsage || !strings.Contains(errOut, "pmm export: ") {
			t.Errorf("pmm %s: exit %d, want %d with why:\n%s", strings.Join(args, " "), code, exitUsage, errOut)
		}
	}
	if _, _, errOut := runPMM(t, dir, "export", "gets"); !strings.Contains(errOut, "gets is a relation") || !strings.Contains(errOut, "hint:") {
		t.Errorf("pmm export gets does not say why it cannot:\n%s", errOut)
	}

	recv := &otlpReceiver{}
	srv := httptest.NewServer(recv) // 127.0.0.1:0
	defer srv.Close()

	proceed := filepath.Join(t.TempDir(), "proceed")
	done := make(chan string, 1)
	go func() {
		code, out, errOut := runPMM(t, dir, "run", ".", "--", "a", "wait", proceed, "b")
		if code != exitOK {
			done <- fmt.Sprintf("pmm run: exit %d\n%s%s", code, out, errOut)
		}
		done <- ""
	}()
	defer func() { // if the test fails before, let the program end
		os.WriteFile(proceed, nil, 0o644)
		<-done
	}()

	// pmm export every 100ms, in-process so that the test can stop it.
	p, code := readProject(&env{stderr: io.Discard, dir: dir}, "export")
	if p == nil {
		t.Fatalf("reading the project: exit %d", code)
	}
	questions, refused, err := exportable(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(refused) != 2 || !strings.HasPrefix(refused[0], "gets is a relation") || !strings.HasPrefix(refused[1], "mean-size is an aggregate of recorded tuples") {
		t.Errorf("refused: %q, want gets (a relation) and mean-size (its tuples recorded)", refused)
	}
	ctx, cancel := context.WithCancel(context.Background())
	exported := make(chan error, 1)
	var exportErr strings.Builder
	go func() {
		exported <- exportMetrics(ctx, &env{stdout: io.Discard, stderr: &syncWriter{w: &exportErr}, dir: dir}, exportOptions{
			endpoint: srv.URL + "/v1/metrics", interval: 100 * time.Millisecond, questions: questions,
			logDirs: func() []string { d, _ := filepath.Glob(filepath.Join(runsDir(dir), "*", "logs")); return d }})
	}()

	wantA := otlpWant(manyRunsWorkload("a"))
	var last map[string]string
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		exports, errs := recv.snapshot()
		if len(errs) > 0 {
			t.Fatalf("the receiver saw: %v", errs)
		}
		if len(exports) > 0 {
			last = otlpAverages(exports[len(exports)-1])
		}
		if maps.Equal(last, wantA) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no export of the work done so far after 90s; the last:\n got %v\nwant %v", last, wantA)
		}
	}
	// The program still waits: pmm export -once sends the same.
	before, _ := recv.snapshot()
	if code, out, errOut := runPMM(t, dir, "export", "-once", "-otlp", srv.URL); code != exitOK {
		t.Fatalf("pmm export -once: exit %d\n%s%s", code, out, errOut)
	}
	if exports, _ := recv.snapshot(); len(exports) == len(before) {
		t.Errorf("pmm export -once sent nothing")
	} else if got := otlpAverages(exports[len(exports)-1]); !maps.Equal(got, wantA) {
		t.Errorf("pmm export -once:\n got %v\nwant %v", got, wantA)
	}

	os.WriteFile(proceed, nil, 0o644)
	if msg := <-done; msg != "" {
		t.Fatal(msg)
	}
	done <- ""
	cancel()
	if err := <-exported; err != nil {
		t.Errorf("the export: %v", err)
	}
	if s := exportErr.String(); s != "" {
		t.Errorf("the export said:\n%s", s)
	}
	// The answers after the run are those of all of it.
	if got, want := manyRunsAnswers(t, dir), manyRunsWant(manyRunsWorkload("a", "b")); !maps.Equal(got, want) {
		t.Errorf("after the run:\n got %v\nwant %v", got, want)
	}
}

// syncWriter serializes writes to w.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// TestInstrumentName checks that every question name becomes a name
// OpenTelemetry accepts, and that names it accepts stay as they are.
func TestInstrumentName(t *testing.T) {
	for q, want := range map[string]string{
		"count-per-key": "count-per-key",
		"slow_calls.v2": "slow_calls.v2",
		"what?*é":       "what___",
	} {
		if got := instrumentName(q); got != want {
			t.Errorf("instrumentName(%q) = %q, want %q", q, got, want)
		}
		m := sdkmetric.NewMeterProvider().Meter("test")
		if _, err := newQuestionInstruments(m, exportedQuestion{name: q, op: "average"}); err != nil {
			t.Errorf("the instruments of %q: %v", q, err)
		}
		if _, err := m.Int64ObservableCounter("pmm." + q); err == nil && q != want {
			t.Errorf("OpenTelemetry accepts %q as it is", q)
		}
	}
}
