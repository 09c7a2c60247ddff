package main

import (
	"errors"
	"fmt"
	"os"
)

func safeDiv(a, b int) (q int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("recovered: %v", r)
		}
	}()
	q = a / b
	return
}

// recoverer recovers when it is deferred directly.
func recoverer() {
	if r := recover(); r != nil {
		fmt.Println("recoverer got", r)
	}
}

func deferRecoverer() {
	defer recoverer()
	panic("p1")
}

type handler struct{ name string }

func (h *handler) recoverM() {
	if r := recover(); r != nil {
		fmt.Println(h.name, "got", r)
	}
}

func deferMethodRecoverer() {
	h := &handler{"handler"}
	defer h.recoverM()
	panic("p2")
}

// indirect calls recoverer, which then is not deferred directly: it
// recovers nothing.
func indirect() { recoverer() }

func deferIndirect() (msg string) {
	defer func() { msg = fmt.Sprint("outer recovered ", recover()) }()
	func() {
		defer indirect()
		panic("p3")
	}()
	return "not reached"
}

func recoverValue(v any) (got any) {
	defer func() { got = recover() }()
	panic(v)
}

func recoverError() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = r.(error)
		}
	}()
	var m map[string]int
	m["x"] = 1
	return nil
}

func deferOrder() {
	for i := 0; i < 3; i++ {
		defer fmt.Println("deferred", i)
	}
	defer fmt.Fprintln(os.Stdout, "deferred last registered")
}

func recovers() {
	fmt.Println(safeDiv(7, 2))
	q, err := safeDiv(7, 0)
	// safeDiv recovers: it returns normally, with its named results.
	rec("main.safeDiv", []any{7, 0}, 0, q, err)
	deferRecoverer()
	deferMethodRecoverer()
	fmt.Println(deferIndirect())
	fmt.Println(recoverValue(42), recoverValue("s"), recoverValue(errors.New("e")))
	fmt.Println(recoverError())
	deferOrder()
}
