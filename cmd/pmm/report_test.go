package main

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReportInChromium writes the report of a run of testdata/pprof and
// opens it in headless Chromium: the page loads without a console
// message or a blocked load, its DOM shows the numbers of the program's
// fixed workload (Lookup runs 42 times, 30 under Serve and 12 under
// Batch; Max 54 times), in tables, charts and counters, and its
// screenshot has the charts drawn.
func TestReportInChromium(t *testing.T) {
	browser := findChromium(t)
	dir, _ := instrumentAndRun(t, "../../testdata/pprof")
	file := filepath.Join(t.TempDir(), "report.html")
	if code, out, errOut := runPMM(t, dir, "report", "-o", file); code != exitOK || !strings.Contains(out, file) {
		t.Fatalf("pmm report: exit %d\n%s%s", code, out, errOut)
	}
	html, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Self-contained: nothing to fetch (the SVG namespace is a name).
	for _, ref := range regexp.MustCompile(`https?://[^"' ]+`).FindAllString(string(html), -1) {
		if ref != "http://www.w3.org/2000/svg" {
			t.Errorf("the report refers to %s", ref)
		}
	}
	for _, tag := range []string{"<script", "<link", "<img", "<iframe"} {
		if strings.Contains(string(html), tag) {
			t.Errorf("the report has a %s> element", tag)
		}
	}

	dom, logs := chromium(t, browser, "--dump-dom", "file://"+file)
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Refused to") {
			t.Errorf("chromium: %s", line)
		}
	}
	section := func(q string) string {
		t.Helper()
		i := strings.Index(dom, `data-question="`+q+`"`)
		if i < 0 {
			t.Fatalf("no section of %s in the DOM:\n%s", q, dom)
		}
		j := strings.Index(dom[i:], "</section>")
		return dom[i : i+j]
	}
	histogramTotal := func(s string) int {
		n := 0
		for _, m := range regexp.MustCompile(`data-count="(\d+)"`).FindAllStringSubmatch(s, -1) {
			c, _ := strconv.Atoi(m[1])
			n += c
		}
		return n
	}
	for q, n := range map[string]int{"lookups": 42, "maxes": 54} {
		s := section(q)
		if !strings.Contains(s, `data-rows="`+strconv.Itoa(n)+`"`) || strings.Count(s, "<tr>") != n+1 {
			t.Errorf("%s: want a table of %d rows:\n%s", q, n, s)
		}
		if got := histogramTotal(s); got != n {
			t.Errorf("%s: the histogram counts %d durations, want %d", q, got, n)
		}
	}
	bars := section("calls-per-function")
	for _, want := range []string{`data-label="main.Lookup" data-value="42"`, `data-label="main.Max[...]" data-value="54"`,
		`<td>main.Lookup</td><td class="n">42</td>`, `<td>main.Max[...]</td><td class="n">54</td>`} {
		if !strings.Contains(bars, want) {
			t.Errorf("calls-per-function lacks %s:\n%s", want, bars)
		}
	}
	// The counters: Lookup recorded at its two call sites, in Serve (30)
	// and in Batch (12).
	src, err := os.ReadFile(filepath.Join(dir, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for i, line := range strings.Split(string(src), "\n") {
		if strings.TrimSpace(line) == "s += Lookup(i)" {
			calls = append(calls, "main.go:"+strconv.Itoa(i+1)+":8")
		}
	}
	if len(calls) != 2 {
		t.Fatalf("main.go has %d calls of Lookup, want 2 (Serve's, then Batch's)", len(calls))
	}
	stats := dom[strings.Index(dom, `id="stats"`):]
	for _, want := range []string{
		`<td>main.Lookup</td><td>call</td><td>` + calls[0] + `</td><td>lookups</td><td class="n">30</td><td class="n">30</td>`,
		`<td>main.Lookup</td><td>call</td><td>` + calls[1] + `</td><td>lookups</td><td class="n">12</td><td class="n">12</td>`,
	} {
		if !strings.Contains(stats, want) {
			t.Errorf("the counters lack %s:\n%s", want, stats)
		}
	}
	if !strings.Contains(dom, "maxes: decided at run time") {
		t.Errorf("the report does not say what run time decides")
	}

	// The screenshot: the bars are drawn in the charts' colour.
	shot := filepath.Join(t.TempDir(), "report.png")
	chromium(t, browser, "--screenshot="+shot, "--window-size=1280,2400", "file://"+file)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	bar := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == 0x4a && g>>8 == 0x7b && bl>>8 == 0xd0 {
				bar++
			}
		}
	}
	if bar < 1000 {
		t.Errorf("the screenshot has %d pixels of the charts' colour: no chart drawn", bar)
	}
}

// findChromium is the path of Debian's chromium. Without it the test
// skips, but fails in CI (CI=true), where .ci/run installs it.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH: .ci/run installs Debian's chromium package")
	}
	t.Skip("no chromium on PATH (apt-get install chromium)")
	return ""
}

// chromium runs headless Chromium with its own profile, offline, and
// returns its stdout and its log.
func chromium(t *testing.T, browser string, args ...string) (stdout, logs string) {
	t.Helper()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--enable-logging=stderr", "--v=0", "--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.Command(browser, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", browser, strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), errOut.String()
}
