package main

func main() {
	var s string = 1
	undefined()
	_ = s
}
