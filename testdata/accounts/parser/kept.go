package parser

// Kept is the number of Bufs Parse keeps. (A second file of the
// package whose function calls another, so that it enters its account:
// each file's generated code declares its own account helpers.)
func Kept() int { return count() }
