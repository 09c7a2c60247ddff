//go:build ignore

package main

func ignored() int { return undefinedInIgnored() }
