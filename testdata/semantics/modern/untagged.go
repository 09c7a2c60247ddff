//go:build !pmmextra

package main

const ignoredAvailable = false
