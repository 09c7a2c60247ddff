package main

import (
	"example.com/gen/pb"

	. "example.com/gen/tr"
)

func m1(a int) (res int) {
	trID, trOK := TrBegin("main.m1", a)
	defer TrEnd(trID, &trOK, TrRes(&res))
	acc := 0
	for i := 0; i < 3; i++ {
		acc += pb.Shapes[i%2].Area(i + a - 1)
	}
	res = acc
	trOK = true
	return res
}

func main() {
	trID, trOK := TrBegin("main.main")
	defer TrFinish()
	defer TrEnd(trID, &trOK)
	println("result", m1(1))
	trOK = true
}
