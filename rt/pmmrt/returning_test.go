package pmmrt

import (
	"runtime"
	"testing"
)

// pmm__exit stands for a generated exit function (its name has the
// prefix of generated identifiers): it notes whether its function is
// returning.
func pmm__exit(returning *bool) { *returning = Returning() }

// TestReturning checks Returning in a deferred exit: true when the
// function returns, also after one of its own deferred calls recovered
// a panic; false while a panic or runtime.Goexit unwinds it.
func TestReturning(t *testing.T) {
	var got bool
	normal := func() {
		defer pmm__exit(&got)
	}
	recovered := func() (q int) {
		defer pmm__exit(&got)
		defer func() {
			if recover() != nil {
				q = -1
			}
		}()
		var m map[int]int
		m[0] = 1 // panics
		return 1
	}
	panics := func() {
		defer pmm__exit(&got)
		panic("p")
	}
	inLoop := func() {
		for i := 0; i < 2; i++ {
			defer pmm__exit(&got) // not open-coded
		}
		defer func() { recover() }()
		panic("p")
	}
	for _, c := range []struct {
		name string
		run  func()
		want bool
	}{
		{"returns", normal, true},
		{"recovers", func() { recovered() }, true},
		{"panics", func() {
			defer func() { recover() }()
			panics()
		}, false},
		{"recovers, deferred in a loop", inLoop, true},
		{"Goexit", func() {
			done := make(chan bool)
			go func() {
				defer close(done)
				defer pmm__exit(&got)
				runtime.Goexit()
			}()
			<-done
		}, false},
	} {
		got = !c.want
		c.run()
		if got != c.want {
			t.Errorf("%s: Returning() = %v, want %v", c.name, got, c.want)
		}
	}
}
