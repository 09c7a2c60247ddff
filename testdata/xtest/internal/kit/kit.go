// Package kit has the test cases of xtest.
package kit

// Case is a test case of Add.
type Case struct{ A, B, Want int }

// Cases returns the test cases.
func Cases() []Case { return []Case{{1, 2, 3}, {2, 2, 4}, {0, 5, 5}} }

type item struct{ n int }

// Items returns values of an unexported type.
func Items() []item { return []item{{1}, {2}} }
