package kinds

import "testing"

// TestString makes kinds a package with a test variant: static.db has
// one text_methods row for Kind all the same.
func TestString(t *testing.T) {
	if got := Large.String(); got != "Large" {
		t.Errorf("Large.String() = %q", got)
	}
}
