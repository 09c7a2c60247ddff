package instrument

import (
	"fmt"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/stagetest"
)

// TestPairs checks which inter-event tests run time decides: equal
// values of two direct callees of one caller, the earlier before the
// later, as a second binding of a variable or as (= a b).
func TestPairs(t *testing.T) {
	const head = `(defquestion q :definition ((g2) s.t. (exists (f g1 a b) (and
  (function-execution f "main.F") (function-execution g1 "main.G") (function-execution g2 "main.G")
  (calls f g1) (calls f g2) `
	for _, c := range []struct{ name, atoms, want string }{
		{"cache", `(before g1 g2) (parameters g1 a) (parameters g2 a)`, "f: g1 [{params 0 }] before g2 [{params 0 }]"},
		{"equal", `(before g1 g2) (parameter g1 1 a) (return-value g2 1 b) (= a b)`, "f: g1 [{param 1 }] before g2 [{result 1 }]"},
		{"two values", `(before g1 g2) (parameter g1 1 a) (parameter g2 1 a) (duration g1 b) (duration g2 b)`,
			"f: g1 [{param 1 } {d 0 }] before g2 [{param 1 } {d 0 }]"},
		{"no order", `(parameters g1 a) (parameters g2 a)`, ""},
		{"not equal", `(before g1 g2) (parameter g1 1 a) (parameter g2 1 b) (< a b)`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := stagetest.Compile(t, "q.pmm", head+c.atoms+"))))")
			var got []string
			for _, p := range pairsOf(prog.Questions[0].Disjuncts[0]) {
				got = append(got, fmt.Sprintf("%s: %s %v before %s %v", p.Caller, p.Earlier, p.EarlierKey, p.Later, p.LaterKey))
			}
			if strings.Join(got, "; ") != c.want {
				t.Errorf("pairs %q, want %q", got, c.want)
			}
		})
	}
}
