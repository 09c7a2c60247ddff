// Command regions has labeled statements of every kind, for static's
// regions table.
package main

import "fmt"

func run(xs []int, c chan int) (n int) {
outer:
	for i := 0; i < 3; i++ {
	each:
		for _, x := range xs {
			if x < 0 {
				continue outer
			}
			if x > 9 {
				break each
			}
			n++
		}
	}
kind:
	switch {
	case n > 2:
		break kind
	}
wait:
	select {
	case <-c:
		break wait
	default:
	}
	f := func(v any) {
	types:
		switch v.(type) {
		case int:
			break types
		}
	}
	f(n)
block:
	{
		if n < 0 {
			goto block
		}
	}
	return n
}

func main() {
	fmt.Println(run([]int{1, 2}, make(chan int)))
}
