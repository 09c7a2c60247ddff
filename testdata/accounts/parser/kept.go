package parser

// Kept is the number of Bufs Parse keeps. (A second file of the
// package: each file's generated code declares its own account
// helpers.)
func Kept() int { return nkept }
