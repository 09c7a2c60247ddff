// Package untested calls strings.Repeat once in Banner; its test calls it
// once more itself.
package untested

import "strings"

// Banner is a line of n dashes.
func Banner(n int) string { return strings.Repeat("-", n) }
