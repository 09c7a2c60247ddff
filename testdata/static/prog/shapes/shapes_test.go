package shapes

import "testing"

func TestTotal(t *testing.T) {
	if got := Total([]Shape{Square{Side: 2}}); got != 4 {
		t.Errorf("Total = %v, want 4", got)
	}
}
