// Package xtest has an external test package at the root of its module,
// which uses a type of the module's internal package.
package xtest

// Add adds.
func Add(a, b int) int { return a + b }
