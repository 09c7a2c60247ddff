//go:build pmmextra

package main

const ignoredAvailable = true

func extraOnly() int { return 1 }
