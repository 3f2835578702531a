package challenge

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"

	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// Size caps for the files a submission names. They are variables so a test
// (or a challenge whose real files are larger) can change them; the grade
// stage never raises them.
var (
	// MaxCSVBytes is the largest CSV file ReadCSV and ParseCSV accept.
	MaxCSVBytes int64 = 256 << 20
	// MaxFieldBytes is the longest single CSV field.
	MaxFieldBytes = 1 << 20
	// MaxLineBytes is the longest physical line of a CSV file; it bounds the
	// memory one record can take while it is read.
	MaxLineBytes = 4 << 20
	// MaxJSONBytes is the largest JSON file read (a prepared folder's manifest).
	MaxJSONBytes int64 = 256 << 20
)

// MaxEcho is how many bytes of a submitted value an error message repeats.
const MaxEcho = 200

// Clip shortens s to at most MaxEcho bytes (on a rune boundary), saying how
// long it was, so that an error message never echoes a huge field.
func Clip(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	cut := MaxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

// ErrTooLarge is wrapped by the errors of the size caps.
var ErrTooLarge = fsutil.ErrTooLarge

// ErrNotRegular is wrapped when a path is a FIFO, device, socket or folder.
var ErrNotRegular = fsutil.ErrNotRegular

// OpenRegular opens path for reading only if it is a regular file. It
// checks before opening (a FIFO or device is never opened, so nothing can
// block in open) and again on the open file (the path cannot be swapped in
// between). Symbolic links are followed; callers that must stay inside a
// folder resolve the path with ResolveInside first.
func OpenRegular(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, fsutil.KindOf(st.Mode()))}
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, fsutil.KindOf(st.Mode()))}
	}
	return f, nil
}

// ReadFileMax reads a regular file of at most max bytes. A larger file is
// rejected from its size alone, before any of it is read.
func ReadFileMax(path string, max int64) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return fsutil.ReadAllMax(f, path, max)
}

// sizer is what *os.File offers to learn a reader's size without reading.
type sizer interface {
	Stat() (fs.FileInfo, error)
}

// checkSize rejects a reader that is a file larger than max.
func checkSize(r io.Reader, name string, max int64) error {
	s, ok := r.(sizer)
	if !ok {
		return nil
	}
	st, err := s.Stat()
	if err != nil {
		return nil
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", name, ErrNotRegular, fsutil.KindOf(st.Mode()))
	}
	if st.Size() > max {
		return fmt.Errorf("%s: %w: %d bytes, the limit is %d", name, ErrTooLarge, st.Size(), max)
	}
	return nil
}

// boundedReader fails once more than max bytes were read in all, or a line
// is longer than maxLine bytes.
type boundedReader struct {
	r       io.Reader
	name    string
	max     int64
	maxLine int
	n       int64
	line    int // bytes since the last newline
	lineNo  int
}

func (b *boundedReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	for chunk := p[:n]; ; {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			i = len(chunk)
		}
		if b.line+i > b.maxLine {
			return 0, fmt.Errorf("%s: line %d: %w: longer than %d bytes", b.name, b.lineNo+1, ErrTooLarge, b.maxLine)
		}
		if i == len(chunk) {
			b.line += i
			break
		}
		b.line = 0
		b.lineNo++
		chunk = chunk[i+1:]
	}
	b.n += int64(n)
	if b.n > b.max {
		return 0, fmt.Errorf("%s: %w: more than %d bytes", b.name, ErrTooLarge, b.max)
	}
	return n, err
}
