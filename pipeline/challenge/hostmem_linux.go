package challenge

import "golang.org/x/sys/unix"

// hostMemory is the host's RAM in bytes, 0 when unknown.
func hostMemory() int64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
