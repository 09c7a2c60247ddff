// Package util has no site for questions.pmm: pmm must still see that
// Recover calls recover.
package util

import "fmt"

// Recover turns a panic of its caller into an error.
func Recover(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("recovered %v", r)
	}
}

// Plain does not recover.
func Plain() { fmt.Println("plain deferred") }
