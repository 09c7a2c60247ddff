package sites

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"pmm.dev/pmm/spec"
	"pmm.dev/pmm/static"
)

// TestEveryFunction checks a question about every function of a module:
// each function in the module gets a definition site with a position, and
// the package initializers the compiler synthesizes (pkg.init, with no
// source) are eliminated instead of getting a definition site with no
// file, which made pmm instrument load the module root as a package.
func TestEveryFunction(t *testing.T) {
	ctx := context.Background()
	res, err := static.Build(ctx, static.Config{Dir: "../testdata/inits", Output: filepath.Join(t.TempDir(), "static.db")})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+res.Path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var inits int
	if err := db.QueryRow("SELECT count(*) FROM functions WHERE in_module = 1 AND coalesce(file, '') = ''").Scan(&inits); err != nil {
		t.Fatal(err)
	}
	if inits == 0 {
		t.Fatal("static.db has no synthesized function: the test checks nothing")
	}
	prog, err := spec.Compile(spec.Source{Name: "every.pmm", Text: []byte(`
(defevent exec :definition ((x n) s.t. (function-execution x n)))
(defquestion calls-per-function :definition (count exec (output input)))`)})
	if err != nil {
		t.Fatal(err)
	}
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
