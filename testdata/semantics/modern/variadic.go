package main

import (
	"fmt"
	"strings"
)

func sum(prefix string, xs ...int) string {
	t := 0
	for _, x := range xs {
		t += x
	}
	return fmt.Sprint(prefix, len(xs), t, xs == nil)
}

func variadics() {
	fmt.Println(sum("none"))
	fmt.Println(sum("three", 1, 2, 3))
	xs := []int{4, 5}
	fmt.Println(sum("spread", xs...))
	fmt.Println(sum("nil", nil...))
	fmt.Printf("%s-%d-%v\n", "printf", 3, []string{"a"})
	args := []any{"x", 1}
	fmt.Println(args...)
	fmt.Println(strings.Join([]string{"a", "b"}, "+"))
}
