package lib

import "testing"

// check is a test helper: failures and logs name the line of its caller.
func check(t *testing.T, got, want string) {
	t.Helper()
	t.Logf("check %q", got)
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestReverse(t *testing.T) {
	check(t, Reverse("abc"), "cba")
	check(t, Reverse("héllo"), "olléh")
	if double(3) != 6 {
		t.Fatal("double")
	}
}

func TestSub(t *testing.T) {
	for _, c := range []string{"a", "ab"} {
		t.Run(c, func(t *testing.T) {
			check(t, Reverse(Reverse(c)), c)
		})
	}
}
