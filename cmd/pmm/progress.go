package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// progressAfter is how long a command runs before it shows its progress:
// a command that is done sooner prints nothing more.
const progressAfter = time.Second

// progress shows, on one line of a terminal, the step a long command is
// at and for how long it has run, redrawn a few times a second, and
// clears it before anything else is written to stderr and when it
// stops. Not on a terminal (a file, a pipe, CI logs), it shows nothing;
// a nil *progress is such a quiet one.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	cmd   string
	step  string
	count func() string // what the step has done so far, or nil
	began time.Time
	now   func() time.Time
	shown bool
	stop  chan struct{}
	done  sync.WaitGroup
}

// startProgress starts showing the progress of command cmd on e's
// stderr when it is a terminal, and returns it with the env whose
// stderr clears the progress line before each write.
func startProgress(e *env, cmd string) (*progress, *env) {
	if !isTerminal(e.stderr) {
		return nil, e
	}
	p := newProgress(e.stderr, cmd, time.Now)
	p.stop = make(chan struct{})
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
				p.draw()
			}
		}
	}()
	return p, &env{stdout: e.stdout, stderr: p, dir: e.dir}
}

func newProgress(w io.Writer, cmd string, now func() time.Time) *progress {
	return &progress{w: w, cmd: cmd, began: now(), now: now}
}

// isTerminal says whether w is a terminal that draws a line again after
// a carriage return.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Step says what the command does now.
func (p *progress) Step(step string) { p.StepCounting(step, nil) }

// StepCounting says what the command does now, and count what it has
// done of it so far ("1,200,000 tuples"), read at each redraw.
func (p *progress) StepCounting(step string, count func() string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.step, p.count = step, count
	p.mu.Unlock()
	p.draw()
}

// draw shows the step, once the command has run for progressAfter.
func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := p.now().Sub(p.began)
	if p.step == "" || elapsed < progressAfter {
		return
	}
	done := ""
	if p.count != nil {
		done = ", " + p.count()
	}
	fmt.Fprintf(p.w, "\r\033[Kpmm %s: %s… %.1fs%s", p.cmd, p.step, elapsed.Seconds(), done)
	p.shown = true
}

// clear removes the progress line; p.mu is held.
func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// Write writes to stderr below no progress line: it clears it first
// (the next tick draws it again).
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	return p.w.Write(b)
}

// Stop stops drawing and clears the line.
func (p *progress) Stop() {
	if p == nil {
		return
	}
	if p.stop != nil {
		close(p.stop)
		p.done.Wait()
		p.stop = nil
	}
	p.mu.Lock()
	p.clear()
	p.mu.Unlock()
}

// logsSize is the size of the files in dir, for the user: "12.3 MB".
func logsSize(dir string) string {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error { //nolint:errcheck // a size for the eye
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d kB", (n+1023)/1024)
}

// tuplesText is a count of tuples for the progress line, its digits in
// groups of three: "1,234,567 tuples".
func tuplesText(n int64) string {
	digits := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	if n == 1 {
		return b.String() + " tuple"
	}
	return b.String() + " tuples"
}
