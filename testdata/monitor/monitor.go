//go:build !pmm

package main

// Built without pmm, the calls do nothing.
func monitorBegin() {}
func monitorEnd()   {}
