//go:build linux || darwin || freebsd || netbsd || openbsd

package fetch

import (
	"fmt"
	"syscall"
)

// freeSpace returns the bytes available to an unprivileged user on the file
// system holding dir, via statfs.
func freeSpace(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}
