package sites

import (
	"context"
	"strings"
	"testing"

	"pmm.dev/pmm/internal/stagetest"
	"pmm.dev/pmm/spec"
)

// TestEveryFunction checks a question about every function of a module:
// each function in the module gets a definition site with a position, and
// the package initializers the compiler synthesizes (pkg.init, with no
// source) are eliminated instead of getting a definition site with no
// file, which made pmm instrument load the module root as a package.
func TestEveryFunction(t *testing.T) {
	ctx := context.Background()
	_, db := stagetest.StaticDB(t, "../testdata/inits")
	var inits int
	if err := db.QueryRow("SELECT count(*) FROM functions WHERE in_module = 1 AND coalesce(file, '') = ''").Scan(&inits); err != nil {
		t.Fatal(err)
	}
	if inits == 0 {
		t.Fatal("static.db has no synthesized function: the test checks nothing")
	}
	prog := stagetest.Compile(t, "every.pmm", `
(defevent exec :definition ((x n) s.t. (function-execution x n)))
(defquestion calls-per-function :definition (count exec (output input)))`)
	sel, err := Select(ctx, db, prog)
	if err != nil {
		t.Fatal(err)
	}
	vs := sel.Questions[0].Disjuncts[0].Vars[0]
	defs := 0
	for _, s := range vs.Sites {
		if s.File == "" || s.Line == 0 {
			t.Errorf("%s site of %s has no position", s.Kind, s.Function)
		}
		if s.Kind == spec.SiteDefinition {
			defs++
		}
	}
	if defs == 0 {
		t.Error("no definition site")
	}
	found := false
	for _, e := range vs.Eliminated {
		if strings.Contains(e.Reason, "synthesized") {
			found = true
			if e.Count != inits {
				t.Errorf("%d synthesized functions eliminated, want %d", e.Count, inits)
			}
		}
	}
	if !found {
		t.Errorf("the synthesized functions are not among the eliminated: %+v", vs.Eliminated)
	}
}
