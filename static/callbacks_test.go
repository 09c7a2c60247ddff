package static

import (
	"slices"
	"testing"
)

// TestCallbacks checks the callback edges of testdata/callbacks: the
// in-module functions that code outside the module may call back, found
// by tracing the arguments (value), by the methods of the types passed
// (method), or by type when the trace is lost (type); and that
// calls_star_static follows them while direct calls do not.
func TestCallbacks(t *testing.T) {
	_, db := build(t, "../testdata/callbacks", Config{})
	got := rows(t, db, `
		SELECT e.caller_def_id = d.id, d.name, coalesce(c.callee, '-'), e.callee_name, e.how
		FROM callback_edges e JOIN calls c ON c.id = e.call_id JOIN functions d ON d.id = c.caller_id`)
	want := []string{
		"1 main.apply sync.(*Once).Do main.prepare.func1 value", // through apply's parameter
		"1 main.dispatch - main.handlerA type",                  // calling what sync.OnceValue returns
		"1 main.dispatch - main.handlerB type",
		"1 main.dispatch sync.OnceValue[...] main.handlerA type", // a map lookup loses the trace
		"1 main.dispatch sync.OnceValue[...] main.handlerB type",
		"1 main.encode strings.Map main.rot.shift value",    // a method value
		"1 main.logf fmt.Fprintf main.kelvin.String method", // through logf's variadic parameter
		"1 main.setup sync.(*Once).Do main.loadConfig value",
		"1 main.show fmt.Sprint main.celsius.String method",
		"1 main.sortByAge sort.Sort main.byAge.Len method",
		"1 main.sortByAge sort.Sort main.byAge.Less method",
		"1 main.sortByAge sort.Sort main.byAge.Swap method",
		"1 main.sortPeople sort.Slice main.sortPeople.func1 value",
	}
	if !slices.Equal(got, want) {
		t.Errorf("callback edges:\n got %q\nwant %q", got, want)
	}
	reach := func(caller, callee string) bool {
		return len(rows(t, db, `
			SELECT 1 FROM calls_star_static r
			JOIN functions a ON a.id = r.caller_def_id JOIN functions b ON b.id = r.callee_def_id
			WHERE a.name = ? AND b.name = ?`, caller, callee)) > 0
	}
	for _, c := range []struct {
		caller, callee string
		want           bool
	}{
		{"main.sortPeople", "main.sortPeople.func1", true},
		{"main.main", "main.loadConfig", true},
		{"main.prepare", "main.prepare.func1", true},
		{"main.report", "main.kelvin.String", true},
		{"main.main", "main.byAge.Less", true},
		{"main.show", "main.byAge.Less", false},
		{"main.sortPeople", "main.loadConfig", false},
		{"main.setup", "main.prepare.func1", false},
	} {
		if got := reach(c.caller, c.callee); got != c.want {
			t.Errorf("calls_star_static %s → %s: %v, want %v", c.caller, c.callee, got, c.want)
		}
	}
	// Callbacks are not direct calls.
	if got := rows(t, db, `
		SELECT t.callee_name FROM call_targets t JOIN callback_targets b ON b.call_id = t.call_id AND b.callee_id = t.callee_id`); len(got) > 0 {
		t.Errorf("callback targets also in call_targets: %q", got)
	}
}
