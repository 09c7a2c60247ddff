package main

import "fmt"

func platformName() string { return "linux" }

func platform() {
	fmt.Println("platform", platformName(), ignoredAvailable)
}
