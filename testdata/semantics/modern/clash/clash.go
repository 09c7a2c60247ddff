// Package clash declares identifiers that generated code might use:
// pmm__ prefixes, pmmrt, rt, and types named like the parameters of
// generated helpers.
package clash

import (
	"fmt"
	"strings"
)

var (
	pmmrt   = "user pmmrt"
	rt      = "user rt"
	pmm__rt = "user pmm__rt"
	pmm__s1 = 1
)

type pmm__state1 struct{ x int }

func pmm__enter1(x int) int { return x + pmm__s1 }

func pmm__call1(f func() string) string { return f() }

// Types named like the parameters and locals of generated helpers.
type (
	s      struct{ v int }
	f      struct{ v int }
	recv   struct{ v int }
	caller struct{ v int }
	r      struct{ v int }
	p1     int
	r1     string
)

type named interface{ name() string }

func (x s) name() string       { return fmt.Sprint("s", x.v) }
func (x *f) name() string      { return fmt.Sprint("f", x.v) }
func (x recv) name() string    { return fmt.Sprint("recv", x.v) }
func (x *caller) name() string { return fmt.Sprint("caller", x.v) }
func (x r) name() string       { return fmt.Sprint("r", x.v) }

func useP1(a p1, rt r1) r1 { return r1(fmt.Sprint(a, rt, pmmrt)) }

// Generic with type parameters named like generated identifiers.
func gen[s any, f comparable, p1 ~int](x s, y f, z p1) string {
	return fmt.Sprint(x, y, z)
}

func withRT(rt int, pmmrt string) string { return fmt.Sprint(rt, pmmrt) }

func Run() string {
	var out []string
	for _, n := range []named{s{1}, &f{2}, recv{3}, &caller{4}, r{5}} {
		out = append(out, n.name())
	}
	out = append(out, string(useP1(1, "b")), gen(1, "y", p1(3)), withRT(4, "v"))
	st := pmm__state1{pmm__enter1(2)}
	out = append(out, fmt.Sprint(st.x, rt, pmm__rt, pmm__call1(func() string { return "c" })))
	return strings.Join(out, " ")
}
