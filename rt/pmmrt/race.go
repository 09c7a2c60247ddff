//go:build race

package pmmrt

// raceEnabled: the program runs under the race detector (ctxFast).
const raceEnabled = true
