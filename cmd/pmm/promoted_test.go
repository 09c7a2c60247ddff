package main

import "testing"

// TestPromotedDispatch builds and runs testdata/promoted in every mode.
// An interface call must record each execution of the methods its
// dynamic types run: promoted from embedded fields (Rect and *Square run
// Base.Name), of generic types (Box[int], Box[string]; Cell[T], made in
// a generic function only, told by its name at run time), or forwarded
// to the dynamic type of an embedded interface (Tagged, Wrapped); the
// type switch that tells the target named only the declaring types, and
// did not compile for a generic one, nor for a type that does not
// implement the interface. A call of a function value must record
// Base.Name run through the wrapper of the method expression Rect.Name.
// A generic function whose constraint is another package's (cmp.Ordered),
// counted in a cell, must build (its helpers imported cmp, unused).
func TestPromotedDispatch(t *testing.T) {
	wantInEveryMode(t, "../../testdata/promoted", map[string]string{
		"base_name":   "SELECT count FROM name_counts WHERE f = 'example.com/promoted/shapes.Base.Name'",
		"box_name":    "SELECT count FROM name_counts WHERE f = 'example.com/promoted/shapes.(*Box[...]).Name'",
		"cell_name":   "SELECT count FROM name_counts WHERE f = 'example.com/promoted/shapes.Cell[...].Name'",
		"own_name":    "SELECT count FROM name_counts WHERE f = 'example.com/promoted/shapes.Own.Name'",
		"plain_name":  "SELECT count FROM name_counts WHERE f = 'example.com/promoted/shapes.Plain.Name'",
		"wrapped_own": "SELECT count(*) FROM wrapped_names WHERE f = 'example.com/promoted/shapes.Own.Name'",
		"call_base":   "SELECT count FROM call_counts WHERE f = 'example.com/promoted/shapes.Base.Name'",
		"max_count":   "SELECT count FROM max_count",
	})
}
