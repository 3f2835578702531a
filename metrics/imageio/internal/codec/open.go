package codec

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// OpenRegular opens path for reading only if it is a regular file: a FIFO
// or device named like an image is refused before open (so nothing blocks
// on it), and the open file is checked again.
func OpenRegular(path string) (*os.File, error) {
	f, _, err := OpenRegularInfo(path)
	return f, err
}

// OpenRegularInfo is OpenRegular, also returning the open file's
// information (its size: no second fstat for a reader that needs it).
func OpenRegularInfo(path string) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a regular file (mode %s)", st.Mode().Type())}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if st, err = f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a regular file")}
	}
	return f, st, nil
}
