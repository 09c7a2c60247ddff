//go:build !linux

package main

import "fmt"

func platformName() string { return "other" }

func platform() {
	fmt.Println("platform", platformName(), ignoredAvailable)
}
