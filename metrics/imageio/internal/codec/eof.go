package codec

import (
	"errors"
	"io"
)

// EOFAsTruncated turns an end of input met too early into a "file
// truncated" error; other errors pass unchanged.
func EOFAsTruncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("file truncated")
	}
	return err
}
