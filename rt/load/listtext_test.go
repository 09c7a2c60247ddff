package load

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pmm.dev/pmm/rt/pmmrt"
	"pmm.dev/pmm/spec"
)

// TestListTextIsTheLiterals checks that the text the loader stores a
// recorded list as is the canonical text of the PMM list literal of the
// same values (spec.Literal.ListText), which SQL compares it with: the
// two are written by separate code (spec cannot see the log format), so
// any difference (a float's form, a string's escapes) would make a list
// comparison silently false.
func TestListTextIsTheLiterals(t *testing.T) {
	cases := []struct {
		values []interface{}
		lit    []*spec.Literal
	}{
		{[]interface{}{3, int64(-7), uint8(200)}, []*spec.Literal{{Kind: spec.LitInt, Int: 3}, {Kind: spec.LitInt, Int: -7}, {Kind: spec.LitInt, Int: 200}}},
		{[]interface{}{1.5, 1e21, 0.1, float32(2), 3.0}, []*spec.Literal{{Kind: spec.LitFloat, Float: 1.5}, {Kind: spec.LitFloat, Float: 1e21}, {Kind: spec.LitFloat, Float: 0.1}, {Kind: spec.LitFloat, Float: 2}, {Kind: spec.LitInt, Int: 3}}},
		{[]interface{}{`q"x\y`, "a\tb\x01", "<&>", "é€😀", "bad\xffutf8"}, []*spec.Literal{{Kind: spec.LitString, Str: `q"x\y`}, {Kind: spec.LitString, Str: "a\tb\x01"}, {Kind: spec.LitString, Str: "<&>"}, {Kind: spec.LitString, Str: "é€😀"}, {Kind: spec.LitString, Str: "bad\xffutf8"}}},
		{[]interface{}{true, false, nil}, []*spec.Literal{{Kind: spec.LitBool, Bool: true}, {Kind: spec.LitBool}, {Kind: spec.LitNil}}},
		{[]interface{}{}, []*spec.Literal{}},
	}
	dir := record(t, func() {
		var r pmmrt.Rec
		for i, c := range cases {
			r.Int(int64(i))
			r.ListBegin()
			for _, v := range c.values {
				r.Value(v)
			}
			r.ListEnd()
			pmmrt.Emit(2, &r)
		}
	})
	load(t, dir, []Table{{ID: 2, Name: "calls", Columns: []Column{{"id", "INTEGER", true}, {"args", "TEXT", false}}}})
	db := open(t, dir)
	for i, c := range cases {
		text := (&spec.Literal{Kind: spec.LitList, List: c.lit}).ListText()
		got := rows(t, db, `SELECT id FROM calls WHERE args = '`+strings.ReplaceAll(text, "'", "''")+`'`)
		if want := [][]string{{"int:" + strconv.Itoa(i)}}; !reflect.DeepEqual(got, want) {
			stored := rows(t, db, `SELECT args FROM calls WHERE id = `+strconv.Itoa(i))
			t.Errorf("%#v: the literal's text %s matches ids %v; the loader stored %v", c.values, text, got, stored)
		}
	}
}
