// The traced twin of ../main.go (trace.go is internal/progen's tracer).
package main

import (
	"fmt"
	"sync"
)

var ready sync.WaitGroup

var block = make(chan int)

func Stuck(a int) {
	id, ok := trBegin("main.Stuck", a)
	defer trEnd(id, &ok)
	ready.Done()
	<-block
	ok = true
}

func Quick(a int) (res int) {
	id, ok := trBegin("main.Quick", a)
	defer trEnd(id, &ok, trRes(&res))
	res = a + 1
	ok = true
	return res
}

func Spawn(n int) (res int) {
	id, ok := trBegin("main.Spawn", n)
	defer trEnd(id, &ok, trRes(&res))
	s := 0
	for i := 0; i < n; i++ {
		ready.Add(1)
		go func(trGo *trRecord, a int) {
			defer trGE(trGA(trGo))
			Stuck(a)
		}(trGB("main.Stuck"), i)
		s += Quick(i)
	}
	ready.Wait()
	res = s
	ok = true
	return res
}

func main() {
	id, ok := trBegin("main.main")
	defer trFinish()
	defer trEnd(id, &ok)
	fmt.Println(Spawn(2) + Quick(5))
	ok = true
}
