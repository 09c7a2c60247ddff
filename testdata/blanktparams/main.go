// Methods of a generic type whose receivers leave type parameters
// blank (func (m *Map[_, V]) ...): pmm names them in its copy of the
// source. Each count the program prints as "want NAME VALUE" is what
// pmm must answer, in every mode.
package main

import "fmt"

type Map[K comparable, V any] struct {
	m    map[K]V
	keys []K
}

func (m *Map[K, V]) Put(k K, v V) {
	if _, ok := m.m[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.m[k] = v
}

// Len names none of the receiver's type parameters.
func (m *Map[_, _]) Len() int { return len(m.keys) }

// Vals names only the second.
func (m *Map[_, V]) Vals() []V {
	out := make([]V, 0, len(m.keys))
	for _, k := range m.keys {
		out = append(out, m.m[k])
	}
	return out
}

func main() {
	a := &Map[string, int]{m: map[string]int{}}
	b := &Map[int, bool]{m: map[int]bool{}}
	a.Put("x", 1)
	a.Put("y", 2)
	b.Put(1, true)
	la, lb := a.Len(), b.Len()
	fmt.Println(a.Vals(), b.Vals(), a.Vals())
	fmt.Printf("want lens 2\nwant vals 3\nwant lens_sum %d\nwant vals_receivers 2\n", la+lb)
}
