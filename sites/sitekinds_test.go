package sites

import (
	"context"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/stagetest"
)

// TestSiteKindsOfAttributes checks that an event with an attribute only
// call sites know (caller-line: the row's Sites) is recorded at its call
// sites, never at its definition: loadConfig, called directly by reload
// and called back by sync.Once.Do, is recorded at reload's call, and the
// callback's executions are a gap; without the attribute its definition
// records it. An event that is also a caller, recorded at its definition,
// cannot have such an attribute: the selection refuses it.
func TestSiteKindsOfAttributes(t *testing.T) {
	_, db := stagetest.StaticDB(t, "../testdata/callbacks")
	prog := stagetest.Compile(t, "q.pmm", `
(defquestion with-line :definition
  ((x l) s.t. (and (function-execution x "main.loadConfig") (caller-line x l))))
(defquestion without-line :definition
  ((x) s.t. (function-execution x "main.loadConfig")))`)
	sel, err := Select(context.Background(), db, prog)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(describe(t, sel, "with-line", "x"), "; "), "call main.loadConfig in main.reload main.go:35"; got != want {
		t.Errorf("with caller-line: sites %s, want %s", got, want)
	}
	gap := false
	for _, g := range sel.Questions[0].Disjuncts[0].Vars[0].Gaps {
		gap = gap || strings.Contains(g.Reason, "called back by code outside the module")
	}
	if !gap {
		t.Errorf("with caller-line: no gap for the executions sync.Once.Do calls back: %+v", sel.Questions[0].Disjuncts[0].Vars[0].Gaps)
	}
	if got, want := strings.Join(describe(t, sel, "without-line", "x"), "; "), "definition main.loadConfig main.go:32"; got != want {
		t.Errorf("without caller-line: sites %s, want %s", got, want)
	}

	caller := stagetest.Compile(t, "q.pmm", `
(defquestion caller-with-line :definition
  ((x y l) s.t. (and (function-execution x "main.reload") (function-execution y "main.loadConfig")
                     (calls x y) (caller-line x l))))`)
	if _, err := Select(context.Background(), db, caller); err == nil || !strings.Contains(err.Error(), "does not know all") {
		t.Errorf("a caller of calls with a caller-line: error %v, want a refusal", err)
	}
}
