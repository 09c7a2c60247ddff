package refeval

import (
	"math"
	"testing"
)

// TestListText checks the canonical text of trace lists, as rt/load
// stores them: JSON, floats that JSON cannot hold as strings, and a value
// of another type as the string of its text.
func TestListText(t *testing.T) {
	for _, c := range []struct {
		list []any
		want string
	}{
		{[]any{}, `[]`},
		{[]any{int64(3), int64(-1)}, `[3,-1]`},
		{[]any{1.5, 1e21, 3.0, math.NaN(), math.Inf(1), math.Inf(-1)}, `[1.5,1e+21,3,"NaN","+Inf","-Inf"]`},
		{[]any{true, false, nil}, `[true,false,null]`},
		{[]any{`q"x\y`, "a\tb", "bad\xff"}, `["q\"x\\y","a\u0009b","bad\ufffd"]`},
		{[]any{[]any{int64(1), "a"}, uint8(7)}, `[[1,"a"],"7"]`},
	} {
		if got := listText(c.list); got != c.want {
			t.Errorf("listText(%#v) = %s, want %s", c.list, got, c.want)
		}
	}
}
