// Program regress is the regression program of issue 10's failure
// classes, one part per class (crowded.go, generics.go, panicked.go,
// datacond.go, identities.go, unfinished.go); its questions (questions.pmm) all meet
// over it, which is a stress of their own. Each part counts for itself what pmm must
// answer and prints it.
package main

func main() {
	crowded()
	generics()
	outcomes()
	dataConds()
	identities()
	unfinished() // last: its goroutines stay blocked until the process ends
}
