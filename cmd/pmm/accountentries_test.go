package main

import (
	"maps"
	"testing"
)

// TestKnownAccountsLattice checks knownAccounts on small call graphs:
// which agents' accounts it says are known, and which.
func TestKnownAccountsLattice(t *testing.T) {
	const (
		app, db                 = 1, 2 // accounted functions, of patterns 1 and 2
		mainFn                  = 3    // main.main
		a, b, c, d, e, f, g, h  = 10, 11, 12, 13, 14, 15, 16, 17
		byValue, ranger, inBody = 20, 21, 22
		uncalled, underUncalled = 30, 31
	)
	nodes := map[int64]accountNode{
		app: {accounted: 1, callable: true}, db: {accounted: 2, callable: true},
		mainFn: {callable: true, root: true},
		a:      {callable: true}, b: {callable: true}, c: {callable: true}, d: {callable: true},
		e: {callable: true}, f: {callable: true}, g: {callable: true}, h: {callable: true},
		byValue: {callable: false}, ranger: {callable: true, ranges: true}, inBody: {callable: true},
		uncalled: {callable: true, test: true}, underUncalled: {callable: true},
	}
	callers := map[int64][]accountCall{
		a:       {{caller: app}},               // one account
		b:       {{caller: a}},                 // through an agent of one account
		c:       {{caller: app}, {caller: db}}, // two accounts
		d:       {{caller: c}},                 // through an agent of two
		e:       {{caller: db}, {caller: e}},   // recursive, one account
		f:       {{caller: app, goes: true}},   // a goroutine: none
		g:       {{caller: mainFn}},            // main's: none
		h:       {{caller: 99}},                // a caller the graph does not know
		byValue: {{caller: app}},               // may be called through its value
		ranger:  {{caller: app}},               // its loop body runs in the iterator
		inBody:  {{caller: ranger}},            // called from that body
	}
	agents := map[int64]bool{}
	for id := range callers {
		agents[id] = true
	}
	agents[mainFn] = true
	want := map[int64]int{a: 1, b: 1, e: 2, f: 0, g: 0, mainFn: 0}
	if got := knownAccounts(agents, nodes, callers, 2); !maps.Equal(got, want) {
		t.Errorf("known accounts: %v, want %v", got, want)
	}
	if got := knownAccounts(agents, nodes, callers, 64); got != nil {
		t.Errorf("with 64 patterns (more than a mask holds): %v, want none known", got)
	}
}
