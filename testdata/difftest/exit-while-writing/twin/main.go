// The traced twin of ../main.go (trace.go is internal/progen's tracer).
package main

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

var total atomic.Int64

func leaf(a int) (res int) {
	id, ok := trBegin("main.leaf", a)
	defer trEnd(id, &ok, trRes(&res))
	res = a%3 + 1
	ok = true
	return res
}

func spin(a int) {
	id, ok := trBegin("main.spin", a)
	defer trEnd(id, &ok)
	for {
		total.Add(int64(leaf(a)))
		// Yield, so that main is not kept waiting by four spinners on
		// fewer cores: the run stays short, the records few.
		runtime.Gosched()
	}
}

func step(a int) (res int) {
	id, ok := trBegin("main.step", a)
	defer trEnd(id, &ok, trRes(&res))
	res = a * 2
	ok = true
	return res
}

func main() {
	id, ok := trBegin("main.main")
	defer trFinish()
	defer trEnd(id, &ok)
	for i := 0; i < 4; i++ {
		go func(trGo *trRecord, a int) {
			defer trGE(trGA(trGo))
			spin(a)
		}(trGB("main.spin"), i)
	}
	s := 0
	for i := 0; i < 5; i++ {
		s += step(i)
	}
	time.Sleep(5 * time.Millisecond)
	fmt.Println(s, total.Load() >= 0)
	ok = true
}
