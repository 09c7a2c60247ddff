package main

import "fmt"

var initLog []string

func logInit(s string) int {
	initLog = append(initLog, s)
	return len(initLog)
}

// Package-level variables initialized by calls, in dependency order.
var (
	derived = compute(table) + logInit("derived")
	table   = buildTable(3)
)

func buildTable(n int) []int {
	logInit("buildTable")
	t := make([]int, n)
	for i := range t {
		t[i] = i * i
	}
	return t
}

func compute(t []int) int { return len(t) * 10 }

func init() { logInit(fmt.Sprint("init 1 of init.go, derived=", derived)) }

func init() { logInit("init 2 of init.go") }
