package main

import (
	"database/sql"
	"testing"
)

// TestPromotedDispatch builds and runs testdata/promoted in every mode.
// An interface call must record each execution of the methods its
// dynamic types run: promoted from embedded fields (Rect and *Square run
// Base.Name), of generic types (Box[int], Box[string]; Cell[T], made in
// a generic function only, told by its name at run time), or forwarded
// to the dynamic type of an embedded interface (Tagged, Wrapped), through
// a generic interface too (Getter[int], Getter[T] in generic code,
// whose Get() int is Inner[int]'s Get() T); the
// type switch that tells the target named only the declaring types, and
// did not compile for a generic one, nor for a type that does not
// implement the interface. A call of a function value must record
// Base.Name run through the wrapper of the method expression Rect.Name,
// and say it may miss what the method value of a Name forwarded to an
// embedded interface runs.
// A generic function whose constraint is another package's (cmp.Ordered),
// counted in a cell, must build (its helpers imported cmp, unused).
func TestPromotedDispatch(t *testing.T) {
	wantInEveryModeThen(t, "../../testdata/promoted", map[string]string{
		"base_name":   "SELECT count FROM name_counts WHERE f = 'example.com/promoted/shapes.Base.Name'",
		"box_name":    "SELECT count FROM name_counts WHERE f = 'example.com/promoted/shapes.(*Box[...]).Name'",
		"cell_name":   "SELECT count FROM name_counts WHERE f = 'example.com/promoted/shapes.Cell[...].Name'",
		"own_name":    "SELECT count FROM name_counts WHERE f = 'example.com/promoted/shapes.Own.Name'",
		"plain_name":  "SELECT count FROM name_counts WHERE f = 'example.com/promoted/shapes.Plain.Name'",
		"wrapped_own": "SELECT count(*) FROM wrapped_names WHERE f = 'example.com/promoted/shapes.Own.Name'",
		"call_base":   "SELECT count FROM call_counts WHERE f = 'example.com/promoted/shapes.Base.Name'",
		"max_count":   "SELECT count FROM max_count",
		"gets_inner":  "SELECT count FROM gets_counts WHERE f = 'example.com/promoted/shapes.Inner[...].Get'",
		"gets_const":  "SELECT count FROM gets_counts WHERE f = 'example.com/promoted/shapes.Const.Get'",
		"first_inner": "SELECT count FROM first_counts WHERE f = 'example.com/promoted/shapes.Inner[...].Get'",
		"first_const": "SELECT count FROM first_counts WHERE f = 'example.com/promoted/shapes.Const.Get'",
	}, func(t *testing.T, mode string, want map[string]string, db *sql.DB) {
		// The method value of a Name a Wrapped forwards to its embedded
		// Namer: the answer must say it may miss what it runs.
		if got := queryStrings(t, db, "SELECT count(*) FROM pmm_incomplete WHERE question = 'fwd-callees' AND reason LIKE '%the interface method value Name%'"); len(got) != 1 || got[0] == "0" {
			t.Errorf("fwd-callees is not said incomplete: %v", queryStrings(t, db, "SELECT reason FROM pmm_incomplete WHERE question = 'fwd-callees'"))
		}
	})
}
