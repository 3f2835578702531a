//go:build unix

package challenge

import (
	"os"
	"syscall"
)

// openNonBlocking opens with O_NONBLOCK so that opening a FIFO with no
// writer (if one slipped past the check before) returns at once.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
