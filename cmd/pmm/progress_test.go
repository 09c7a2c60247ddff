package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestProgress draws the progress of a command on a fake terminal with a
// fake clock: nothing in the first second, then the step and the time,
// cleared before other output and when it stops.
func TestProgress(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	p := newProgress(&out, "instrument", func() time.Time { return now })
	p.Step("analysing the packages")
	now = now.Add(900 * time.Millisecond)
	p.draw()
	if out.Len() != 0 {
		t.Fatalf("progress within the first second: %q", out.String())
	}
	now = now.Add(300 * time.Millisecond)
	p.draw()
	if want := "\r\033[Kpmm instrument: analysing the packages… 1.2s"; out.String() != want {
		t.Fatalf("progress after 1.2s: %q, want %q", out.String(), want)
	}
	out.Reset()
	fmt.Fprint(p, "warning\n") // stderr's other output: the line is cleared first
	if want := "\r\033[Kwarning\n"; out.String() != want {
		t.Errorf("a write during progress: %q, want %q", out.String(), want)
	}
	out.Reset()
	n := int64(0)
	p.StepCounting("loading 3 MB of logs", func() string { return tuplesText(n) })
	out.Reset()
	n = 1234567 // the count is read again at each redraw
	p.draw()
	if want := "\r\033[Kpmm instrument: loading 3 MB of logs… 1.2s, 1,234,567 tuples"; out.String() != want {
		t.Errorf("a counted step: %q, want %q", out.String(), want)
	}
	for n, want := range map[int64]string{0: "0 tuples", 1: "1 tuple", 999: "999 tuples", 1000: "1,000 tuples", 12345678: "12,345,678 tuples"} {
		if got := tuplesText(n); got != want {
			t.Errorf("tuplesText(%d) = %q, want %q", n, got, want)
		}
	}
	out.Reset()
	p.Step("writing the overlay")
	p.Stop()
	if got := out.String(); !strings.HasSuffix(got, "writing the overlay… 1.2s\r\033[K") {
		t.Errorf("the last step and its clearing: %q", got)
	}

	// Not a terminal: quiet, and stderr as it was.
	e := &env{stderr: &out}
	if p, e2 := startProgress(e, "run"); p != nil || e2 != e {
		t.Errorf("progress on a buffer: %v", p)
	}
	var quiet *progress
	quiet.Step("loading") // a nil progress does nothing
	quiet.Stop()
}
