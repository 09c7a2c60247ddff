package plan

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"pmm.dev/pmm/internal/stagetest"
	"pmm.dev/pmm/schema"
	"pmm.dev/pmm/sites"
	"pmm.dev/pmm/spec"
)

// TestWithout checks that Without leaves a test to the answer in a new
// plan and leaves the plan it is called on as it was: on the cache
// question, run time decides the equal arguments of two calls of G.
func TestWithout(t *testing.T) {
	dir := "../testdata/cache"
	_, db := stagetest.StaticDB(t, dir)
	p := buildPlan(t, db, stagetest.CompileFile(t, filepath.Join(dir, "questions.pmm")))
	var pair *Pair
	for _, s := range p.Sites {
		for _, tg := range s.Targets {
			for _, fs := range tg.Filters {
				for _, f := range fs {
					if f.Probe != nil {
						pair = f.Probe
					}
				}
			}
		}
	}
	if pair == nil || !p.On(pair) {
		t.Fatalf("the cache question has no pair decided at run time: %v", p.Decisions())
	}
	before := fmt.Sprint(p.Decisions())
	q := p.Without(pair)
	if !p.On(pair) || fmt.Sprint(p.Decisions()) != before {
		t.Errorf("Without changed the plan it was called on: %v, was %s", p.Decisions(), before)
	}
	if q.On(pair) {
		t.Errorf("the pair is still on in the plan without it")
	}
	off := 0
	for _, d := range q.Decisions() {
		if !d.On {
			off++
		}
	}
	if off != 1 || len(q.Decisions()) != len(p.Decisions()) {
		t.Errorf("decisions without the pair: %v; with it: %v", q.Decisions(), p.Decisions())
	}
}

// buildPlan selects the sites of prog in static.db db, and plans them
// with run-time filters.
func buildPlan(t *testing.T, db *sql.DB, prog *spec.Program) *Plan {
	t.Helper()
	return buildPlanWith(t, db, prog, Options{Filters: true})
}

// buildPlanWith is buildPlan with options opts.
func buildPlanWith(t *testing.T, db *sql.DB, prog *spec.Program, opts Options) *Plan {
	t.Helper()
	sel, err := sites.Select(context.Background(), db, prog)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := schema.Generate(prog)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Build(prog, sel, sch, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
