// Package dataflow checks, in its tests, that no stage of pmm changes
// the output of an earlier one: it runs the stages in the driver's order
// on the test programs of the repository and, after each stage, compares
// every earlier stage's output with a snapshot taken when it was
// produced. internal/archtest checks the same rule in the source (no
// package assigns to the fields of another stage's output); this package
// checks it in what the code does, aliases included.
package dataflow
