package golden

import (
	"strings"
	"testing"
)

func TestFirstDifference(t *testing.T) {
	var a, b []string
	for i := range 80 {
		a = append(a, "line "+string(rune('a'+i%26)))
		b = append(b, "line "+string(rune('a'+i%26)))
	}
	b[30] = "changed"
	got := FirstDifference(strings.Join(a, "\n"), strings.Join(b, "\n"), "got", "want")
	for _, want := range []string{
		"first at line 31 (of 80 and 80)\n",
		"--- got ---\n" + strings.Join(a[26:38], "\n") + "\n",
		"--- want ---\n" + strings.Join(b[26:38], "\n"),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, a[25]) || strings.Contains(got, a[38]) {
		t.Errorf("shows more than the lines around the difference:\n%s", got)
	}
	if got := FirstDifference("x\ny", "x\ny\nz", "a", "b"); !strings.Contains(got, "line 3") || !strings.Contains(got, "--- a ---\nx\ny\n(end)\n--- b ---\nx\ny\nz\n(end)") {
		t.Errorf("a shorter a:\n%s", got)
	}
}
