// A program whose interface calls run methods promoted from embedded
// fields and methods of generic types, and that calls a generic function
// of another package: each count it prints as "want NAME VALUE" is what
// pmm must answer, in every mode.
package main

import (
	"fmt"

	"example.com/promoted/gen"
	"example.com/promoted/shapes"
)

func names(ns []shapes.Namer) int {
	n := 0
	for _, x := range ns {
		if x.Name() != "" {
			n++
		}
	}
	return n
}

// wrapped calls Name of a value that forwards it to an embedded Namer.
func wrapped(n shapes.Namer) string { return n.Name() }

// call calls a function value: the method expression shapes.Rect.Name
// is a wrapper, named by Rect, that runs Base.Name.
func call(f func(shapes.Rect) string, r shapes.Rect) string { return f(r) }

// fwd calls a function value: the method value of a Wrapped's Name is
// its embedded Namer's, which every dynamic type shares.
func fwd(f func() string) string { return f() }

// gets calls Get through a Getter[int]: Inner[int].Get, declared with
// Get() T, and promoted by Outer[int].
func gets(gs []shapes.Getter[int]) int {
	t := 0
	for _, g := range gs {
		t += g.Get()
	}
	return t
}

// firstGet calls Get in generic code, through a Getter[T].
func firstGet[T any](g shapes.Getter[T]) T { return g.Get() }

func main() {
	base, box, own, cell := 0, 0, 0, 0
	ns := []shapes.Namer{
		shapes.Rect{W: 1}, &shapes.Rect{W: 2}, // promoted from Base
		&shapes.Square{Base: &shapes.Base{}}, // promoted from *Base
		shapes.Base{},                        // declared
		&shapes.Box[int]{V: 1}, &shapes.Box[string]{V: "a"},
		shapes.Own{},
		shapes.Tagged{Labeler: shapes.Plain{}}, // runs Plain.Name
		shapes.NewCell(2.5), shapes.NewCell("c"),
	}
	for _, x := range ns {
		switch x.(type) {
		case *shapes.Box[int], *shapes.Box[string]:
			box++
		case shapes.Own:
			own++
		case shapes.Tagged:
		case shapes.Cell[float64], shapes.Cell[string]:
			cell++
		default:
			base++
		}
	}
	names(ns)
	names(ns[:3])
	base += 3 // the second names: the two Rects and the Square
	wrapped(shapes.Wrapped{Namer: shapes.Own{}})
	call(shapes.Rect.Name, shapes.Rect{})
	call(func(shapes.Rect) string { return "lit" }, shapes.Rect{})
	fwd(shapes.Wrapped{Namer: shapes.Own{}}.Name)
	fwd(func() string { return "lit" })
	gets([]shapes.Getter[int]{shapes.Inner[int]{V: 1}, shapes.Outer[int]{Inner: shapes.Inner[int]{V: 2}},
		&shapes.Outer[int]{}, shapes.Const(3)})
	firstGet[string](shapes.Outer[string]{})
	firstGet[int](shapes.Const(4))
	m := 0
	for i := range 4 {
		m = gen.Max(m, i)
	}
	fmt.Println(gen.Max("a", "b"), m)
	fmt.Println("want base_name", base)
	fmt.Println("want box_name", box)
	fmt.Println("want own_name", own)
	fmt.Println("want cell_name", cell)
	fmt.Println("want plain_name", 1)  // the Tagged, through its Labeler
	fmt.Println("want wrapped_own", 1) // the Wrapped, through its Namer
	fmt.Println("want max_count", 5)
	fmt.Println("want gets_inner", 3)
	fmt.Println("want gets_const", 1)
	fmt.Println("want first_inner", 1)
	fmt.Println("want first_const", 1)
	fmt.Println("want call_base", 1) // through the wrapper of Rect.Name
}
