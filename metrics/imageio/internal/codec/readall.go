package codec

import (
	"fmt"
	"io"
)

// ReadAllMax reads all of r, at most Options.MaxBytes; errors start with
// the format's name.
func ReadAllMax(r io.Reader, o Options, format string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, o.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", format, err)
	}
	if int64(len(b)) > o.MaxBytes {
		return nil, fmt.Errorf("%s: file larger than the %d-byte limit (Options.MaxBytes)", format, o.MaxBytes)
	}
	return b, nil
}
