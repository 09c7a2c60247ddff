package main

import "testing"

func TestBuild(t *testing.T) {
	if got := build(4); len(got) != 4 || got[3] != 9 {
		t.Errorf("build(4) = %v", got)
	}
}
