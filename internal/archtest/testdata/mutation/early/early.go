// Package early is a stage whose output a later stage must not change.
package early

// Out is the stage's output.
type Out struct {
	N      int
	Items  []*Item
	ByName map[string]*Item
	Flag   *bool
}

// Item is reachable from Out.
type Item struct{ Name string }

// Config is an input of the stage, not reachable from Out: its caller
// may fill it in.
type Config struct{ Dir string }

// Make makes an output, and may change it: the package owns it.
func Make(Config) *Out {
	out := &Out{ByName: map[string]*Item{}}
	out.N = 1
	out.Items = append(out.Items, &Item{Name: "a"})
	return out
}
