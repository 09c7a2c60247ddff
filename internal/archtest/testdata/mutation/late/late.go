// Package late is a later stage: it reads early's output, and (here,
// to test the check) changes it.
package late

import "example.com/mutation/early"

// Use changes early's output in every way the check sees, and does
// what keeps the rule.
func Use() {
	var cfg early.Config
	cfg.Dir = "." // an input, not an output: allowed
	out := early.Make(cfg)
	out.N = 2
	out.Items[0].Name = "b"
	out.Items[0] = &early.Item{}
	it := out.Items[0]
	it.Name = "c"
	out.N++
	delete(out.ByName, "a")
	out.ByName["a"] = it
	*out.Flag = true
	clear(out.Items)
	n := out.N // reading is allowed
	n++
	_ = n
}

// Fresh fills in values of early's types that it makes itself.
func Fresh() *early.Out {
	own := &early.Out{}
	own.N = 3
	var it = early.Item{}
	it.Name = "d"
	own.Items = append(own.Items, &it)
	return own
}
