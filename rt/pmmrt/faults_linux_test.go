package pmmrt

import "syscall"

// threadPageFaults returns the page faults the calling thread has taken.
func threadPageFaults() int64 {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return ru.Minflt + ru.Majflt
}
