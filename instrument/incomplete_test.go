package instrument

import (
	"fmt"
	"strings"
	"testing"
)

// TestIncomplete plans testdata/incomplete and checks the reason of each
// answer pmm cannot give exactly, by question, event and site, and that
// Figure 4.2 on Figure 4.1, which pmm answers exactly, has none.
func TestIncomplete(t *testing.T) {
	p, code := generate(t, "../testdata/incomplete")
	var got []string
	for _, r := range p.Incomplete(code.Skipped, code.Inexact) {
		got = append(got, fmt.Sprintf("%s %s %s skip=%v", r.Question, strings.Join(r.Vars, ","), r.Position, r.Skip))
	}
	want := []string{
		"tris-in-measure x main.go:79:41 skip=false", // the interface's method value runs a shared wrapper
		// safes-in-risky (a deferred call of a function that recovers)
		// and top-fibs (the calls of a negation, whose callee is recorded
		// at its definition) are exact: none.
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("incomplete:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	p, code = generate(t, "../testdata/fig41")
	if rs := p.Incomplete(code.Skipped, code.Inexact); len(rs) > 0 {
		t.Errorf("Figure 4.2 is answered exactly, but: %+v", rs)
	}
}
