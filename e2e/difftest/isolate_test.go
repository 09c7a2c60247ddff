package difftest

import (
	"strings"
	"testing"
)

// TestUsedDefs checks that a question is evaluated with exactly the
// definitions it uses, directly or through another definition.
func TestUsedDefs(t *testing.T) {
	defs := []string{
		`(defevent q1-cache-ev :definition ((g) s.t. (function-execution g "main.G")))`,
		`(defquestion q1-cache :definition ((g) s.t. (q1-cache-ev g)))`,
		`(defquestion q2-cache-count :definition (count q1-cache (output)))`,
		`(defquestion q3-execs :definition ((x) s.t. (function-execution x "main.q1-cache")))`,
	}
	got := usedDefs(defs, "q2-cache-count")
	want := strings.Join(defs[:3], "\n\n")
	if got != want {
		t.Errorf("usedDefs(q2-cache-count) =\n%s\nwant\n%s", got, want)
	}
	if got := usedDefs(defs, "q3-execs"); got != defs[3] {
		t.Errorf("usedDefs(q3-execs) = %s, want q3-execs alone (a string is not a use)", got)
	}
}
