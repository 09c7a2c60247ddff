// Package archtest checks that the architecture of docs/ARCHITECTURE.md
// holds. Data flows one way through pmm's stages: a test lists the
// module's packages with go list and fails when a package imports one of
// its own or a later stage, when a package has no place in the order,
// when a helper for tests is imported by code that is not a test, or when
// the runtime injected into the user's program imports anything but the
// standard library; another types the module's code and fails where a
// package assigns to a field of another stage's output (internal/dataflow
// checks the same at run time). And the docs stay in the repository:
// README.md links only to its files, and no relative link of docs/ is
// broken.
package archtest
