//go:build pmm

package main

// Built by pmm (which adds the tag pmm), the program controls recording
// through pmm's runtime, which the overlay adds to the module.
import rt "example.com/monitor/internal/_pmmrt"

func monitorBegin() { rt.Begin() }
func monitorEnd()   { rt.End() }
