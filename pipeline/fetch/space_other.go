//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package fetch

import "errors"

// freeSpace is not implemented on this platform; the space check is skipped.
func freeSpace(dir string) (uint64, error) {
	return 0, errors.ErrUnsupported
}
