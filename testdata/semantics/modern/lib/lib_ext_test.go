package lib_test

import (
	"fmt"
	"testing"

	"example.com/semantics/lib"
)

func TestWords(t *testing.T) {
	if got := lib.Words(" a b  c "); len(got) != 3 {
		t.Fatalf("Words: %q", got)
	}
	t.Log("words ok")
}

func ExampleReverse() {
	fmt.Println(lib.Reverse("pmm!"))
	// Output: !mmp
}
