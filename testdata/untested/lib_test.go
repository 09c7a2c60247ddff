package untested

import (
	"strings"
	"testing"
)

// TestBanner makes two executions of strings.Repeat: one in Banner, one
// here.
func TestBanner(t *testing.T) {
	if Banner(3) != strings.Repeat("-", 3) {
		t.Fatal("Banner(3)")
	}
}
