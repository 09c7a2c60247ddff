package sites

import (
	"strings"
	"testing"
)

// TestCallbacks checks calls* to functions that only code outside the
// module calls (sort.Slice, sync.Once.Do, strings.Map, fmt, sort.Sort):
// each is reachable through the callback edges of static.db and is
// recorded at its definition, since its caller has no site in the module;
// a function that is not reachable stays eliminated.
func TestCallbacks(t *testing.T) {
	sel := selectIn(t, "../testdata/callbacks")
	for _, c := range []struct {
		name, q, v string
		want       []string
	}{
		{"sort.Slice with a closure", "slice-less", "l", []string{"definition main.sortPeople.func1 main.go:21"}},
		// loadConfig is also called directly by reload, which is not
		// under setup: the callback alone requires the definition.
		{"sync.Once.Do with a named function", "once-config", "l", []string{"definition main.loadConfig main.go:32"}},
		{"a method value passed to strings.Map", "map-shift", "r", []string{"definition main.rot.shift main.go:56"}},
		{"fmt.Sprint of a Stringer", "sprint-string", "c", []string{"definition main.celsius.String main.go:71"}},
		{"fmt through a variadic parameter", "logf-string", "k", []string{"definition main.kelvin.String main.go:78"}},
		{"sort.Sort of a type of the module", "sort-less", "l", []string{"definition main.byAge.Less main.go:88"}},
		{"not reachable: byAge.Less from show", "not-reached", "l", nil},
		{"not reachable: loadConfig from sortPeople", "not-reached", "c", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := describe(t, sel, c.q, c.v)
			if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
				t.Errorf("sites of %s in %s:\n got %v\nwant %v", c.v, c.q, got, c.want)
			}
		})
	}
}
