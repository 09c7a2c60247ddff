// Package archtest checks that data flows one way through pmm's stages:
// its test lists the module's packages with go list and fails when a
// package imports one of a later stage, when a package has no place in
// the order, when a helper for tests is imported by code that is not a
// test, or when the runtime injected into the user's program imports
// anything but the standard library. The order is docs/ARCHITECTURE.md's.
package archtest
