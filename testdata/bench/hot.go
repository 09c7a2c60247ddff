// Package bench holds three copies of one hot function, so that one
// benchmark run measures the instrumented copy against the plain copy and
// against hand-written instrumentation.
package bench

import "time"

// Hot is the copy pmm instruments.
//
//go:noinline
func Hot(x int) int { return x*x + 1 }

// HotPlain is the same function, never instrumented.
//
//go:noinline
func HotPlain(x int) int { return x*x + 1 }

// handDurations is the typed buffer of the hand-written instrumentation.
var handDurations []time.Duration

// HotHand is the same function instrumented by hand, as one would without
// pmm: read the clock, run, append the duration to a typed buffer.
//
//go:noinline
func HotHand(x int) int {
	t := time.Now()
	r := x*x + 1
	handDurations = append(handDurations, time.Since(t))
	return r
}

// Reset drops the recorded hand durations.
func Reset() { handDurations = handDurations[:0] }
