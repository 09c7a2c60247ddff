// The traced twin of ../main.go (trace.go is internal/progen's tracer).
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

var wg sync.WaitGroup

var total atomic.Int64

func L(a int) (res int) {
	id, ok := trBegin("main.L", a)
	defer trEnd(id, &ok, trRes(&res))
	res = a + 1
	ok = true
	return res
}

func Work(a int) {
	id, ok := trBegin("main.Work", a)
	defer trEnd(id, &ok) // registered first: runs after wg.Done
	defer time.Sleep(10 * time.Second)
	defer wg.Done()
	total.Add(int64(L(a)))
	ok = true
}

func M(a int) (res int) {
	id, ok := trBegin("main.M", a)
	defer trEnd(id, &ok, trRes(&res))
	res = a * 2
	ok = true
	return res
}

func Spawn(n int) (res int) {
	id, ok := trBegin("main.Spawn", n)
	defer trEnd(id, &ok, trRes(&res))
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(trGo *trRecord, a int) {
			defer trGE(trGA(trGo))
			Work(a)
		}(trGB("main.Work"), i%3)
	}
	wg.Wait()
	res = int(total.Load())
	ok = true
	return res
}

func main() {
	id, ok := trBegin("main.main")
	defer trFinish()
	defer trEnd(id, &ok)
	fmt.Println(Spawn(3) + Spawn(4) + M(1))
	ok = true
}
