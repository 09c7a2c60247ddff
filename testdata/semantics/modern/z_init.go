package main

var late = logInit("late of z_init.go")

func init() { logInit("init of z_init.go") }
