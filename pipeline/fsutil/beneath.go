package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotRegular is wrapped when a path names a FIFO, device, socket or folder.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped when a file is over the size it may have.
var ErrTooLarge = errors.New("too large")

// ErrLink is wrapped when a path goes through a symbolic link or leaves
// its folder: files a run hands the pipeline are never read through one.
var ErrLink = errors.New("a symbolic link or a path that leaves its folder (not followed)")

// OpenIn opens the regular file rel inside the folder root for reading,
// for files an agent may have written or replaced (a run's logs, its
// run.json, its telemetry): no component of rel may be a symbolic link or
// "..", so nothing outside root is reached; a FIFO, device or socket is
// never opened for reading (nothing can block in open or read); and the
// file checked is the file returned (no swap in between). rel is
// slash-separated or OS-separated and relative to root; root itself is
// trusted (the pipeline made it).
func OpenIn(root, rel string) (*os.File, error) {
	name := filepath.Join(root, rel)
	clean := filepath.Clean(filepath.FromSlash(rel))
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrLink}
	}
	f, err := openIn(root, clean)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return f, nil
}

// ReadFileIn reads the regular file rel inside root (as OpenIn opens it)
// when it holds at most max bytes; a larger file is refused from its size
// alone, before any of it is read.
func ReadFileIn(root, rel string, max int64) ([]byte, error) {
	f, err := OpenIn(root, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAllMax(f, f.Name(), max)
}

// ReadAllMax reads the open file f, named name in errors, when it holds at
// most max bytes: a larger file is refused from its size alone, before any
// of it is read, and one that grows past max while read is refused too.
func ReadAllMax(f *os.File, name string, max int64) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %w: %d bytes, the limit is %d", name, ErrTooLarge, st.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: %w: grew past %d bytes while read", name, ErrTooLarge, max)
	}
	return b, nil
}

// KindOf names a file mode for an error message.
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

func notRegular(m fs.FileMode) error {
	return fmt.Errorf("%w (%s)", ErrNotRegular, KindOf(m))
}
