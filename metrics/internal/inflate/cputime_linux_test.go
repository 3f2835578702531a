package inflate

import "syscall"

// threadCPU is the calling thread's user+system CPU time in nanoseconds
// (getrusage RUSAGE_THREAD): on a shared, oversubscribed machine it leaves
// out the time the thread waited for a CPU, which wall-clock ns/op includes.
func threadCPU() (int64, bool) {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
