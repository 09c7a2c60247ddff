package main

import "fmt"

type counter struct{ n int }

func (c *counter) Add(d int) *counter {
	c.n += d
	return c
}

func (c counter) Get() int { return c.n }

func (counter) Kind() string { return "counter" }

func (_ *counter) Blank() string { return "blank receiver" }

func methods() {
	c := &counter{}
	add := c.Add
	add(2)
	fmt.Println(c.Get())
	get := c.Get // copies the receiver now
	c.Add(1).Add(2).Add(3)
	fmt.Println(get(), c.Get(), counter.Get(*c), (*counter).Get(c))
	(*counter).Add(c, 4)
	fmt.Println(c.n, c.Kind(), counter.Kind(counter{}), c.Blank())
	var v counter
	v.Add(5) // addressable value, pointer method
	fmt.Println(v.n)
	defer c.Add(100)
	defer fmt.Println("deferred sees", c.Get())
}
