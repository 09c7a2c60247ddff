package pb

import . "example.com/gen/tr"

type Shape interface {
	Area(k int) int
}

type Sq struct{ N int }

type circ struct{ n int }

var Shapes = []Shape{&Sq{N: 1}, circ{n: 2}}

func (q *Sq) Area(a int) (res int) {
	trID, trOK := TrBegin("example.com/gen/pb.(*Sq).Area", a)
	defer TrEnd(trID, &trOK, TrRes(&res))
	res = (q.N + a) % 5
	trOK = true
	return res
}

func (c circ) Area(a int) (res int) {
	trID, trOK := TrBegin("example.com/gen/pb.circ.Area", a)
	defer TrEnd(trID, &trOK, TrRes(&res))
	res = (c.n * a) % 5
	trOK = true
	return res
}
