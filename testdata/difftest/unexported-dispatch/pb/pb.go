package pb

type Shape interface {
	Area(k int) int
}

type Sq struct{ N int }

type circ struct{ n int }

var Shapes = []Shape{&Sq{N: 1}, circ{n: 2}}

func (q *Sq) Area(a int) int {
	return (q.N + a) % 5
}

func (c circ) Area(a int) int {
	return (c.n * a) % 5
}
